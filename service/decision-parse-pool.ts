/**
 * Parses decision-log uploads on a worker thread (decision-parse-worker.ts), so the event loop
 * that answers HTTP and runs the inserts spends about 1 µs per event receiving the rows instead of
 * about 6 µs parsing them (splitter, JSON.parse, the timestamp; docs/performance.md, "Service
 * decision-log ingest"). The relay's intake does the same with its parse workers.
 *
 * A gzip upload goes to the worker as received and is inflated there too (`parseGzip`): on the
 * event loop, inflating took about as long as receiving the rows (zlib's callbacks, the UTF-8
 * check, copying the text to the worker).
 *
 * Small uploads (below OFF_THREAD_CHARS, or OFF_THREAD_GZIP_BYTES compressed) are parsed in place: a round trip to the worker costs
 * more than they do. Should the worker be unavailable (its queue full, dead, stopped), the upload
 * is parsed in place as well: the answer is the same either way, only where the CPU is spent
 * differs. Nothing here stores anything: rows are committed by the caller afterwards, and the
 * upload is answered after that commit, as before.
 */
import type { Logger } from 'pino'
import { HttpError, inflateBody, utf8Text } from '../core/http/index.js'
import { startModuleWorker } from '../core/workers/start-worker.js'
import { TaskPool } from '../core/workers/task-pool.js'
import type { NewDecision } from '../store/service/index.js'
import { type BatchContext, decisionsFromBatchYielding } from './decision-events.js'
import type { ParseAnswer, ParseTask } from './decision-parse-protocol.js'

/** Uploads of fewer characters are parsed in place (about 100 events of 600 bytes). */
export const OFF_THREAD_CHARS = 64 * 1024
/** Gzip uploads of fewer bytes are inflated and parsed in place (OPA's event logs inflate ~10×). */
export const OFF_THREAD_GZIP_BYTES = 8 * 1024

// Uploads waiting for the worker (sent ahead included); past it they are parsed in place.
const QUEUE = 8
// An upload's parse takes milliseconds; a minute means the worker is stuck, and it is replaced.
const DEADLINE_MS = 60_000
const KILL_GRACE_MS = 5_000
// An inflated upload is at most 64 MiB of text (service.limits); its rows take about as much again.
const WORKER_HEAP_MB = 1024

type Pool = TaskPool<null, null, ParseTask, ParseAnswer>

/** See the module comment. */
export class DecisionParsePool {
  #pool: Pool | undefined
  #closed = false
  /** Uploads parsed on the worker and in place (tests; a fallback is logged at debug level). */
  readonly counts = { offThread: 0, inPlace: 0 }

  constructor(
    private readonly logger: Logger,
    /** Uploads of fewer characters are parsed in place (tests lower it). */
    private readonly offThreadChars = OFF_THREAD_CHARS,
    /** Gzip uploads of fewer bytes are inflated and parsed in place (tests lower it). */
    private readonly offThreadGzipBytes = OFF_THREAD_GZIP_BYTES,
  ) {}

  /**
   * The rows of one upload, as decisionsFromBatch gives them.
   * @throws HttpError 400 for a malformed upload, 413 past `context.maxEvents`.
   */
  async parse(text: string, context: BatchContext): Promise<NewDecision[]> {
    if (this.#closed || text.length < this.offThreadChars) return this.#inPlace(text, context)
    return this.#offThread({ text, context }, () => this.#inPlace(text, context))
  }

  /**
   * The rows of one `Content-Encoding: gzip` upload as received, inflated up to `maxBytes`
   * (an unlabelled gzip inside inflated too), as readBodyText then decisionsFromBatch give them.
   * @throws HttpError 400 for a corrupt gzip, invalid UTF-8 or a malformed upload, 413 past
   * `maxBytes` or `context.maxEvents`.
   */
  async parseGzip(gzip: Buffer, maxBytes: number, context: BatchContext): Promise<NewDecision[]> {
    const inPlace = async () => {
      let bytes = await inflateBody(gzip, 'gzip', maxBytes)
      if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b)
        bytes = await inflateBody(bytes, 'gzip', maxBytes)
      return this.#inPlace(utf8Text(bytes), context)
    }
    if (this.#closed || gzip.length < this.offThreadGzipBytes) return inPlace()
    return this.#offThread({ gzip, maxBytes, context }, inPlace)
  }

  async #offThread(task: ParseTask, inPlace: () => Promise<NewDecision[]>): Promise<NewDecision[]> {
    let answer: ParseAnswer
    try {
      answer = await this.#started().run(task, Date.now() + DEADLINE_MS)
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'decision upload parsed in place')
      return inPlace()
    }
    this.counts.offThread++
    if (!answer.ok) throw new HttpError(answer.status, answer.code, answer.message)
    return answer.rows
  }

  #inPlace(text: string, context: BatchContext): Promise<NewDecision[]> {
    this.counts.inPlace++
    return decisionsFromBatchYielding(text, context)
  }

  /** Stops the worker (uploads still arriving are parsed in place). */
  async close(): Promise<void> {
    this.#closed = true
    await this.#pool?.close()
  }

  // Started on the first large upload: a service that receives no decision logs runs no worker.
  #started(): Pool {
    this.#pool ??= new TaskPool({
      size: 1,
      queue: QUEUE,
      // The next upload waits on the worker, not for this thread to hand it over.
      pipeline: 2,
      graceMs: KILL_GRACE_MS,
      logger: this.logger.child({ component: 'decision-parse-pool' }),
      start: () =>
        startModuleWorker(import.meta.url, 'decision-parse-worker', {
          resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        }),
    })
    return this.#pool
  }
}
