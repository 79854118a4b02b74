import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { Registry } from 'prom-client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../core/config.js'
import { createApp } from '../../../core/http/index.js'
import { createLogger } from '../../../core/log.js'
import { DecisionLogs, decisionLogsSectionSchema } from '../../../relay/decision-logs/index.js'
import { bigReqId, gzipArray, makeEvents } from '../../support/logs-agent.js'

const logger = createLogger({ level: 'silent' })
let dir: string
let logs: DecisionLogs | undefined
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-intake-'))
})
afterEach(async () => {
  await logs?.stop()
  logs = undefined
  rmSync(dir, { recursive: true, force: true })
})

function setup(yaml = '', registry = new Registry()) {
  const config = parseConfig(yaml || '{}', decisionLogsSectionSchema)
  logs = DecisionLogs.start({ config, storageDir: join(dir, 'storage'), registry, logger })
  const app = createApp({ errorStyle: 'opa', logger })
  logs.installRoutes(app)
  const post = async (
    path: string,
    body: Buffer | string,
    headers: Record<string, string> = { 'content-encoding': 'gzip' },
  ): Promise<Response> =>
    await app.request(path, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    })
  return { app, logs, post, registry }
}

describe('decision-log intake', () => {
  it('answers 204 after storing each event byte for byte, gzip or identity, with or without a partition', async () => {
    const { post, logs } = setup()
    const events = makeEvents('agent-a', 0, 5)
    expect((await post('/v1/logs', gzipArray(events.slice(0, 3)))).status).toBe(204)
    expect((await post('/v1/logs/some/partition', `[${events.slice(3).join(',')}]`, {})).status).toBe(204)
    expect(await logs.buffer.peek(10)).toEqual(events)
    expect((await logs.buffer.peek(1))[0]).toContain(`"req_id":${bigReqId(0)}`)
    expect(logs.status().intake).toMatchObject({ requests: 2, events: 5, malformed_events: 0 })
  })

  it('serves configured paths and accepts an empty array', async () => {
    const { post, logs } = setup('intake: {paths: [/logs, /v1/logs]}')
    expect((await post('/logs/p1', gzipArray(makeEvents('a', 0, 1)))).status).toBe(204)
    expect((await post('/logs', gzipSync('[]'))).status).toBe(204)
    expect(logs.buffer.stats().events).toBe(1)
  })

  it('accepts events without decision_id or timestamp and counts them as malformed', async () => {
    const { post, logs, registry } = setup()
    const res = await post(
      '/v1/logs',
      gzipSync('[{"decision_id":"x"},{"result":true},{"decision_id":"y","timestamp":"t"}]'),
    )
    expect(res.status).toBe(204)
    expect(logs.buffer.stats().events).toBe(3)
    expect(logs.status().intake.malformed_events).toBe(2)
    expect(await registry.metrics()).toMatch(/regent_decision_logs_malformed_events_total 2/)
  })

  it.each([
    ['not gzip', Buffer.from('[{}]'), { 'content-encoding': 'gzip' }, /not valid gzip/],
    [
      'not JSON',
      gzipSync('[{"a": nope}]'),
      undefined,
      /not a JSON array of decision events: event 0, field a: expected a JSON value/,
    ],
    ['not an array', gzipSync('{"decision_id":"a"}'), undefined, /expected a JSON array/],
    ['an array of non-objects', gzipSync('[{"a":1}, "b"]'), undefined, /event 1 is not a JSON object/],
    [
      'invalid UTF-8',
      Buffer.from([0x5b, 0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d, 0x5d]),
      {},
      /not valid UTF-8/,
    ],
    [
      'a gzip bomb',
      gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20), { level: 1 }),
      undefined,
      /inflates to more than/,
    ],
  ])('refuses %s with 400 and stores nothing', async (_what, body, headers, reason) => {
    const { post, logs } = setup()
    const res = await post('/v1/logs', body, headers)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { message: string }).message).toMatch(reason)
    expect(logs.buffer.stats().events).toBe(0)
    expect(logs.status().intake.rejected_requests).toBe(1)
  })

  it.each([
    ['on a parse worker', 'intake: {parse_workers: 1}'],
    ['on the buffer thread', 'intake: {parse_workers: 0}'],
  ])(
    'refuses a batch holding one invalid event with 400 naming it, and stores nothing (%s)',
    async (_where, config) => {
      const { post, logs } = setup(config)
      const good = makeEvents('a', 0, 5)
      const cases: Array<[string, RegExp]> = [
        [
          '{"decision_id":42,"timestamp":"t"}',
          /event 2, field decision_id: decision_id must be a non-empty string of at most 256 characters \(got a number\)/,
        ],
        ['{"decision_id":"","timestamp":"t"}', /event 2, field decision_id: .*got an empty string/],
        [`{"decision_id":"${'d'.repeat(257)}"}`, /event 2, field decision_id: .*got 257 characters/],
        ['{"decision_id":"x","input":{"a":1,"a":2}}', /event 2, field input\.a: duplicate key "a"/],
      ]
      for (const [bad, reason] of cases) {
        const body = gzipSync(`[${good.slice(0, 2).join(',')},${bad},${good.slice(2).join(',')}]`)
        const res = await post('/v1/logs', body, undefined)
        expect(res.status).toBe(400)
        expect(((await res.json()) as { message: string }).message).toMatch(reason)
      }
      expect(logs.buffer.stats().events).toBe(0)
      expect(logs.status().intake.rejected_requests).toBe(cases.length)
    },
  )

  it('refuses bodies past the wire limit with 413', async () => {
    const { post, logs } = setup('intake: {max_body_bytes: 1000}')
    const res = await post('/v1/logs', `[${makeEvents('a', 0, 3).join(',')}]`, {})
    expect(res.status).toBe(413)
    expect(logs.buffer.stats().events).toBe(0)
  })

  it('answers 503 with Retry-After when the buffer is full under backpressure, and keeps what it has', async () => {
    const { post, logs } = setup('buffer: {max_bytes: 5000, retry_after_seconds: 7}')
    const events = makeEvents('a', 0, 7)
    expect((await post('/v1/logs', gzipArray(events.slice(0, 4)))).status).toBe(204)
    const refused = await post('/v1/logs', gzipArray(events.slice(4)))
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('7')
    expect(await logs.buffer.peek(10)).toEqual(events.slice(0, 4))
    // One request larger than the whole buffer can never fit: 413 rather than a retry loop.
    expect((await post('/v1/logs', gzipArray(makeEvents('a', 10, 6)))).status).toBe(413)
  })

  it('answers 503 while another process holds the database lock past the busy timeout', async () => {
    const { post, logs } = setup('buffer: {busy_timeout_ms: 20}')
    const other = new Database(join(dir, 'storage', 'decision-logs.db'))
    other.prepare('BEGIN IMMEDIATE').run()
    const res = await post('/v1/logs', gzipArray(makeEvents('a', 0, 2)))
    other.prepare('ROLLBACK').run()
    other.close()
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(logs.buffer.stats().events).toBe(0)
    expect((await post('/v1/logs', gzipArray(makeEvents('a', 0, 2)))).status).toBe(204)
  })

  it('commits concurrent requests together and answers each', async () => {
    const { post, logs } = setup()
    const bodies = Array.from({ length: 20 }, (_, k) => gzipArray(makeEvents(`agent-${k}`, 0, 10)))
    const statuses = await Promise.all(bodies.map((b) => post('/v1/logs', b).then((r) => r.status)))
    expect(statuses.every((s) => s === 204)).toBe(true)
    expect(logs.buffer.stats().events).toBe(200)
  })

  it('refuses new uploads with 503 once stopping, after committing what was accepted', async () => {
    const { post, logs } = setup()
    const accepted = post('/v1/logs', gzipArray(makeEvents('a', 0, 3)))
    await new Promise((r) => setImmediate(r))
    const stopping = logs.stop()
    const late = await post('/v1/logs', gzipArray(makeEvents('a', 3, 1)))
    expect(late.status).toBe(503)
    await stopping
    expect((await accepted).status).toBe(204)
    const reopened = DecisionLogs.start({
      config: parseConfig('{}', decisionLogsSectionSchema),
      storageDir: join(dir, 'storage'),
      registry: new Registry(),
      logger,
    })
    expect(reopened.buffer.stats().events).toBe(3)
    await reopened.stop()
  })
})
