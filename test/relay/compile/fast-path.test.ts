import { request } from 'node:http'
import { gzipSync } from 'node:zlib'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, type RunningServer } from '../../../core/http/index.js'
import { BundleCache } from '../../../plugins/bundle/bundle-cache.js'
import { LongPollWaiters } from '../../../plugins/bundle/waiters.js'
import { compileExtension } from '../../../relay/compile/extension.js'
import { createRelayMetrics, type RelayMetrics } from '../../../relay/metrics.js'
import { startRelayServer } from '../../../relay/server.js'
import type { RelayContext, RelayExtension } from '../../../relay/types.js'
import { filtersBundle, SQL, target } from './compile-fixtures.js'

const logger = pino({ level: 'silent' })

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One raw HTTP request (node:http, so lengths, chunking and encodings are exactly as given). */
function send(
  url: string,
  path: string,
  body: Buffer | string | undefined,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      )
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** Headers that may differ between two servers answering alike. */
function comparable(answer: Answer): Answer {
  const { date: _date, 'x-request-id': id, ...headers } = answer.headers
  return { ...answer, headers: { ...headers, 'x-request-id': id === undefined ? 'absent' : 'present' } }
}

let extension: RelayExtension
let metrics: RelayMetrics
let fast: RunningServer
let slow: RunningServer
let taken = 0

beforeAll(async () => {
  const cache = new BundleCache(new LongPollWaiters(10), undefined, logger)
  metrics = createRelayMetrics(cache, { defaultMetrics: false })
  extension = compileExtension({ cache, logger, metrics } as unknown as RelayContext)
  const app = createApp({ errorStyle: 'opa', logger })
  extension.routes?.(app, {} as RelayContext)
  await cache.promote(target, await filtersBundle('include if input.tickets.owner == input.user', 'r1'))
  const path = extension.fastPath
  if (!path) throw new Error('no fast path without agent_auth')
  fast = await startRelayServer({
    fetch: app.fetch,
    fastPath: (req, res) => {
      const answered = path(req, res)
      if (answered) taken++
      return answered
    },
    host: '127.0.0.1',
    port: 0,
    logger,
  })
  slow = await startRelayServer({ fetch: app.fetch, host: '127.0.0.1', port: 0, logger })
})

afterAll(async () => {
  await fast?.stop()
  await slow?.stop()
  await extension?.stop?.()
})

const GOOD = JSON.stringify({ input: { user: 'bob' }, unknowns: ['input.tickets'] })
const JSON_TYPE = { 'Content-Type': 'application/json' }

// [what, path, body, headers, taken by the fast path]
const cases: Array<[string, string, Buffer | string | undefined, Record<string, string>, boolean]> = [
  ['a good SQL request', '/v1/compile/filters/include', GOOD, { Accept: SQL, ...JSON_TYPE }, true],
  [
    'a good UCAST request',
    '/v1/compile/filters/include',
    GOOD,
    { Accept: 'application/vnd.opa.ucast.prisma+json' },
    true,
  ],
  ['no Accept', '/v1/compile/filters/include', GOOD, JSON_TYPE, true],
  ['an unknown Accept', '/v1/compile/filters/include', GOOD, { Accept: 'text/csv', ...JSON_TYPE }, true],
  [
    'POST /v1/compile with a query in the body',
    '/v1/compile',
    JSON.stringify({ query: 'data.filters.include', unknowns: ['input.tickets'], input: { user: 'bob' } }),
    { Accept: SQL },
    true,
  ],
  ['an unknown rule', '/v1/compile/filters/nothing', GOOD, { Accept: SQL }, true],
  ['malformed JSON', '/v1/compile/filters/include', '{"input": ', { Accept: SQL, ...JSON_TYPE }, true],
  ['invalid UTF-8', '/v1/compile/filters/include', Buffer.from([0x7b, 0xff, 0x7d]), { Accept: SQL }, true],
  ['an empty body', '/v1/compile/filters/include', '', { Accept: SQL }, true],
  [
    'a wrong content type',
    '/v1/compile/filters/include',
    GOOD,
    { Accept: SQL, 'Content-Type': 'text/yaml' },
    true,
  ],
  [
    'a request id offered',
    '/v1/compile/filters/include',
    GOOD,
    { Accept: SQL, 'X-Request-Id': 'abc-1' },
    true,
  ],
  ['a query string', '/v1/compile/filters/include?pretty=true', GOOD, { Accept: SQL }, false],
  ['an escaped path', '/v1/compile/filters%2Finclude', GOOD, { Accept: SQL }, false],
  [
    'a gzip body',
    '/v1/compile/filters/include',
    gzipSync(GOOD),
    { Accept: SQL, 'Content-Encoding': 'gzip' },
    false,
  ],
  [
    'a gzip bomb',
    '/v1/compile/filters/include',
    gzipSync(Buffer.alloc(80 * 1024 * 1024)),
    { Accept: SQL, 'Content-Encoding': 'gzip' },
    false,
  ],
  [
    'a corrupt gzip body',
    '/v1/compile/filters/include',
    Buffer.from('not gzip'),
    { Accept: SQL, 'Content-Encoding': 'gzip' },
    false,
  ],
  [
    'an unknown encoding',
    '/v1/compile/filters/include',
    GOOD,
    { Accept: SQL, 'Content-Encoding': 'br' },
    false,
  ],
  [
    'an oversized body',
    '/v1/compile/filters/include',
    Buffer.alloc(8 * 1024 * 1024 + 1, 0x20),
    { Accept: SQL },
    false,
  ],
  [
    'a chunked body',
    '/v1/compile/filters/include',
    GOOD,
    { Accept: SQL, 'Transfer-Encoding': 'chunked' },
    false,
  ],
]

describe('relay compile fast path', () => {
  it.each(cases)('answers %s as the app route does', async (_what, path, body, headers, viaFastPath) => {
    const before = taken
    const viaFast = await send(fast.url, path, body, headers)
    expect(taken - before).toBe(viaFastPath ? 1 : 0)
    const viaApp = await send(slow.url, path, body, headers)
    expect(comparable(viaFast)).toEqual(comparable(viaApp))
    if (headers['X-Request-Id']) expect(viaFast.headers['x-request-id']).toBe(headers['X-Request-Id'])
  })

  it('answers the good request with SQL and counts it as the app does', async () => {
    const answer = await send(fast.url, '/v1/compile/filters/include', GOOD, { Accept: SQL })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ result: { query: "WHERE tickets.owner = E'bob'" } })
    expect(await metrics.registry.getSingleMetricAsString('regent_relay_agent_requests_total')).toMatch(
      /route="other",code="200"} [1-9]/,
    )
  })

  it('leaves GETs to the app', async () => {
    const before = taken
    await send(fast.url, '/v1/compile/filters/include', undefined, { Accept: SQL }, 'GET')
    expect(taken).toBe(before)
  })
})
