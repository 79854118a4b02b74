/**
 * The relay's compile requests on worker threads (core/workers/task-pool.ts over compile-worker.ts),
 * so a runaway query never holds the thread that serves bundles, health and decision-log intake.
 * Maps the pool's refusals to OPA-shaped answers: a full queue is 503 with `Retry-After`; a request
 * past its deadline (waiting, or a worker the pool had to stop) and a worker that ran out of memory
 * are 500 `internal_error` with the evaluation error inside, as OPA answers a cancelled query.
 */
import type { Logger } from 'pino'
import { type CompileAnswer, type CompileRequest, failureAnswer } from '../../compile/answer.js'
import { budgetFailure, internalFailure } from '../../compile/errors.js'
import { HttpError, serviceUnavailable } from '../../core/http/index.js'
import { startModuleWorker } from '../../core/workers/start-worker.js'
import {
  PoolFullError,
  TaskPool,
  type TaskPoolStats,
  TaskTimeoutError,
  WorkerDiedError,
} from '../../core/workers/task-pool.js'
import { type CompileConfig, defaultCompileWorkers } from './config.js'
import type { LaneStats, MainThreadLane } from './main-thread-lane.js'
import type { CompileWorkerData, LoadReport, ServedState } from './protocol.js'

/** How long past its deadline a request may run before its worker is terminated. */
export const KILL_GRACE_MS = 1000
/** `Retry-After` (seconds) on a 503 for a full queue: workers free up within the deadline. */
const RETRY_AFTER_SECONDS = 1
/** A small young generation: evaluation makes short-lived garbage, the old generation holds the policy. */
const YOUNG_GENERATION_MB = 16
/**
 * Tasks a worker holds: the one it runs and one sent ahead, which it starts without waiting for
 * the round trip through the main thread (its answer, then the next task): on small requests
 * that round trip left the worker idle about a third of the time (docs/performance.md).
 */
const PIPELINE = 2

type Pool = TaskPool<ServedState, LoadReport, CompileRequest, CompileAnswer>

/**
 * Runs compile requests on worker threads under `relay.compile`'s limits. The workers start with
 * the first request: a relay whose compile endpoint is never used spends no memory on them.
 */
export class CompilePool {
  readonly #config: CompileConfig
  readonly #logger: Logger
  readonly #onLoaded: (report: LoadReport, generation: number) => void
  #pool: Pool | undefined
  #state: ServedState | undefined
  #closed = false
  /** `relay.compile.main_thread`: loaded with the first request (it holds a copy of the engine). */
  #lane: MainThreadLane | undefined
  #laneStarting = false

  constructor(
    config: CompileConfig,
    logger: Logger,
    onLoaded: (report: LoadReport, generation: number) => void,
  ) {
    this.#config = config
    this.#logger = logger
    this.#onLoaded = onLoaded
  }

  #started(): Pool {
    if (this.#pool) return this.#pool
    const config = this.#config
    const workerData: CompileWorkerData = {
      allowNet: config.allow_net,
      instructionLimit: config.instruction_limit,
    }
    this.#pool = new TaskPool({
      size: config.workers ?? defaultCompileWorkers(),
      queue: config.queue,
      pipeline: PIPELINE,
      graceMs: KILL_GRACE_MS,
      logger: this.#logger.child({ component: 'compile-pool' }),
      onStateApplied: this.#onLoaded,
      start: () =>
        startModuleWorker(import.meta.url, 'compile-worker', {
          workerData,
          resourceLimits: {
            maxOldGenerationSizeMb: config.max_heap_mb,
            maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
          },
        }),
    })
    if (this.#state) this.#pool.setState(this.#state)
    return this.#pool
  }

  /** Sends the served bundles to every worker (and to each replacement). */
  load(state: ServedState): void {
    this.#state = state
    this.#pool?.setState(state)
    void this.#lane?.load(state)
  }

  /**
   * Answers one request within `relay.compile.timeout_ms` of now; never throws. On the main thread
   * when the lane can (see main-thread-lane.ts), else on a worker.
   */
  async run(request: CompileRequest): Promise<CompileAnswer> {
    const deadline = Date.now() + this.#config.timeout_ms
    try {
      if (this.#closed)
        throw serviceUnavailable('the relay is shutting down; retry later', RETRY_AFTER_SECONDS)
      const attempt = await this.#startedLane()?.attempt(request)
      if (attempt && !attempt.unconfirmed) return attempt.answer
      const answer = await this.#started().run(request, deadline)
      if (attempt) this.#lane?.settle(attempt, answer)
      return answer
    } catch (err) {
      return this.#refusal(err)
    }
  }

  /** The lane once loaded; the first call starts loading it (the requests meanwhile go to workers). */
  #startedLane(): MainThreadLane | undefined {
    if (this.#lane || this.#laneStarting || !this.#config.main_thread) return this.#lane
    this.#laneStarting = true
    import('./main-thread-lane.js').then(
      ({ MainThreadLane }) => {
        const lane = new MainThreadLane({
          instructionLimit: this.#config.instruction_limit,
          timeoutMs: this.#config.timeout_ms,
        })
        if (this.#state) void lane.load(this.#state)
        this.#lane = lane
      },
      (err: unknown) => this.#logger.warn({ err }, 'compile on the main thread unavailable; workers answer'),
    )
    return undefined
  }

  /** What the main thread answered (undefined until the lane has started or when it is off). */
  laneStats(): LaneStats | undefined {
    return this.#lane?.stats()
  }

  /** Workers, busy, queued, replaced (zeros until the first request). */
  stats(): TaskPoolStats {
    return this.#pool?.stats() ?? { workers: 0, busy: 0, queued: 0, replaced: 0, refused: 0, timedOut: 0 }
  }

  async close(): Promise<void> {
    this.#closed = true
    await this.#pool?.close()
  }

  #refusal(err: unknown): CompileAnswer {
    if (err instanceof PoolFullError) {
      const message = `every compile worker is busy and ${err.queue} requests are waiting (relay.compile.workers, relay.compile.queue); retry later`
      return failureAnswer(serviceUnavailable(message, RETRY_AFTER_SECONDS))
    }
    if (err instanceof TaskTimeoutError) {
      const where = err.whileQueued ? 'while waiting for a compile worker' : 'and its worker was stopped'
      const message = `query exceeded the deadline of ${this.#config.timeout_ms} ms (relay.compile.timeout_ms) ${where}`
      return failureAnswer(budgetFailure('eval_cancel_error', message))
    }
    if (err instanceof WorkerDiedError && err.outOfMemory) {
      const message = `query exceeded the memory of a compile worker (relay.compile.max_heap_mb: ${this.#config.max_heap_mb}); the worker was replaced`
      return failureAnswer(budgetFailure('eval_cancel_error', message))
    }
    if (err instanceof HttpError) return failureAnswer(err)
    const message = err instanceof Error ? err.message : String(err)
    return { ...failureAnswer(internalFailure('compile worker failed')), serverError: message }
  }
}
