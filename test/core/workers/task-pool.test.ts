import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../../core/log.js'
import { startModuleWorker } from '../../../core/workers/start-worker.js'
import {
  PoolClosedError,
  PoolFullError,
  TaskFailedError,
  TaskPool,
  TaskTimeoutError,
  WorkerDiedError,
} from '../../../core/workers/task-pool.js'
import type { FixtureTask } from './fixture-worker.js'

const logger = createLogger({ level: 'silent' })
let pool: TaskPool<string, string, FixtureTask, string> | undefined

afterEach(async () => {
  await pool?.close()
  pool = undefined
})

function startPool(size: number, queue: number, applied: string[] = [], pipeline = 1) {
  pool = new TaskPool<string, string, FixtureTask, string>({
    size,
    queue,
    pipeline,
    graceMs: 200,
    logger,
    onStateApplied: (a) => applied.push(a),
    start: () =>
      startModuleWorker(import.meta.url, 'fixture-worker', {
        resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
      }),
  })
  return pool
}

const inSeconds = (s: number) => Date.now() + s * 1000

describe('TaskPool', () => {
  it('gives every task the state set before it, on every worker', async () => {
    const applied: string[] = []
    const p = startPool(2, 4, applied)
    p.setState('r1')
    expect(
      await Promise.all([p.run({ kind: 'state' }, inSeconds(30)), p.run({ kind: 'state' }, inSeconds(30))]),
    ).toEqual(['r1', 'r1'])
    p.setState('r2')
    expect(await p.run({ kind: 'state' }, inSeconds(30))).toBe('r2')
    // The idle worker applies r2 on its own time: the task above waited only for its own worker.
    for (const started = Date.now(); applied.length < 4 && Date.now() - started < 10_000; )
      await new Promise((r) => setTimeout(r, 10))
    expect(applied).toEqual(['applied r1', 'applied r1', 'applied r2', 'applied r2'])
  })

  it('refuses at once when every worker is busy and the queue is full', async () => {
    const p = startPool(1, 1)
    const running = p.run({ kind: 'wait', ms: 500 }, inSeconds(30))
    const waiting = p.run({ kind: 'wait', ms: 10 }, inSeconds(30))
    await expect(p.run({ kind: 'state' }, inSeconds(30))).rejects.toBeInstanceOf(PoolFullError)
    expect(p.stats()).toMatchObject({ workers: 1, busy: 1, queued: 1, refused: 1 })
    expect(await running).toBe('waited')
    expect(await waiting).toBe('waited')
  })

  it('terminates and replaces a worker whose task ignores its deadline; the next task runs', async () => {
    const p = startPool(1, 2)
    p.setState('r1')
    const spin = p.run({ kind: 'spin' }, Date.now() + 300)
    // Queued behind the spinning task; its own deadline is far off.
    const next = p.run({ kind: 'state' }, inSeconds(30))
    const err = await spin.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TaskTimeoutError)
    expect((err as TaskTimeoutError).whileQueued).toBe(false)
    // The replacement got the state before the queued task.
    expect(await next).toBe('r1')
    expect(p.stats()).toMatchObject({ workers: 1, replaced: 1, timedOut: 1 })
  })

  it('fails a queued task whose deadline passes before a worker frees up', async () => {
    const p = startPool(1, 2)
    const busy = p.run({ kind: 'wait', ms: 600 }, inSeconds(30))
    const err = await p.run({ kind: 'state' }, Date.now() + 100).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TaskTimeoutError)
    expect((err as TaskTimeoutError).whileQueued).toBe(true)
    expect(await busy).toBe('waited')
  })

  it('leaves a task that stops itself at its deadline to its worker (no replacement)', async () => {
    const p = startPool(1, 0)
    // Booted first, so that the deadline is not spent starting the worker.
    await p.run({ kind: 'state' }, inSeconds(30))
    expect(await p.run({ kind: 'spin-until-deadline' }, Date.now() + 200)).toBe('stopped at the deadline')
    expect(p.stats().replaced).toBe(0)
  })

  it('replaces a worker that runs out of memory; only its task fails', async () => {
    const p = startPool(1, 1)
    p.setState('r1')
    const err = await p.run({ kind: 'allocate' }, inSeconds(60)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(WorkerDiedError)
    expect((err as WorkerDiedError).outOfMemory).toBe(true)
    expect(await p.run({ kind: 'state' }, inSeconds(30))).toBe('r1')
    expect(p.stats()).toMatchObject({ workers: 1, replaced: 1 })
  })

  it('reports a task that throws without losing the worker', async () => {
    const p = startPool(1, 0)
    await expect(p.run({ kind: 'throw' }, inSeconds(30))).rejects.toEqual(
      new TaskFailedError('the task failed'),
    )
    expect(await p.run({ kind: 'state' }, inSeconds(30))).toBe('none')
    expect(p.stats().replaced).toBe(0)
  })

  it('fails waiting and running tasks when closed', async () => {
    const p = startPool(1, 1)
    const running = p.run({ kind: 'wait', ms: 5000 }, inSeconds(30)).catch((e: unknown) => e)
    const waiting = p.run({ kind: 'state' }, inSeconds(30)).catch((e: unknown) => e)
    await p.close()
    expect(await running).toBeInstanceOf(PoolClosedError)
    expect(await waiting).toBeInstanceOf(PoolClosedError)
    await expect(p.run({ kind: 'state' }, inSeconds(30))).rejects.toBeInstanceOf(PoolClosedError)
  })

  describe('with tasks sent ahead to a busy worker (pipeline 2)', () => {
    it('answers each task in order, counts those sent ahead as waiting, and bounds them by the queue', async () => {
      const p = startPool(1, 1, [], 2)
      p.setState('r1')
      const first = p.run({ kind: 'wait', ms: 300 }, inSeconds(30))
      const ahead = p.run({ kind: 'state' }, inSeconds(30))
      expect(p.stats()).toMatchObject({ workers: 1, busy: 1, queued: 1 })
      await expect(p.run({ kind: 'state' }, inSeconds(30))).rejects.toBeInstanceOf(PoolFullError)
      // State set after a task was sent ahead is not what that task sees; the next one sees it.
      p.setState('r2')
      const after = p.run({ kind: 'state' }, inSeconds(30)).catch((e: unknown) => e)
      expect(await first).toBe('waited')
      expect(await ahead).toBe('r1')
      expect(await after).toBeInstanceOf(PoolFullError)
      expect(await p.run({ kind: 'state' }, inSeconds(30))).toBe('r2')
      expect(p.stats()).toMatchObject({ busy: 0, queued: 0, refused: 2 })
    })

    it('gives the replacement of a stopped worker the task it had been sent ahead', async () => {
      const p = startPool(1, 2, [], 2)
      p.setState('r1')
      const spin = p.run({ kind: 'spin' }, Date.now() + 300)
      const ahead = p.run({ kind: 'state' }, inSeconds(30))
      expect(p.stats().queued).toBe(1)
      const err = await spin.catch((e: unknown) => e)
      expect(err).toBeInstanceOf(TaskTimeoutError)
      expect((err as TaskTimeoutError).whileQueued).toBe(false)
      expect(await ahead).toBe('r1')
      expect(p.stats()).toMatchObject({ workers: 1, replaced: 1, timedOut: 1, queued: 0 })
    })

    it('fails a task sent ahead whose deadline passes before its worker starts it; later answers still match', async () => {
      const p = startPool(1, 2, [], 2)
      p.setState('r1')
      const busy = p.run({ kind: 'wait', ms: 600 }, inSeconds(30))
      const err = await p.run({ kind: 'wait', ms: 1 }, Date.now() + 100).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(TaskTimeoutError)
      expect((err as TaskTimeoutError).whileQueued).toBe(true)
      // Sent ahead after the expired one: its answer comes after the expired task's late one.
      const next = p.run({ kind: 'state' }, inSeconds(30))
      expect(await busy).toBe('waited')
      expect(await next).toBe('r1')
      expect(p.stats()).toMatchObject({ replaced: 0, timedOut: 1, busy: 0 })
    })

    it('sends a new task to an idle worker before sending one ahead to a busy one', async () => {
      const p = startPool(2, 2, [], 2)
      p.setState('r1')
      const long = p.run({ kind: 'wait', ms: 5000 }, inSeconds(30)).catch((e: unknown) => e)
      // The second worker is idle: this task must not wait behind the long one.
      expect(await p.run({ kind: 'state' }, inSeconds(30))).toBe('r1')
      expect(p.stats()).toMatchObject({ busy: 1, queued: 0 })
      await p.close()
      expect(await long).toBeInstanceOf(PoolClosedError)
    })

    it('fails tasks sent ahead when closed', async () => {
      const p = startPool(1, 1, [], 2)
      const running = p.run({ kind: 'wait', ms: 5000 }, inSeconds(30)).catch((e: unknown) => e)
      const ahead = p.run({ kind: 'state' }, inSeconds(30)).catch((e: unknown) => e)
      expect(p.stats().queued).toBe(1)
      await p.close()
      expect(await running).toBeInstanceOf(PoolClosedError)
      expect(await ahead).toBeInstanceOf(PoolClosedError)
    })
  })
})
