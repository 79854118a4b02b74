/**
 * A pool of worker threads for CPU-bound tasks that must never hold the main thread (the relay's
 * compile requests): each worker runs one task at a time, tasks beyond the free workers wait in a
 * bounded queue (past it `run` refuses at once with PoolFullError), and every task has a deadline.
 * A task still running past its deadline plus a grace period (the code in the worker ignored the
 * deadline, or one allocation took all the time) has its worker terminated and replaced; so has a
 * worker that dies on its own, e.g. at its heap limit (`resourceLimits` given by `start`): only that
 * task fails, and the pool keeps its size.
 *
 * Workers also hold state (the policies tasks run against): `setState` sends it to every worker and
 * to each replacement before any task, so a task never runs against older state than was set
 * before it was submitted.
 */
import type { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { FromWorker, ToWorker } from './protocol.js'

/** Every worker is busy and the queue is full. */
export class PoolFullError extends Error {
  constructor(readonly queue: number) {
    super(`all workers are busy and ${queue} requests are waiting`)
    this.name = 'PoolFullError'
  }
}

/** The task's deadline passed, while it waited for a worker or while it ran (the worker was replaced). */
export class TaskTimeoutError extends Error {
  constructor(readonly whileQueued: boolean) {
    super(
      whileQueued ? 'deadline passed while waiting for a worker' : 'deadline passed; the worker was stopped',
    )
    this.name = 'TaskTimeoutError'
  }
}

/** The worker died while running the task (e.g. it reached its heap limit). */
export class WorkerDiedError extends Error {
  constructor(
    message: string,
    /** True when the worker ran out of memory (its `resourceLimits`). */
    readonly outOfMemory: boolean,
  ) {
    super(message)
    this.name = 'WorkerDiedError'
  }
}

/** The task threw inside the worker (its handler's error message). */
export class TaskFailedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TaskFailedError'
  }
}

/** The pool was closed. */
export class PoolClosedError extends Error {
  constructor() {
    super('the worker pool is closed')
    this.name = 'PoolClosedError'
  }
}

/** Options of {@link TaskPool}. */
export interface TaskPoolOptions<Applied> {
  /** Workers (at least 1). */
  size: number
  /** Tasks that may wait for a free worker (0: none wait). */
  queue: number
  /** Starts one worker, with its resource limits (see start-worker.ts). */
  start: () => Worker
  /** How long past its deadline a running task may go before its worker is terminated. */
  graceMs: number
  logger: Logger
  /** Receives each worker's answer to `setState` (the first of each generation is usually enough). */
  onStateApplied?: (applied: Applied, generation: number) => void
}

interface Waiting<Task, Result> {
  id: number
  task: Task
  deadline: number
  resolve: (result: Result) => void
  reject: (err: Error) => void
  /** Set while queued: rejects the task when its deadline passes before a worker frees up. */
  expiry?: NodeJS.Timeout
}

interface Slot<Task, Result> {
  worker: Worker
  running: Waiting<Task, Result> | undefined
  /** Terminates the worker when the running task overstays its deadline. */
  killer?: NodeJS.Timeout
  /** Why the pool terminated this worker (the running task gets this error). */
  killedFor?: Error
  /** The worker has exited; its replacement may still be pending. */
  dead?: boolean
}

/** Counters for status and metrics. */
export interface TaskPoolStats {
  workers: number
  busy: number
  queued: number
  /** Workers replaced since start (deaths and terminations). */
  replaced: number
  /** Tasks refused because the queue was full. */
  refused: number
  /** Tasks that passed their deadline. */
  timedOut: number
}

/** A bounded pool of task workers (see the file comment). */
export class TaskPool<State, Applied, Task, Result> {
  readonly #options: TaskPoolOptions<Applied>
  readonly #slots: Slot<Task, Result>[] = []
  readonly #queue: Waiting<Task, Result>[] = []
  #state: { generation: number; state: State } | undefined
  #nextId = 1
  #closed = false
  /**
   * Workers that died while idle (failing to start, or to load the state) without a task answered
   * in between; respawns back off past a few. A death caused by a task restarts at once: each
   * needs a request of its own, and the queue bounds those.
   */
  #deathsInARow = 0
  readonly #stats = { replaced: 0, refused: 0, timedOut: 0 }

  constructor(options: TaskPoolOptions<Applied>) {
    this.#options = options
    for (let i = 0; i < Math.max(1, options.size); i++) this.#slots.push(this.#spawn())
  }

