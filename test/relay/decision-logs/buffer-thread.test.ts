import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Worker } from 'node:worker_threads'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { splitEventSpans } from '../../../core/decision-events/index.js'
import { createLogger } from '../../../core/log.js'
import { BufferThread } from '../../../plugins/logs/buffer-thread.js'
import { BufferOpenError, type DecisionBufferOptions } from '../../../store/decision-buffer/index.js'
import { makeEvents } from '../../support/logs-agent.js'

const logger = createLogger({ level: 'silent' })
let dir: string
let thread: BufferThread | undefined
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-buffer-thread-'))
})
afterEach(async () => {
  await thread?.close()
  thread = undefined
  rmSync(dir, { recursive: true, force: true })
})

const options = (path: string, extra: Partial<DecisionBufferOptions> = {}): DecisionBufferOptions => ({
  path,
  sync: 'normal',
  maxBytes: 1e9,
  overflow: 'backpressure',
  busyTimeoutMs: 200,
  deadLetterMaxEvents: 100,
  deadLetterMaxBytes: 1e6,
  ...extra,
})

const spans = (events: string[]) => splitEventSpans(`[${events.join(',')}]`)

describe('BufferThread', () => {
  it('fails to open synchronously with a BufferOpenError, as DecisionBuffer.open does', () => {
    expect(() => BufferThread.open(options(join(dir, 'missing', 'x.db')), logger)).toThrow(BufferOpenError)
  })

  it('commits appends on its thread and publishes its counters before answering', async () => {
    thread = BufferThread.open(options(join(dir, 'a.db')), logger)
    const events = makeEvents('a', 0, 5, 300)
    const answers = await Promise.all([
      thread.append(spans(events.slice(0, 2))),
      thread.append(spans(events.slice(2))),
    ])
    expect(answers.map((a) => a.ok && a.outcome.kind)).toEqual(['stored', 'stored'])
    expect(thread.stats()).toMatchObject({ events: 5, inFlightEvents: 0 })
    expect(await thread.peek(10)).toEqual(events)
    const batch = (await thread.claim(3, 1e9))!
    expect(batch.texts).toEqual(events.slice(0, 3))
    expect(thread.stats().inFlightEvents).toBe(3)
    const short = await thread.shrink(batch, 2)
    await thread.acknowledge(short)
    expect(thread.stats()).toMatchObject({ events: 3, inFlightEvents: 0 })
    expect(await thread.peek(10)).toEqual(events.slice(2))
  })

  it('parses raw bodies itself and refuses bad ones with the parser reason', async () => {
    thread = BufferThread.open(options(join(dir, 'b.db')), logger)
    const ok = await thread.appendRaw(Buffer.from(`[${makeEvents('b', 0, 2).join(',')}]`), 'identity', 1e6)
    expect(ok).toMatchObject({ ok: true, events: 2, malformed: 0 })
    expect(await thread.appendRaw(Buffer.from('[1]'), 'identity', 1e6)).toMatchObject({
      ok: false,
      status: 400,
    })
    expect(thread.stats().events).toBe(2)
  })

  it('reports a buffer thread that died as a failure and answers appends with a transient error', async () => {
    thread = BufferThread.open(options(join(dir, 'd.db')), logger)
    expect(thread.failure).toBeUndefined()
    // A crash of the thread, as an uncaught error or a native fault would end it.
    await (thread as unknown as { worker: Worker }).worker.terminate()
    await expect.poll(() => thread!.failure).toMatch(/buffer thread exited/)
    await expect(thread.append(spans(makeEvents('d', 0, 1)))).rejects.toMatchObject({
      code: 'SQLITE_CANTOPEN',
    })
  })

  it('answers with a transient error once closed, and keeps what it committed', async () => {
    const path = join(dir, 'c.db')
    thread = BufferThread.open(options(path), logger)
    await thread.append(spans(makeEvents('c', 0, 3)))
    await thread.close()
    await expect(thread.append(spans(makeEvents('c', 3, 1)))).rejects.toMatchObject({
      code: 'SQLITE_CANTOPEN',
    })
    thread = BufferThread.open(options(path), logger)
    expect(thread.stats().events).toBe(3)
  })
})
