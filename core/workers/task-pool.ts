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
 *
 * With `pipeline` above 1, a busy worker is also sent up to `pipeline - 1` waiting tasks, which it
 * starts as soon as it answers the one before, instead of idling for the answer's round trip to
 * this thread and the next task's way back (a third of a compile worker's time on a small request,
 * docs/performance.md). They still count against `queue`; a worker that dies or is stopped gives
 * the tasks it had not answered back to the front of the queue, all but the one it was running.
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
  /** Tasks that may wait for a free worker, in the pool or sent ahead to a busy one (0: none wait). */
  queue: number
  /** Tasks a worker holds at once: the one it runs and those sent ahead (default 1: none ahead). */
  pipeline?: number
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
  /** Tasks sent to the worker and not answered, oldest first: the first one is running. */
  sent: Waiting<Task, Result>[]
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
    const free = this.#slots.find((s) => s.sent.length === 0 && usable(s))
    const waitingCount = this.#waiting()
    if (!free && waitingCount >= this.#options.queue) {
      this.#stats.refused++
      return Promise.reject(new PoolFullError(waitingCount))
    }
    return new Promise<Result>((resolve, reject) => {
      const waiting: Waiting<Task, Result> = { id: this.#nextId++, task, deadline, resolve, reject }
      const slot = free ?? this.#ahead()
      if (slot) {
        this.#dispatch(slot, waiting)
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
      busy: this.#slots.filter((s) => s.sent.length > 0).length,
      queued: this.#waiting(),
      ...this.#stats,
    }
  }

  /** Tasks waiting: in the queue, and sent ahead to a worker that runs another. */
  #waiting(): number {
    let n = this.#queue.length
    for (const slot of this.#slots) n += Math.max(0, slot.sent.length - 1)
    return n
  }

  /** A busy worker that may be sent one more task ahead (the one holding fewest), if any. */
  #ahead(): Slot<Task, Result> | undefined {
    const depth = this.#options.pipeline ?? 1
    let best: Slot<Task, Result> | undefined
    for (const slot of this.#slots) {
      if (!usable(slot) || slot.sent.length >= depth) continue
      if (!best || slot.sent.length < best.sent.length) best = slot
    }
    return best
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
        for (const waiting of slot.sent.splice(0)) {
          clearTimeout(waiting.expiry)
          waiting.reject(new PoolClosedError())
        }
        return slot.worker.terminate()
      }),
    )
  }

  #dispatch(slot: Slot<Task, Result>, waiting: Waiting<Task, Result>): void {
    clearTimeout(waiting.expiry)
    waiting.expiry = undefined
    slot.sent.push(waiting)
    const message: ToWorker<State, Task> = {
      kind: 'task',
      id: waiting.id,
      deadline: waiting.deadline,
      task: waiting.task,
    }
    slot.worker.postMessage(message)
    if (slot.sent.length === 1) this.#watch(slot, waiting)
    else {
      // Sent ahead: it fails at its deadline as a queued task does, should the worker not start it.
      waiting.expiry = setTimeout(
        () => this.#expireAhead(slot, waiting),
        Math.max(0, waiting.deadline - Date.now()),
      )
      waiting.expiry.unref()
    }
  }

  /** Arms the timer that stops `slot`'s worker when `running` overstays its deadline. */
  #watch(slot: Slot<Task, Result>, running: Waiting<Task, Result>): void {
    clearTimeout(running.expiry)
    running.expiry = undefined
    const wait = Math.max(0, running.deadline - Date.now()) + this.#options.graceMs
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

  /** A task sent ahead whose deadline passed before its worker started it (its late answer is dropped). */
  #expireAhead(slot: Slot<Task, Result>, waiting: Waiting<Task, Result>): void {
    const at = slot.sent.indexOf(waiting)
    if (at < 1) return
    slot.sent.splice(at, 1)
    this.#stats.timedOut++
    waiting.reject(new TaskTimeoutError(true))
  }

  /** A queued task whose deadline passed before a worker freed up. */
  #expire(waiting: Waiting<Task, Result>): void {
    const at = this.#queue.indexOf(waiting)
    if (at < 0) return
    this.#queue.splice(at, 1)
    this.#stats.timedOut++
    waiting.reject(new TaskTimeoutError(true))
  }

  /** The worker has room again: send it the oldest waiting tasks (unless it is being stopped). */
  #next(slot: Slot<Task, Result>): void {
    const depth = Math.max(1, this.#options.pipeline ?? 1)
    while (usable(slot) && slot.sent.length < depth) {
      const waiting = this.#queue.shift()
      if (!waiting) return
      this.#dispatch(slot, waiting)
    }
  }

  #settle(slot: Slot<Task, Result>, id: number, settle: (w: Waiting<Task, Result>) => void): void {
    // Answers come in the order tasks were sent; one for a task that expired ahead is dropped.
    const running = slot.sent[0]
    if (!running || running.id !== id) return
    clearTimeout(slot.killer)
    slot.sent.shift()
    this.#deathsInARow = 0
    settle(running)
    const started = slot.sent[0]
    if (started) this.#watch(slot, started)
    this.#next(slot)
  }

  #spawn(): Slot<Task, Result> {
    const slot: Slot<Task, Result> = { worker: this.#options.start(), sent: [] }
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
      const [running, ...ahead] = slot.sent.splice(0)
      running?.reject(reason)
      // Tasks sent ahead never started: back to the front of the queue, in order, for the replacement.
      for (const waiting of ahead.reverse()) {
        clearTimeout(waiting.expiry)
        waiting.expiry = setTimeout(() => this.#expire(waiting), Math.max(0, waiting.deadline - Date.now()))
        waiting.expiry.unref()
        this.#queue.unshift(waiting)
      }
      const hadTask = running !== undefined
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

/** A worker that may be given tasks: alive and not being stopped. */
function usable(slot: { dead?: boolean; killedFor?: Error }): boolean {
  return !slot.dead && !slot.killedFor
}
