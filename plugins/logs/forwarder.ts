/**
 * The forwarder: uploads buffered events in ingest order, one batch at a time, and deletes them
 * only after the upstream's 2xx for their batch.
 *
 * It works as a pipeline of three stages on three threads, so none waits for the others: while
 * one batch is on the wire (main thread), the next is read from the buffer (buffer thread) and
 * compressed (libuv's pool), and the batches delivered before are deleted in one transaction
 * (ack-queue.ts). One upload is in flight at a time, so the upstream still receives batches in
 * ingest order, and a refused batch is split or retried before anything after it is sent.
 *
 * Batches are bounded by their gzip size (`upload.max_batch_bytes`); the raw size that fits is
 * estimated from the compression ratio seen so far and corrected by shrinking the claim when a
 * batch compresses larger than the limit. Per batch: network errors, timeouts, 5xx, 408 and 429
 * are retried with capped exponential backoff and jitter (p-retry), honouring `Retry-After`;
 * 413 splits the batch in halves; 400 (the upstream refuses some event of the batch) bisects it
 * until the refused events stand alone, so every other event is delivered and each refused one
 * is dead-lettered by itself with the upstream's reason; other 4xx are retried a bounded number
 * of times, then that part goes to the dead-letter table so it never blocks the rest.
 */
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import pRetry from 'p-retry'
import type { Logger } from 'pino'
import type { Batch } from '../../store/decision-buffer/index.js'
import { AckQueue } from './ack-queue.js'
import type { BufferThread } from './buffer-thread.js'
import { ClaimedBatch } from './claimed-batch.js'
import type { DecisionLogsConfig } from './config.js'
import type { DecisionLogMetrics } from './metrics.js'
import { postBatch, type UploadOutcome, type UpstreamTarget } from './upload.js'

const gzipAsync = promisify(gzip)

/** What the forwarder is doing, for `/v1/relay/status`. */
export interface ForwarderState {
  state: 'idle' | 'uploading' | 'backing_off' | 'draining' | 'stopped'
  consecutiveFailures: number
  lastError: { status: string; message: string; at: number } | null
}

class RetryableUploadError extends Error {
  constructor(readonly outcome: Extract<UploadOutcome, { kind: 'retry' | 'rejected' }>) {
    super(outcome.message)
    this.name = 'RetryableUploadError'
  }
}

type PartResult =
  | { kind: 'delivered' }
  | { kind: 'too_large' }
  /** 400: the upstream refuses something in the part; bisected down to single events. */
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'dead'; status: number; message: string; attempts: number }

/** A claimed batch and its gzip body. */
interface Prepared {
  batch: Batch
  gzipped: Buffer
}

/** The status that means "an event of this batch is invalid" (the service names which one). */
const EVENT_REFUSED = 400

/** Uploads the buffer's events to one upstream; `start()` once, `stop()` to drain and end. */
export class Forwarder {
  private readonly abort = new AbortController()
  private running: Promise<void> | undefined
  private wakeUp: (() => void) | undefined
  /** Counts `wake()` calls: a claim that found nothing is stale if the count moved meanwhile. */
  private wakes = 0
  private stopping = false
  private drainDeadline = Number.POSITIVE_INFINITY
  /** Raw bytes per gzip byte seen in recent batches; starts cautious (1) and adapts. */
  private ratio = 1
  /**
   * Below `max_batch_bytes` once the upstream refused a batch of some size with 413: later
   * batches are cut to fit instead of being refused and split every time.
   */
  private learnedLimit = Number.POSITIVE_INFINITY
  private readonly status: ForwarderState = { state: 'idle', consecutiveFailures: 0, lastError: null }
  private readonly acks: AckQueue

  constructor(
    private readonly buffer: BufferThread,
    private readonly target: UpstreamTarget,
    private readonly config: Pick<DecisionLogsConfig, 'upload' | 'retry'>,
    private readonly metrics: DecisionLogMetrics,
    private readonly logger: Logger,
  ) {
    this.acks = new AckQueue(buffer)
  }

  /** Starts the upload loop. */
  start(): void {
    this.running ??= this.loop().catch((err: unknown) => {
      if (!this.abort.signal.aborted) this.logger.error({ err }, 'decision-log forwarder stopped on an error')
    })
  }

  /** Tells an idle forwarder that events arrived. */
  wake(): void {
    this.wakes++
    this.wakeUp?.()
  }

  /** A snapshot of the forwarder's state. */
  get state(): Readonly<ForwarderState> {
    return this.status
  }

  /**
   * Uploads what is buffered for up to `drainMs`, then aborts what is in flight and resolves.
   * What is left stays on disk for the next start.
   */
  async stop(drainMs = this.config.upload.drain_timeout_ms): Promise<void> {
    if (!this.running) return
    this.stopping = true
    this.status.state = 'draining'
    this.drainDeadline = Date.now() + drainMs
    const timer = setTimeout(() => this.abort.abort(new Error('drain time is over')), drainMs)
    this.wake()
    try {
      await this.running
    } finally {
      clearTimeout(timer)
      this.status.state = 'stopped'
    }
  }

