/**
 * Data evaluations on worker threads (core/workers/task-pool.ts over evaluation-worker.ts), so a
 * runaway query never holds the thread that serves the management API and bundles. Maps the
 * pool's refusals to the service's errors: a full queue is 503 with Retry-After; an evaluation past
 * its deadline or its worker's heap is 400 (the request asked for more than the budget allows),
 * naming the config key that sets the limit.
 */
import type { Logger } from 'pino'
import type { CompileAnswer } from '../../compile/answer.js'
import { badRequest, HttpError, internalError, serviceUnavailable } from '../../core/http/index.js'
import { startModuleWorker } from '../../core/workers/start-worker.js'
import { PoolFullError, TaskPool, TaskTimeoutError, WorkerDiedError } from '../../core/workers/task-pool.js'
import type { CompileTask, CompileTaskAnswer } from './compile-task.js'
import type { EvaluationConfig } from './config.js'
import type { EvaluationAnswer, EvaluationTask } from './evaluate-request.js'
import type { ReplayAnswer, ReplayTask } from './replay-task.js'
import type { WorkerAnswer, WorkerTask } from './worker-protocol.js'

/** How long past its deadline an evaluation may run before its worker is terminated. */
const KILL_GRACE_MS = 1000
const RETRY_AFTER_SECONDS = 1
const YOUNG_GENERATION_MB = 16

type Pool = TaskPool<null, null, WorkerTask, WorkerAnswer>

/** Successful answers; failures are thrown as HttpErrors. */
export type EvaluationSuccess = Extract<EvaluationAnswer, { ok: true }>

/** Runs data evaluations under `service.evaluation`'s limits; workers start with the first request. */
export class EvaluationPool {
  #pool: Pool | undefined
  #closed = false

  constructor(
    readonly config: EvaluationConfig,
    private readonly logger: Logger,
  ) {}

  #started(): Pool {
    this.#pool ??= new TaskPool({
      size: this.config.workers,
      queue: this.config.queue,
      graceMs: KILL_GRACE_MS,
      logger: this.logger.child({ component: 'evaluation-pool' }),
      start: () =>
        startModuleWorker(import.meta.url, 'evaluation-worker', {
          resourceLimits: {
            maxOldGenerationSizeMb: this.config.max_heap_mb,
            maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
          },
        }),
    })
    return this.#pool
  }

  /** Evaluates `task` within `service.evaluation.timeout_ms` of `startedAt`. */
  async run(task: EvaluationTask, startedAt = Date.now()): Promise<EvaluationSuccess> {
    return (await this.#call({ kind: 'data', task }, startedAt)) as EvaluationSuccess
  }

  /** Replays logged decisions (replay-task.ts) within the same deadline. */
  async replay(task: ReplayTask, startedAt = Date.now()): Promise<Extract<ReplayAnswer, { ok: true }>> {
    return (await this.#call({ kind: 'replay', task }, startedAt)) as Extract<ReplayAnswer, { ok: true }>
  }

  /** Answers a compile playground request (compile-task.ts) within the same deadline. */
  async compile(task: CompileTask, startedAt = Date.now()): Promise<CompileAnswer> {
    return ((await this.#call({ kind: 'compile', task }, startedAt)) as CompileTaskAnswer).answer
  }

  async #call(message: WorkerTask, startedAt: number): Promise<WorkerAnswer> {
    if (this.#closed)
      throw serviceUnavailable('the service is shutting down; retry later', RETRY_AFTER_SECONDS)
    let answer: WorkerAnswer
    try {
      answer = await this.#started().run(message, startedAt + this.config.timeout_ms)
    } catch (err) {
      throw this.#refusal(err)
    }
    if (!answer.ok) throw new HttpError(answer.status, answer.code, answer.message, answer.errors)
    return answer
  }

  async close(): Promise<void> {
    this.#closed = true
    await this.#pool?.close()
  }

  #refusal(err: unknown): HttpError {
    if (err instanceof PoolFullError)
      return serviceUnavailable(
        `every evaluation worker is busy and ${err.queue} requests are waiting (service.evaluation.workers, service.evaluation.queue); retry later`,
        RETRY_AFTER_SECONDS,
      )
    if (err instanceof TaskTimeoutError) {
      const where = err.whileQueued ? 'while waiting for an evaluation worker' : 'and its worker was stopped'
      return new HttpError(
        400,
        'eval_cancel_error',
        `evaluation exceeded the deadline of ${this.config.timeout_ms} ms (service.evaluation.timeout_ms) ${where}`,
      )
    }
    if (err instanceof WorkerDiedError && err.outOfMemory)
      return badRequest(
        `evaluation exceeded the memory of an evaluation worker (service.evaluation.max_heap_mb: ${this.config.max_heap_mb}); the worker was replaced`,
      )
    this.logger.error({ err }, 'evaluation worker failed')
    return internalError('evaluation failed inside the worker')
  }
}
