import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../core/config.js'
import { createApp } from '../../../core/http/index.js'
import { createLogger } from '../../../core/log.js'
import {
  DecisionLogs,
  decisionLogsSectionSchema,
  parseRetryAfter,
} from '../../../relay/decision-logs/index.js'
import { decisionId, gzipArray, makeEvents } from '../../support/logs-agent.js'
import { LogsUpstream } from '../../support/logs-upstream.js'

const logger = createLogger({ level: 'silent' })
let dir: string
let upstream: LogsUpstream
let logs: DecisionLogs | undefined
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-forwarder-'))
  upstream = await LogsUpstream.start()
})
afterEach(async () => {
  await logs?.stop()
  logs = undefined
  await upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

const FAST_RETRY = 'retry: {min_delay_ms: 10, max_delay_ms: 200, max_client_error_attempts: 3}'

function setup(yaml: string, registry = new Registry()) {
  const config = parseConfig(yaml, decisionLogsSectionSchema)
  logs = DecisionLogs.start({
    config,
    storageDir: dir,
    registry,
    logger,
    upstream: { url: upstream.logsUrl },
  })
  const app = createApp({ errorStyle: 'opa', logger })
  logs.installRoutes(app)
  const post = async (events: string[]) => {
    const res = await app.request('/v1/logs', {
      method: 'POST',
      body: gzipArray(events),
      headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
    })
    expect(res.status).toBe(204)
  }
  return { logs, post, registry }
}

describe('decision-log forwarder', () => {
  it('uploads in ingest order as OPA does, within the batch limit, and deletes only after 2xx', async () => {
    const { logs, post } = setup(`upload: {max_batch_bytes: 8192}\n${FAST_RETRY}`)
    const events = [...makeEvents('a', 0, 150), ...makeEvents('b', 0, 150)]
    await post(events.slice(0, 150))
    await post(events.slice(150))
    await upstream.waitFor(() => upstream.acceptedCount >= 300)
    expect(upstream.accepted()).toEqual(events)
    for (const r of upstream.requests) {
      expect(r.gzipBytes).toBeLessThanOrEqual(8192)
      expect(r.headers['content-type']).toBe('application/json')
      expect(r.headers['content-encoding']).toBe('gzip')
      expect(r.path).toBe('/logs')
    }
    expect(upstream.requests.length).toBeGreaterThan(3)
    await expect.poll(() => logs.buffer.stats().events).toBe(0)
    expect(logs.status().upload).toMatchObject({ uploaded_events: 300, failures: 0, dead_lettered_events: 0 })
    expect(logs.status().upload.last_successful_upload).not.toBeNull()
  })

  it('splits a batch the upstream refuses with 413 and delivers every event once, in order', async () => {
    await upstream.close()
    upstream = await LogsUpstream.start({ maxGzipBytes: 3000 })
    const { logs, post } = setup(`upload: {max_batch_bytes: 32768}\n${FAST_RETRY}`)
    const events = makeEvents('a', 0, 120)
    await post(events)
    await upstream.waitFor(() => upstream.acceptedCount >= 120)
    expect(upstream.accepted()).toEqual(events)
    expect(upstream.requests.some((r) => r.status === 413)).toBe(true)
    expect(logs.status().upload.dead_lettered_events).toBe(0)
    // The forwarder learned the upstream's limit: later batches fit without another 413.
    const before = upstream.requests.length
    const more = makeEvents('b', 0, 120)
    await post(more)
    await upstream.waitFor(() => upstream.acceptedCount >= 240)
    expect(upstream.accepted().slice(120)).toEqual(more)
    expect(upstream.requests.slice(before).filter((r) => r.status === 413)).toEqual([])
  })

  it('dead-letters a lone event larger than the upstream accepts, without blocking the rest', async () => {
    await upstream.close()
    upstream = await LogsUpstream.start({ maxGzipBytes: 2000 })
    const { logs, post } = setup(`upload: {max_batch_bytes: 1800}\n${FAST_RETRY}`)
    const huge = makeEvents('big', 0, 1, 200_000)
    const small = makeEvents('a', 0, 20)
    await post([...small.slice(0, 10), ...huge, ...small.slice(10)])
    await upstream.waitFor(() => upstream.acceptedCount >= 20)
    expect(upstream.accepted()).toEqual(small)
    await expect.poll(() => logs.buffer.stats().deadEvents).toBe(1)
    const [dead] = await logs.buffer.listDeadBatches()
    expect(dead).toMatchObject({ events: 1, status: 413 })
    expect(await logs.buffer.deadBatchEvents(dead!.id)).toEqual(huge)
  })

  it('honours Retry-After on 429 and 503 before trying again (capped by max_delay_ms)', async () => {
    const { post } = setup('retry: {min_delay_ms: 10, max_delay_ms: 5000}')
    upstream.answer(
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 503, headers: { 'retry-after': '1' } },
    )
    await post(makeEvents('a', 0, 3))
    await upstream.waitFor(() => upstream.acceptedCount >= 3, 10_000)
    const [first, second, third] = upstream.requests
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950)
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(950)
    expect(upstream.accepted()).toHaveLength(3)
  })

  it('retries 500s with backoff until delivered, and counts failures by status', async () => {
    const { logs, post, registry } = setup(`${FAST_RETRY}`)
    upstream.answer({ status: 500 }, { status: 500 }, { status: 502 })
    await post(makeEvents('a', 0, 3))
    await upstream.waitFor(() => upstream.acceptedCount >= 3)
    expect(upstream.requests.map((r) => r.status)).toEqual([500, 500, 502, 204])
    // The upstream records the request before the forwarder reads its answer.
    await expect
      .poll(() => logs.status().upload)
      .toMatchObject({ failures: 3, consecutive_failures: 0, uploaded_events: 3 })
    const text = await registry.metrics()
    expect(text).toMatch(/regent_decision_logs_upload_failures_total\{status="500"\} 2/)
    expect(text).toMatch(/regent_decision_logs_upload_failures_total\{status="502"\} 1/)
  })

  it('retries a 403 a bounded number of times, then dead-letters that batch and goes on', async () => {
    const { logs, post } = setup(`${FAST_RETRY}`)
    upstream.answer({ status: 403, body: '{"message":"bad"}' }, { status: 403 }, { status: 403 })
    const first = makeEvents('a', 0, 3)
    await post(first)
    await expect.poll(() => logs.buffer.stats().deadEvents).toBe(3)
    const next = makeEvents('a', 3, 2)
    await post(next)
    await upstream.waitFor(() => upstream.acceptedCount >= 2)
    expect(upstream.accepted()).toEqual(next)
    expect((await logs.buffer.listDeadBatches())[0]).toMatchObject({ status: 403, attempts: 3 })
    expect(logs.status().upload.dead_lettered_events).toBe(3)
    // Re-driven, the batch goes through once the upstream accepts it.
    await logs.buffer.redrive()
    await upstream.waitFor(() => upstream.acceptedCount >= 5)
    expect(upstream.accepted()).toEqual([...next, ...first])
  })

  it('bisects a batch refused with 400: every good event is delivered, each refused one dead-lettered alone with the reason', async () => {
    const { logs, post } = setup(`upload: {max_batch_bytes: 1048576}\n${FAST_RETRY}`)
    const events = makeEvents('a', 0, 200, 300)
    const refused = new Set([
      decisionId('a', 0),
      decisionId('a', 57),
      decisionId('a', 58),
      decisionId('a', 199),
    ])
    upstream.refuseEvents((text) => {
      const id = (JSON.parse(text) as { decision_id: string }).decision_id
      return refused.has(id) ? `decision ${id} is not wanted here` : undefined
    })
    await post(events)
    await expect.poll(() => logs.buffer.stats().deadEvents).toBe(4)
    await expect.poll(() => logs.buffer.stats().events).toBe(0)
    const good = events.filter((e) => !refused.has((JSON.parse(e) as { decision_id: string }).decision_id))
    expect(upstream.accepted()).toEqual(good)
    // One dead batch per refused event, oldest last, each with the upstream's own reason.
    const dead = await logs.buffer.listDeadBatches()
    expect(dead.map((d) => [d.events, d.status, d.attempts])).toEqual(Array(4).fill([1, 400, 1]))
    expect(dead.map((d) => d.reason).reverse()).toEqual(
      [0, 57, 58, 199].map(
        (i) => `upstream answered 400: event 0: decision ${decisionId('a', i)} is not wanted here`,
      ),
    )
    expect(logs.status().upload.dead_lettered_events).toBe(4)
    // Redrive event by event: one dead event goes back; once the upstream takes it, only it is sent.
    refused.delete(decisionId('a', 57))
    const sent = upstream.requests.length
    await logs.buffer.redrive([dead.find((d) => d.reason.includes(decisionId('a', 57)))!.id])
    await upstream.waitFor(() => upstream.acceptedCount >= good.length + 1)
    expect(upstream.accepted().slice(good.length)).toEqual([events[57]])
    expect(upstream.requests.length).toBe(sent + 1)
    expect(logs.buffer.stats().deadEvents).toBe(3)
  })

  it('times out an upstream that never answers and retries', async () => {
    const { post, logs } = setup(`upload: {timeout_ms: 300}\n${FAST_RETRY}`)
    upstream.answer('hang')
    const started = Date.now()
    await post(makeEvents('a', 0, 2))
    await upstream.waitFor(() => upstream.acceptedCount >= 2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(280)
    expect(upstream.requests[0]!.status).toBe('hang')
    expect(logs.status().upload.last_error).toMatchObject({ status: 'timeout' })
  })

  it('stops within the drain time when the upstream is down, keeping the events on disk', async () => {
    const { logs, post } = setup(`upload: {drain_timeout_ms: 300}\n${FAST_RETRY}`)
    upstream.answerByDefault({ status: 500 })
    await post(makeEvents('a', 0, 4))
    await upstream.waitFor(() => upstream.requests.length >= 2)
    const started = Date.now()
    await logs.stop()
    expect(Date.now() - started).toBeLessThan(2000)
    const again = DecisionLogs.start({
      config: parseConfig('{}', decisionLogsSectionSchema),
      storageDir: dir,
      registry: new Registry(),
      logger,
    })
    expect(again.buffer.stats().events).toBe(4)
    await again.stop()
  })

  it('uploads what is buffered before closing on a graceful stop', async () => {
    const { logs, post } = setup(`${FAST_RETRY}`)
    upstream.answer({ status: 500 })
    await post(makeEvents('a', 0, 5))
    await logs.stop()
    expect(upstream.accepted()).toHaveLength(5)
  })

  it('delivers on stop what arrived while a batch was in flight (the prefetched claim was empty)', async () => {
    await upstream.close()
    upstream = await LogsUpstream.start({ delayMs: 300 })
    const { logs, post } = setup(`${FAST_RETRY}`)
    const first = makeEvents('a', 0, 1)
    const second = makeEvents('b', 0, 1)
    await post(first)
    // The first upload is held by the upstream; the forwarder's look-ahead claim found nothing.
    await upstream.waitFor(() => upstream.requests.length >= 1)
    await post(second)
    await logs.stop()
    expect(upstream.accepted()).toEqual([...first, ...second])
  })
})

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores garbage', () => {
    expect(parseRetryAfter('3')).toBe(3000)
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000)
    expect(parseRetryAfter('soon')).toBeUndefined()
    expect(parseRetryAfter(undefined)).toBeUndefined()
  })
})