  private async loop(): Promise<void> {
    // The batch after the one being delivered, claimed and compressed meanwhile.
    let next: Promise<Prepared | undefined> | undefined
    let nextWakes = 0
    while (!this.abort.signal.aborted) {
      try {
        const wakesAtClaim = next ? nextWakes : this.wakes
        const prepared = await (next ?? this.nextBatch())
        next = undefined
        if (!prepared) {
          await this.acks.flush()
          // Events stored after this claim began (the prefetch ran while the last batch was in
          // flight) are not in it: look again before idling or ending a drain.
          if (this.wakes !== wakesAtClaim) continue
          if (this.stopping) return
          await this.idle()
          continue
        }
        const fitted = await this.fit(prepared)
        nextWakes = this.wakes
        next = this.nextBatch()
        // Settled by the loop (awaited above or in the catch): never an unhandled rejection.
        next.catch(() => {})
        await this.deliver(fitted.batch, fitted.gzipped)
      } catch (err) {
        // The claim in progress and the queued deletes end before the claims are given back.
        await next?.catch(() => {})
        next = undefined
        await this.acks.flush().catch(() => {})
        if (this.abort.signal.aborted) return
        // The buffer itself failed (locked past its timeout by a CLI, disk trouble): give the
        // batch back and try again shortly; rows already delivered may be sent twice, which the
        // service's decision_id dedupe absorbs.
        // A SQLite condition (full disk, busy file) is expected: one line, no stack.
        const code = (err as { code?: unknown }).code
        if (typeof code === 'string' && code.startsWith('SQLITE_')) {
          this.logger.warn(
            { code, reason: (err as Error).message },
            'decision-log forwarding failed; retrying in a second',
          )
        } else {
          this.logger.error({ err }, 'decision-log forwarding failed; retrying in a second')
        }
        this.noteFailure('buffer', (err as Error).message)
        await this.buffer.releaseAll().catch(() => {})
        await sleep(1000, this.abort.signal).catch(() => {})
      }
    }
    // Aborted (drain time over): what is still queued is deleted if it can be, else sent again.
    await next?.catch(() => {})
    await this.acks.flush().catch(() => {})
  }

  /** Claims the oldest events that fit in one gzip batch, with the batch compressed. */
  private async nextBatch(): Promise<Prepared | undefined> {
    const { max_batch_events: maxEvents } = this.config.upload
    const limit = this.limit()
    const batch = await this.buffer.claim(maxEvents, Math.max(1, Math.floor(limit * this.ratio * 0.95)))
    if (!batch) return undefined
    const body = arrayBody(batch)
    const gzipped = await gzipAsync(body)
    // Smooth the ratio so one odd batch does not swing the next claim.
    this.ratio = this.ratio * 0.5 + (body.length / gzipped.length) * 0.5
    return { batch, gzipped }
  }

  /**
   * Cuts a prepared batch down to the limit (it may have been claimed before a 413 lowered it,
   * or compressed worse than the ratio promised), giving the tail back to the buffer.
   */
  private async fit(prepared: Prepared): Promise<Prepared> {
    const limit = this.limit()
    let { batch, gzipped } = prepared
    while (gzipped.length > limit && batch.seqs.length > 1) {
      const keep = Math.max(1, Math.floor(batch.seqs.length * (limit / gzipped.length) * 0.9))
      batch = await this.buffer.shrink(batch, keep)
      const body = arrayBody(batch)
      gzipped = await gzipAsync(body)
      this.ratio = this.ratio * 0.5 + (body.length / gzipped.length) * 0.5
    }
    return { batch, gzipped }
  }

  private limit(): number {
    return Math.min(this.config.upload.max_batch_bytes, this.learnedLimit)
  }