  /**
   * Runs `task` on a free worker, or queues it; rejects with PoolFullError when the queue is full,
   * TaskTimeoutError past `deadline` (ms since the epoch), WorkerDiedError, TaskFailedError.
   */
  run(task: Task, deadline: number): Promise<Result> {
    if (this.#closed) return Promise.reject(new PoolClosedError())
    const free = this.#slots.find((s) => s.running === undefined && !s.dead && !s.killedFor)
    if (!free && this.#queue.length >= this.#options.queue) {
      this.#stats.refused++
      return Promise.reject(new PoolFullError(this.#queue.length))
    }
    return new Promise<Result>((resolve, reject) => {
      const waiting: Waiting<Task, Result> = { id: this.#nextId++, task, deadline, resolve, reject }
      if (free) {
        this.#dispatch(free, waiting)
        return
      }
      waiting.expiry = setTimeout(() => this.#expire(waiting), Math.max(0, deadline - Date.now()))
      waiting.expiry.unref()
      this.#queue.push(waiting)
    })
  }

  /** Sends `state` to every worker now and to every worker started later. */
  setState(state: State): void {
    const generation = (this.#state?.generation ?? 0) + 1
    this.#state = { generation, state }
    const message: ToWorker<State, Task> = { kind: 'state', generation, state }
    for (const slot of this.#slots) slot.worker.postMessage(message)
  }

  stats(): TaskPoolStats {
    return {
      workers: this.#closed ? 0 : this.#slots.length,
      busy: this.#slots.filter((s) => s.running).length,
      queued: this.#queue.length,
      ...this.#stats,
    }
  }

  /** Terminates the workers; waiting and running tasks fail with PoolClosedError. */
  async close(): Promise<void> {
    this.#closed = true
    for (const waiting of this.#queue.splice(0)) {
      clearTimeout(waiting.expiry)
      waiting.reject(new PoolClosedError())
    }
    await Promise.all(
      this.#slots.map((slot) => {
        clearTimeout(slot.killer)
        slot.running?.reject(new PoolClosedError())
        slot.running = undefined
        return slot.worker.terminate()
      }),
    )
  }

  #dispatch(slot: Slot<Task, Result>, waiting: Waiting<Task, Result>): void {
    clearTimeout(waiting.expiry)
    slot.running = waiting
    const message: ToWorker<State, Task> = {
      kind: 'task',
      id: waiting.id,
      deadline: waiting.deadline,
      task: waiting.task,
    }
    slot.worker.postMessage(message)
    const wait = Math.max(0, waiting.deadline - Date.now()) + this.#options.graceMs
    slot.killer = setTimeout(() => {
      slot.killedFor = new TaskTimeoutError(false)
      this.#stats.timedOut++
      this.#options.logger.warn(
        { grace_ms: this.#options.graceMs },
        'task ran past its deadline; terminating its worker',
      )
      void slot.worker.terminate()
    }, wait)
    slot.killer.unref()
  }

  /** A queued task whose deadline passed before a worker freed up. */
  #expire(waiting: Waiting<Task, Result>): void {
    const at = this.#queue.indexOf(waiting)
    if (at < 0) return
    this.#queue.splice(at, 1)
    this.#stats.timedOut++
    waiting.reject(new TaskTimeoutError(true))
  }

  /** The worker is free again: give it the oldest waiting task (unless it is being stopped). */
  #next(slot: Slot<Task, Result>): void {
    if (slot.dead || slot.killedFor) return
    const waiting = this.#queue.shift()
    if (waiting) this.#dispatch(slot, waiting)
  }

  #settle(slot: Slot<Task, Result>, id: number, settle: (w: Waiting<Task, Result>) => void): void {
    const running = slot.running
    if (!running || running.id !== id) return
    clearTimeout(slot.killer)
    slot.running = undefined
    this.#deathsInARow = 0
    settle(running)
    this.#next(slot)
  }

  #spawn(): Slot<Task, Result> {
    const slot: Slot<Task, Result> = { worker: this.#options.start(), running: undefined }
    slot.worker.unref()
    if (this.#state) {
      const { generation, state } = this.#state
      slot.worker.postMessage({ kind: 'state', generation, state } satisfies ToWorker<State, Task>)
    }
    slot.worker.on('message', (message: FromWorker<Applied, Result>) => {
      if (message.kind === 'state-applied') {
        this.#options.onStateApplied?.(message.applied, message.generation)
      } else if (message.kind === 'result') {
        this.#settle(slot, message.id, (w) => w.resolve(message.result))
      } else {
        this.#settle(slot, message.id, (w) => w.reject(new TaskFailedError(message.message)))
      }
    })
    const died = (err: Error | undefined, code: number | undefined) => {
      if (slot.dead) return
      slot.dead = true
      clearTimeout(slot.killer)
      const outOfMemory = (err as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
      const reason =
        slot.killedFor ??
        new WorkerDiedError(
          outOfMemory
            ? 'the worker ran out of memory (its heap limit) and was replaced'
            : `the worker stopped (${err?.message ?? `exit code ${code}`}) and was replaced`,
          outOfMemory,
        )
      const hadTask = slot.running !== undefined
      slot.running?.reject(reason)
      slot.running = undefined
      if (this.#closed) return
      this.#replace(slot, reason, hadTask)
    }
    slot.worker.once('error', (err) => died(err, undefined))
    slot.worker.once('exit', (code) => died(undefined, code))
    return slot
  }

  /** Starts a worker in place of `slot`'s, at once, or after a pause when idle workers keep dying. */
  #replace(slot: Slot<Task, Result>, reason: Error, hadTask: boolean): void {
    this.#stats.replaced++
    const deaths = hadTask ? 0 : ++this.#deathsInARow
    const delay = deaths <= 3 ? 0 : Math.min(5000, 100 * 2 ** (deaths - 3))
    const level = slot.killedFor ? 'info' : 'warn'
    this.#options.logger[level]({ reason: reason.message, delay_ms: delay }, 'replacing a worker')
    const restart = () => {
      if (this.#closed) return
      const fresh = this.#spawn()
      this.#slots[this.#slots.indexOf(slot)] = fresh
      this.#next(fresh)
    }
    if (delay === 0) restart()
    else setTimeout(restart, delay).unref()
  }
}
