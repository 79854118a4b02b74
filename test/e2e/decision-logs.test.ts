/**
 * Decision logs end to end: a real relay process (intake, SQLite buffer, forwarder) on
 * 127.0.0.1, agents posting as OPA does, and a real HTTP upstream that comes and goes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DecisionLogsStatus } from '../../relay/decision-logs/index.js'
import { decisionId, gzipArray, gzipChunks, makeEvents, postAll, postLogs } from '../support/logs-agent.js'
import { type StartedChild, startTsChild } from '../support/logs-child.js'
import { LogsUpstream } from '../support/logs-upstream.js'

const RELAY = 'test/support/decision-logs-relay.ts'
let dir: string
let relay: StartedChild<{ url: string }> | undefined
let upstream: LogsUpstream | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-e2e-logs-'))
})
afterEach(async () => {
  relay?.child.kill('SIGKILL')
  await relay?.exited
  relay = undefined
  await upstream?.close()
  upstream = undefined
  rmSync(dir, { recursive: true, force: true })
})

/** A free port for an upstream that is not running yet. */
async function reservePort(): Promise<number> {
  const probe = await LogsUpstream.start()
  await probe.close()
  return probe.port
}

async function startRelay(upstreamUrl: string, yaml = ''): Promise<StartedChild<{ url: string }>> {
  relay = await startTsChild<{ url: string }>(RELAY, [join(dir, 'storage'), upstreamUrl], {
    env: { REGENT_DECISION_LOGS: yaml },
  })
  return relay
}

async function relayStatus(url: string): Promise<DecisionLogsStatus> {
  const res = await request(`${url}/v1/relay/status`)
  return (await res.body.json()) as DecisionLogsStatus
}

const FAST_RETRY = 'retry: {min_delay_ms: 20, max_delay_ms: 300}'