  /**
   * Delivers a batch, splitting on 413 and bisecting on 400; each part is acknowledged or
   * dead-lettered in order, so the buffer settles the batch front to back.
   */
  private async deliver(batch: Batch, gzipped: Buffer): Promise<void> {
    const parts: Array<{ from: number; to: number; gzipped?: Buffer }> = [
      { from: 0, to: batch.seqs.length, gzipped },
    ]
    while (parts.length > 0) {
      const part = parts.shift()!
      const events = part.to - part.from
      const body = part.gzipped ?? (await gzipAsync(arrayBody(batch, part.from, part.to)))
      const result = await this.sendWithRetries(batch, body, events)
      const firstSeq = batch.seqs[part.from]!
      const lastSeq = batch.seqs[part.to - 1]!
      const middle = part.from + Math.floor(events / 2)
      if (result.kind === 'delivered') {
        await this.acks.add({ batch, fromSeq: firstSeq, toSeq: lastSeq })
      } else if (result.kind === 'too_large' && events > 1) {
        this.learnedLimit = Math.max(1024, Math.min(this.learnedLimit, Math.floor(body.length * 0.9)))
        this.logger.warn({ events }, 'upstream refused a batch as too large (413); splitting it')
        parts.unshift({ from: part.from, to: middle }, { from: middle, to: part.to })
      } else if (result.kind === 'refused' && events > 1) {
        // The good events of the part go through in the half without the refused ones; the
        // refused ones end alone, each dead-lettered with its own reason.
        this.logger.debug({ events, reason: result.message }, 'upstream refused a batch (400); bisecting it')
        parts.unshift({ from: part.from, to: middle }, { from: middle, to: part.to })
      } else {
        const why =
          result.kind === 'dead'
            ? { status: result.status, reason: result.message, attempts: result.attempts }
            : result.kind === 'refused'
              ? { status: result.status, reason: result.message, attempts: 1 }
              : {
                  status: 413,
                  reason: 'a single event is larger than the upstream accepts (413)',
                  attempts: 1,
                }
        // Deletes queued for this batch's earlier parts go first: the buffer settles a claim
        // front to back.
        await this.acks.flush()
        const moved = await this.buffer.deadLetter(batch, why, firstSeq, lastSeq)
        this.metrics.deadLetter(moved)
        this.logger.error(
          { events: moved, status: why.status, reason: why.reason },
          moved === 1
            ? 'decision event refused by the upstream; moved to the dead-letter table'
            : 'decision-log batch moved to the dead-letter table',
        )
      }
    }
  }

  private async sendWithRetries(batch: Batch, body: Buffer, events: number): Promise<PartResult> {
    const { retry, upload } = this.config
    let clientErrors = 0
    let retryAfterMs: number | undefined
    const signal = this.abort.signal
    return pRetry(
      async (): Promise<PartResult> => {
        if (this.stopping && Date.now() >= this.drainDeadline) {
          this.abort.abort(new Error('drain time is over'))
          signal.throwIfAborted()
        }
        this.status.state = this.stopping ? 'draining' : 'uploading'
        const started = performance.now()
        const outcome = await postBatch(this.target, body, upload.timeout_ms, signal)
        const seconds = (performance.now() - started) / 1000
        if (outcome.kind === 'delivered') {
          this.metrics.uploadSucceeded(events, seconds)
          this.status.consecutiveFailures = 0
          if (!this.stopping) this.status.state = 'idle'
          return { kind: 'delivered' }
        }
        this.metrics.uploadFailed(String(outcome.status), seconds)
        if (outcome.kind === 'too_large') return { kind: 'too_large' }
        this.noteFailure(String(outcome.status), outcome.kind === 'retry' ? outcome.message : outcome.message)
        await this.buffer.recordFailure(
          batch,
          typeof outcome.status === 'number' ? outcome.status : 0,
          outcome.message,
        )
        if (outcome.kind === 'rejected' && outcome.status === EVENT_REFUSED) {
          // A verdict on the events, not a passing fault: retrying the same bytes cannot help.
          return { kind: 'refused', status: outcome.status, message: outcome.message }
        }
        if (outcome.kind === 'rejected') {
          clientErrors++
          if (clientErrors >= retry.max_client_error_attempts) {
            return { kind: 'dead', status: outcome.status, message: outcome.message, attempts: clientErrors }
          }
        }
        retryAfterMs = outcome.kind === 'retry' ? outcome.retryAfterMs : undefined
        throw new RetryableUploadError(outcome)
      },
      {
        retries: Number.POSITIVE_INFINITY,
        factor: 2,
        minTimeout: retry.min_delay_ms,
        maxTimeout: retry.max_delay_ms,
        randomize: true,
        signal,
        unref: true,
        shouldRetry: ({ error }) => error instanceof RetryableUploadError,
        // A Retry-After replaces the backoff: wait what the upstream asked (capped), then retry.
        shouldConsumeRetry: () => retryAfterMs === undefined,
        onFailedAttempt: async ({ error, attemptNumber }) => {
          if (!(error instanceof RetryableUploadError)) return
          this.status.state = 'backing_off'
          if (attemptNumber === 1 || attemptNumber % 10 === 0) {
            this.logger.warn(
              { attempt: attemptNumber, status: error.outcome.status, error: error.message },
              'decision-log upload failed; retrying',
            )
          }
          if (retryAfterMs !== undefined) await sleep(Math.min(retryAfterMs, retry.max_delay_ms), signal)
        },
      },
    )
  }

  private noteFailure(status: string, message: string): void {
    this.status.consecutiveFailures++
    this.status.lastError = { status, message, at: Date.now() }
  }

  private idle(): Promise<void> {
    this.status.state = 'idle'
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.wakeUp = undefined
        resolve()
      }
      const timer = setTimeout(done, this.config.upload.idle_poll_ms)
      this.wakeUp = done
    })
  }
}

/** The JSON array of events `from..to-1`, each as received. */
function arrayBody(batch: Batch, from = 0, to = batch.seqs.length): Buffer {
  if (batch instanceof ClaimedBatch) return batch.arrayBody(from, to)
  return Buffer.from(`[${batch.texts.slice(from, to).join(',')}]`, 'utf8')
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
