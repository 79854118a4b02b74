/**
 * The relay's decision-log threads run on demand (issue 25: a sidecar's idle memory): the buffer
 * thread opens with the first upload when the file is absent or empty, a file holding events is
 * opened and forwarded at start, and parse workers start only when uploads overlap.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../core/config.js'
import { createApp } from '../../../core/http/index.js'
import { createLogger } from '../../../core/log.js'
import { DecisionLogs, decisionLogsSectionSchema } from '../../../relay/decision-logs/index.js'
import { gzipArray, makeEvents } from '../../support/logs-agent.js'
import { LogsUpstream } from '../../support/logs-upstream.js'

const logger = createLogger({ level: 'silent' })
let dir: string
let upstream: LogsUpstream
const running: DecisionLogs[] = []

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-on-demand-'))
  upstream = await LogsUpstream.start()
})
afterEach(async () => {
  for (const logs of running.splice(0)) await logs.stop()
  await upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

function start(yaml = '', withUpstream = true, idleCloseMs?: number) {
  const logs = DecisionLogs.start({
    idleCloseMs,
    config: parseConfig(yaml, decisionLogsSectionSchema),
    storageDir: dir,
    registry: new Registry(),
    logger,
    upstream: withUpstream ? { url: upstream.logsUrl } : undefined,
  })
  running.push(logs)
  const app = createApp({ errorStyle: 'opa', logger })
  logs.installRoutes(app)
  const post = (events: string[]) =>
    app.request('/v1/logs', {
      method: 'POST',
      body: gzipArray(events),
      headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
    })
  return { logs, post }
}

const file = () => join(dir, 'decision-logs.db')

describe('decision-log threads on demand', () => {
  it('creates the buffer with the first upload, stores it before answering, and forwards it', async () => {
    const { logs, post } = start()
    expect(logs.bufferOpen).toBe(false)
    expect(existsSync(file())).toBe(false)
    expect(logs.status()).toMatchObject({
      buffer: { events: 0, dead_letter: { events: 0 } },
      intake: { parse_workers: 0 },
      upload: { state: 'idle' },
    })
    expect(logs.failure).toBeUndefined()
    expect(existsSync(file())).toBe(false)
    const events = makeEvents('a', 0, 5)
    expect((await post(events)).status).toBe(204)
    expect(existsSync(file())).toBe(true)
    await upstream.waitFor(() => upstream.acceptedCount === 5)
    expect(upstream.accepted()).toEqual(events)
  })

  it('opens the buffer once for uploads that arrive together, and stores each', async () => {
    const { logs, post } = start('', false)
    const bodies = Array.from({ length: 6 }, (_, k) => makeEvents(`f${k}`, 0, 3))
    const answers = await Promise.all(bodies.map((b) => post(b)))
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(204))
    expect(logs.buffer.stats().events).toBe(18)
    expect([...(await logs.buffer.peek(100))].sort()).toEqual(bodies.flat().sort())
  })

  it('opens a buffer holding events at start and forwards them without any upload', async () => {
    const first = start('', false)
    const events = makeEvents('b', 0, 7)
    expect((await first.post(events)).status).toBe(204)
    await first.logs.stop()
    start()
    await upstream.waitFor(() => upstream.acceptedCount === 7)
    expect(upstream.accepted()).toEqual(events)
  })

  it('closes an empty buffer found at start, and a later upload opens it again', async () => {
    const first = start()
    expect((await first.post(makeEvents('c', 0, 3))).status).toBe(204)
    await upstream.waitFor(() => upstream.acceptedCount === 3)
    await first.logs.stop()
    const { logs, post } = start()
    expect(logs.bufferOpen).toBe(false)
    expect(logs.status().buffer.events).toBe(0)
    const more = makeEvents('c', 3, 4)
    expect((await post(more)).status).toBe(204)
    await upstream.waitFor(() => upstream.acceptedCount === 7)
    expect(upstream.accepted().slice(3)).toEqual(more)
  })

  it('closes the thread of an empty buffer after a quiet time, and the next upload opens it again', async () => {
    const { logs, post } = start('', true, 100)
    expect(logs.bufferOpen).toBe(false)
    expect((await post(makeEvents('e', 0, 3))).status).toBe(204)
    expect(logs.bufferOpen).toBe(true)
    await upstream.waitFor(() => upstream.acceptedCount === 3)
    await expect.poll(() => logs.bufferOpen, { timeout: 10_000 }).toBe(false)
    const more = makeEvents('e', 3, 2)
    expect((await post(more)).status).toBe(204)
    await upstream.waitFor(() => upstream.acceptedCount === 5)
    expect(upstream.accepted()).toEqual([...makeEvents('e', 0, 3), ...more])
  })

  it('starts a parse worker when uploads overlap, storing the same events', async () => {
    const { logs, post } = start('intake: {parse_workers: 1}', false)
    expect((await post(makeEvents('d', 0, 2))).status).toBe(204)
    expect(logs.status().intake.parse_workers).toBe(0)
    const bodies = Array.from({ length: 8 }, (_, k) => makeEvents(`d${k}`, 0, 10))
    const answers = await Promise.all(bodies.map((b) => post(b)))
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(204))
    expect(logs.status().intake.parse_workers).toBe(1)
    expect(logs.buffer.stats().events).toBe(82)
    expect([...(await logs.buffer.peek(100))].sort()).toEqual(
      [...makeEvents('d', 0, 2), ...bodies.flat()].sort(),
    )
  })
})