describe('decision logs end to end', () => {
  it('holds 100,000 decisions while the upstream is down and delivers each exactly once, numbers intact', async () => {
    const port = await reservePort()
    const { ready } = await startRelay(`http://127.0.0.1:${port}/logs`, FAST_RETRY)
    const agents = ['agent-a', 'agent-b', 'agent-c', 'agent-d']
    const perAgent = 25_000
    const sent = new Map(agents.map((a) => [a, makeEvents(a, 0, perAgent, 500)]))
    // Each agent posts its chunks in order, as OPA does; the four run side by side.
    const refusals = await Promise.all(
      agents.map((a) => postAll(`${ready.url}/v1/logs`, gzipChunks(sent.get(a)!), 1)),
    )
    expect(refusals).toEqual([0, 0, 0, 0])
    const held = await relayStatus(ready.url)
    expect(held.buffer.events).toBe(100_000)
    expect(held.upload.failures).toBeGreaterThan(0)

    upstream = await LogsUpstream.start({ port })
    await upstream.waitFor(() => upstream!.acceptedCount >= 100_000, 60_000, '100,000 events upstream')
    const received = upstream.accepted()
    expect(received).toHaveLength(100_000)
    // Per agent: every event, once, in the order the agent sent them, byte for byte.
    for (const agent of agents) {
      expect(received.filter((t) => t.includes(`"id":"${agent}"`))).toEqual(sent.get(agent))
    }
    for (const r of upstream.requests) expect(r.gzipBytes).toBeLessThanOrEqual(32 * 1024)
    await expect.poll(async () => (await relayStatus(ready.url)).buffer.events, { timeout: 5000 }).toBe(0)
  }, 90_000)

  it('under backpressure answers 503 with Retry-After and keeps exactly what it accepted', async () => {
    const port = await reservePort()
    const { ready } = await startRelay(
      `http://127.0.0.1:${port}/logs`,
      `buffer: {max_bytes: 30000}\n${FAST_RETRY}`,
    )
    const events = makeEvents('agent-a', 0, 100, 1000)
    const accepted: string[] = []
    let refused = 0
    for (let i = 0; i < 100; i += 10) {
      const res = await postLogs(`${ready.url}/v1/logs`, gzipArray(events.slice(i, i + 10)))
      if (res.status === 204) accepted.push(...events.slice(i, i + 10))
      else {
        expect(res.status).toBe(503)
        expect(Number(res.retryAfter)).toBeGreaterThan(0)
        refused++
      }
    }
    expect(accepted.length).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
    const status = await relayStatus(ready.url)
    expect(status.buffer.events).toBe(accepted.length)
    expect(status.intake).toMatchObject({ rejected_requests: refused, dropped_events: 0 })
    upstream = await LogsUpstream.start({ port })
    await upstream.waitFor(() => upstream!.acceptedCount >= accepted.length, 15_000)
    expect(upstream.accepted()).toEqual(accepted)
  })

  it('with drop_oldest deletes exactly the oldest events it counts and delivers the rest', async () => {
    const port = await reservePort()
    const size = 1000
    const events = makeEvents('agent-a', 0, 80, size)
    const bytes = Buffer.byteLength(events[0]!)
    const { ready } = await startRelay(
      `http://127.0.0.1:${port}/logs`,
      `buffer: {max_bytes: ${bytes * 50}, overflow: drop_oldest}\n${FAST_RETRY}`,
    )
    for (let i = 0; i < 80; i += 10) {
      expect((await postLogs(`${ready.url}/v1/logs`, gzipArray(events.slice(i, i + 10)))).status).toBe(204)
    }
    const status = await relayStatus(ready.url)
    expect(status.intake.dropped_events).toBe(30)
    expect(status.buffer.events).toBe(50)
    upstream = await LogsUpstream.start({ port })
    await upstream.waitFor(() => upstream!.acceptedCount >= 50, 15_000)
    // The batch in flight when the drops happened (the oldest events, retried against the down
    // upstream) is never dropped; what is dropped is the 30 oldest events after it, contiguous.
    const delivered = upstream.accepted()
    expect(delivered).toHaveLength(50)
    let kept = 0
    while (delivered[kept] === events[kept]) kept++
    expect(kept).toBeGreaterThan(0)
    expect(delivered.slice(kept)).toEqual(events.slice(kept + 30))
  })

  it('refuses a gzip bomb, a non-array and non-JSON with 400 and stores nothing', async () => {
    const { ready } = await startRelay('http://127.0.0.1:9/logs')
    const url = `${ready.url}/v1/logs`
    const bomb = gzipSync(Buffer.alloc(70 * 1024 * 1024, 0x5b), { level: 1 })
    expect(bomb.length).toBeLessThan(1024 * 1024)
    const cases: Array<[Buffer | string, boolean, RegExp]> = [
      [bomb, true, /inflates to more than/],
      [gzipSync('{"decision_id":"a","timestamp":"t"}'), true, /expected a JSON array/],
      [gzipSync('decision_id=a'), true, /expected a JSON array/],
      ['[{"decision_id":"a",}]', false, /expected a string key/],
      [Buffer.from('not gzip at all'), true, /not valid gzip/],
    ]
    for (const [body, gzip, reason] of cases) {
      const res = await postLogs(url, body, { gzip })
      expect(res.status).toBe(400)
      expect((JSON.parse(res.body) as { message: string }).message).toMatch(reason)
    }
    const status = await relayStatus(ready.url)
    expect(status.buffer.events).toBe(0)
    expect(status.intake).toMatchObject({ requests: 5, rejected_requests: 5, events: 0 })
  })

  it('splits on 413, waits out 429, dead-letters a refused batch, bisects a 400, retries 500 and a hang, over real processes', async () => {
    upstream = await LogsUpstream.start({ maxGzipBytes: 6000 })
    upstream.answer(
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 500 },
      'hang',
      { status: 403 },
      { status: 403 },
    )
    // One event the upstream refuses (400): it alone is dead-lettered.
    upstream.refuseEvents((text) => (text.includes(decisionId('agent-a', 150)) ? 'not this one' : undefined))
    const { ready } = await startRelay(
      upstream.logsUrl,
      'upload: {timeout_ms: 400}\nretry: {min_delay_ms: 20, max_delay_ms: 2000, max_client_error_attempts: 2}',
    )
    const events = makeEvents('agent-a', 0, 200, 1000)
    const started = Date.now()
    expect((await postLogs(`${ready.url}/v1/logs`, gzipArray(events))).status).toBe(204)
    await expect
      .poll(async () => (await relayStatus(ready.url)).buffer.events, { timeout: 20_000, interval: 100 })
      .toBe(0)
    const status = await relayStatus(ready.url)
    const dead = status.buffer.dead_letter.events
    expect(dead).toBeGreaterThan(0)
    expect(status.upload.dead_lettered_events).toBe(dead)
    // Everything not dead-lettered arrived, once, in order; the 429 cost at least its Retry-After.
    const delivered = upstream.accepted()
    expect(delivered.length + dead).toBe(200)
    expect(events.filter((e) => delivered.includes(e))).toEqual(delivered)
    expect(upstream.requests.map((r) => r.status)).toEqual(
      expect.arrayContaining([413, 429, 500, 'hang', 403, 400]),
    )
    expect(delivered.join()).not.toContain(decisionId('agent-a', 150))
    const after429 = upstream.requests.findIndex((r) => r.status === 429)
    expect(upstream.requests[after429 + 1]!.at - upstream.requests[after429]!.at).toBeGreaterThanOrEqual(950)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1300)
  })
})
