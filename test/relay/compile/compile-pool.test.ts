/**
 * `/v1/compile` on the relay's worker pool: a full queue answers 503 with Retry-After, a query past
 * its deadline answers OPA's eval_cancel_error, a query that exhausts a worker's heap fails alone
 * (the worker is replaced, the next request works), and network-reaching built-ins only reach the
 * hosts in `relay.compile.allow_net`.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../core/http/index.js'
import { BundleCache } from '../../../plugins/bundle/bundle-cache.js'
import { LongPollWaiters } from '../../../plugins/bundle/waiters.js'
import { compileExtension } from '../../../relay/compile/extension.js'
import type { RelayContext, RelayExtension } from '../../../relay/types.js'
import { eventually, relayConfig } from '../helpers.js'
import { filtersBundle, SQL, target } from './compile-fixtures.js'

const logger = pino({ level: 'silent' })
/** About 10^8 steps: runs for minutes unless something stops it. */
const RUNAWAY = 'input.x == count([1 | some a in numbers.range(1, 10000); some b in numbers.range(1, 10000)])'

let extension: RelayExtension | undefined
let server: Server | undefined
afterEach(async () => {
  await extension?.stop?.()
  extension = undefined
  await new Promise((done) => (server ? server.close(done) : done(undefined)))
  server = undefined
})

async function relayWith(compileYaml: string, rule = 'include if input.tickets.owner == input.user') {
  const config = relayConfig(`relay:\n  compile:\n${compileYaml.replace(/^/gm, '    ')}\n`)
  const cache = new BundleCache(new LongPollWaiters(10), undefined, logger)
  const ext = compileExtension({ cache, logger, config } as unknown as RelayContext)
  extension = ext
  const app = createApp({ errorStyle: 'opa', logger })
  ext.routes?.(app, {} as RelayContext)
  await cache.promote(target, await filtersBundle(rule, 'r1'))
  const ask = async (body: Record<string, unknown>, path = '/v1/compile') => {
    const res = await app.request(path, {
      method: 'POST',
      headers: { Accept: SQL, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: res.status, headers: res.headers, text: await res.text() }
  }
  const filter = (input: unknown) =>
    ask({ input, unknowns: ['input.tickets'] }, '/v1/compile/filters/include')
  const workers = () => ext.status?.().workers as { busy: number; replaced: number; workers: number }
  return { ask, filter, workers }
}

describe('relay /v1/compile worker pool', () => {
  it('answers 503 with Retry-After when every worker is busy and the queue is full', async () => {
    const { ask, filter, workers } = await relayWith('workers: 1\nqueue: 0\ntimeout_ms: 3000')
    const runaway = ask({ query: RUNAWAY, unknowns: ['input.y'] })
    await eventually(() => workers()?.busy === 1, 10_000, 'the runaway request on the worker')
    const refused = await filter({ user: 'bob' })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('Retry-After')).toBe('1')
    expect(JSON.parse(refused.text)).toEqual({
      code: 'service_unavailable',
      message: expect.stringMatching(/relay\.compile\.queue/),
    })
    expect((await runaway).status).toBe(500)
    // The worker is free again.
    expect(await filter({ user: 'bob' })).toMatchObject({ status: 200 })
  })

  it("stops a query past relay.compile.timeout_ms with OPA's eval_cancel_error", async () => {
    const { ask, filter } = await relayWith('workers: 1\ntimeout_ms: 1500\ninstruction_limit: 0')
    expect((await filter({ user: 'bob' })).status).toBe(200)
    const res = await ask({ query: RUNAWAY, unknowns: ['input.y'] })
    expect(res.status).toBe(500)
    expect(JSON.parse(res.text)).toMatchObject({
      code: 'internal_error',
      message: 'error(s) occurred while evaluating query',
      errors: [{ code: 'eval_cancel_error' }],
    })
    expect(JSON.parse((await filter({ user: 'bob' })).text)).toEqual({
      result: { query: "WHERE tickets.owner = E'bob'" },
    })
  })

  it('stops the same query at relay.compile.instruction_limit (default 5,000,000 units) first', async () => {
    const { ask, filter } = await relayWith('workers: 1\ntimeout_ms: 60000')
    const res = await ask({ query: RUNAWAY, unknowns: ['input.y'] })
    expect(res.status).toBe(500)
    expect(JSON.parse(res.text)).toMatchObject({
      code: 'internal_error',
      errors: [{ code: 'eval_instruction_limit_error' }],
    })
    expect((await filter({ user: 'bob' })).status).toBe(200)
  })

  it('replaces a worker that runs out of heap; the request fails alone and the next one works', async () => {
    const { ask, filter, workers } = await relayWith(
      'workers: 1\ntimeout_ms: 60000\nmax_heap_mb: 32\ninstruction_limit: 0',
    )
    const res = await ask({ query: 'input.x == count(numbers.range(1, 1e7))', unknowns: ['input.x'] })
    expect(res.status).toBe(500)
    expect(JSON.parse(res.text)).toMatchObject({
      code: 'internal_error',
      errors: [{ code: 'eval_cancel_error', message: expect.stringMatching(/relay\.compile\.max_heap_mb/) }],
    })
    expect(workers()).toMatchObject({ workers: 1, replaced: 1 })
    expect(JSON.parse((await filter({ user: 'bob' })).text)).toEqual({
      result: { query: "WHERE tickets.owner = E'bob'" },
    })
  })
})

describe('relay /v1/compile allow_net', () => {
  const SECRET = 'metadata-secret-7f3a'

  async function secretServer(): Promise<{ url: string; hits: () => number }> {
    let hits = 0
    server = createServer((_req, res) => {
      hits++
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ owner: SECRET }))
    })
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, hits: () => hits }
  }

  const rule = (url: string) =>
    `include if input.tickets.owner == http.send({"method": "get", "url": "${url}"}).body.owner`

  it('refuses http.send to a host not in the list (empty by default) before any request goes out: no row matches', async () => {
    const { url, hits } = await secretServer()
    const { filter } = await relayWith('workers: 1', rule(url))
    const res = await filter({ user: 'bob' })
    // OPA's compile API evaluates without strict built-in errors: the refused call is undefined,
    // so no row can match and the answer has no result (a refusal, not an error).
    expect([res.status, JSON.parse(res.text)]).toEqual([200, {}])
    expect(res.text).not.toContain(SECRET)
    expect(hits()).toBe(0)
  })

  it('refuses net.lookup_ip_addr for a name not in the list (no row matches)', async () => {
    const { filter } = await relayWith(
      'workers: 1',
      'include if input.tickets.ip in net.lookup_ip_addr("localhost")',
    )
    const res = await filter({ user: 'bob' })
    expect([res.status, JSON.parse(res.text)]).toEqual([200, {}])
  })

  it('lets http.send reach a host in relay.compile.allow_net', async () => {
    const { url, hits } = await secretServer()
    const { filter } = await relayWith('workers: 1\nallow_net: ["127.0.0.1"]', rule(url))
    const res = await filter({ user: 'bob' })
    expect(JSON.parse(res.text)).toEqual({ result: { query: `WHERE tickets.owner = E'${SECRET}'` } })
    expect(hits()).toBe(1)
  })
})
