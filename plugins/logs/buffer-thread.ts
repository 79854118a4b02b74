/**
 * The decision-log buffer run on a thread of its own (buffer-worker.ts), seen from the main
 * thread: the same operations as DecisionBuffer, asynchronous, plus synchronous `stats()` read
 * from memory the buffer thread shares. The main thread then spends no time in SQLite: under
 * load it serves HTTP while the buffer thread commits, and requests that arrive during a
 * commit (or its fsync) join the next one.
 *
 * Opening is synchronous, as DecisionBuffer.open is: the main thread waits until the buffer
 * thread has opened, checked and recovered the file, so a failure still surfaces at start.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { EventSpans } from '../../core/decision-events/index.js'
import { startModuleWorker } from '../../core/workers/start-worker.js'
import { WriteHealth } from '../../core/write-health.js'
import {
  type Batch,
  BufferOpenError,
  type BufferStats,
  type DeadBatch,
  type DeadLetterReason,
  type DecisionBufferOptions,
  type DropNotice,
  type InFlightBatch,
} from '../../store/decision-buffer/index.js'
import {
  type AppendAnswer,
  type BufferMethod,
  type BufferReply,
  type BufferRequest,
  type BufferWorkerData,
  fromWireError,
  type OpenAnswer,
  readStats,
  STATS_BYTES,
} from './buffer-protocol.js'
import { ClaimedBatch, type WireClaim } from './claimed-batch.js'

interface Pending {
  resolve: (value: unknown) => void
  reject: (err: Error) => void
  /** Whether the request writes the file (its outcome tells whether the disk takes writes). */
  writes: boolean
}

/** Calls that write the file; a success means the disk takes writes again. */
const WRITING_METHODS: ReadonlySet<BufferMethod> = new Set([
  'shrink',
  'acknowledge',
  'acknowledgeMany',
  'recordFailure',
  'deadLetter',
  'redrive',
  'probeWrite',
])

/** How long start waits for the buffer thread to open the file (an integrity check reads it all). */
const OPEN_TIMEOUT_MS = 10 * 60_000

/** The buffer on its own thread; see the module comment. */
export class BufferThread {
  /** Set when the file failed its integrity check at open and was moved aside. */
  readonly quarantinedTo: string | undefined
  /** In-flight batches returned to pending when the buffer was opened. */
  readonly recoveredBatches: number

  /** Why the buffer thread died although nobody closed it (the relay should be restarted). */
  private exitFailure: string | undefined
  /** Whether the disk takes writes (a full disk makes the relay not ready until it does again). */
  private readonly writable: WriteHealth

  private readonly worker: Worker
  private readonly stats_: Float64Array
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private closed = false
  private exited = false

  private constructor(
    private readonly options: DecisionBufferOptions,
    private readonly logger: Logger,
    started: Started,
    waited: string,
  ) {
    const { channel } = started
    this.worker = started.worker
    this.stats_ = started.stats
    const answer = receiveMessageOnPort(channel.port1)?.message as OpenAnswer | undefined
    channel.port1.close()
    if (!answer?.ok) {
      void this.worker.terminate()
      const reason = answer
        ? fromWireError(answer.error)
        : new Error(waited === 'timed-out' ? 'it did not open in time' : 'its thread did not start')
      if (reason.name === 'BufferOpenError') throw new BufferOpenError(reason.message)
      throw new BufferOpenError(`cannot open the decision-log buffer ${options.path}: ${reason.message}`, {
        cause: reason,
      })
    }
    this.quarantinedTo = answer.quarantinedTo
    this.writable = new WriteHealth({
      what: `the decision-log buffer ${options.path}`,
      meanwhile: 'intake answers 503',
      probe: () => this.call('probeWrite'),
      logger,
    })
    this.recoveredBatches = answer.recoveredBatches
    this.worker.on('message', (reply: BufferReply) => this.receive(reply))
    this.worker.on('error', (err) => this.logger.error({ err }, 'decision-log buffer thread failed'))
    this.worker.on('exit', (code) => {
      this.exited = true
      this.writable.close()
      if (!this.closed) {
        this.exitFailure = `the decision-log buffer thread exited (code ${code}); intake answers 503`
        this.logger.error({ code }, 'decision-log buffer thread exited')
      }
      const err = Object.assign(new Error('the decision-log buffer is closed'), { code: 'SQLITE_CANTOPEN' })
      for (const p of this.pending.values()) p.reject(err)
      this.pending.clear()
    })
  }

  /**
   * Why the buffer cannot take events now, for readiness: its thread died, or its disk is full
   * (then intake answers 503 and the relay recovers by itself once a write succeeds).
   */
  get failure(): string | undefined {
    return this.exitFailure ?? this.writable.failure
  }

  /** Opens the buffer file on a new thread; throws BufferOpenError as DecisionBuffer.open does. */
  static open(options: DecisionBufferOptions, logger: Logger): BufferThread {
    const started = startThread(options)
    return new BufferThread(options, logger, started, Atomics.wait(started.flag, 0, 0, OPEN_TIMEOUT_MS))
  }

  /**
   * As `open`, without blocking the main thread while the thread starts and opens the file (an
   * open on demand, while the relay serves other requests); rejects with BufferOpenError.
   */
  static async openAsync(options: DecisionBufferOptions, logger: Logger): Promise<BufferThread> {
    const started = startThread(options)
    // Atomics.waitAsync is in Node 20's V8 but not in TypeScript's ES2023 library.
    const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync
    const result = waitAsync(started.flag, 0, 0, OPEN_TIMEOUT_MS)
    return new BufferThread(options, logger, started, result.async ? await result.value : result.value)
  }

  /** The options the buffer was opened with. */
  get settings(): Readonly<DecisionBufferOptions> {
    return this.options
  }

  /** Appends one request's events (split on a parse worker); resolves once committed. */
  append(split: EventSpans): Promise<AppendAnswer> {
    return this.send({ kind: 'append', id: 0, split }) as Promise<AppendAnswer>
  }

  /** Parses one body on the buffer thread and appends its events; resolves once committed. */
  appendRaw(raw: Buffer, encoding: string, maxDecompressedBytes: number): Promise<AppendAnswer> {
    // A buffer of its own, so transferring it cannot detach Node's shared pool slab.
    const copy = new Uint8Array(raw.byteLength)
    copy.set(raw)
    const request: BufferRequest = { kind: 'appendRaw', id: 0, raw: copy, encoding, maxDecompressedBytes }
    return this.send(request, [copy.buffer]) as Promise<AppendAnswer>
  }

  /**
   * A port for a parse worker to send `append` requests on, straight to the buffer thread (the
   * answers still come here, to the ticket's promise).
   */
  connectParser(): MessagePort {
    const channel = new MessageChannel()
    const request: BufferRequest = { kind: 'parser', id: 0, port: channel.port1 }
    this.worker.postMessage(request, [channel.port1])
    return channel.port2
  }

  /**
   * Reserves an append whose events a parse worker sends here directly (ParsePool.parseInto):
   * `answer` settles once they are committed (or refused).
   */
  ticket(): { id: number; answer: Promise<AppendAnswer> } {
    if (this.closed || this.exited) {
      const answer = Promise.reject(
        Object.assign(new Error('the decision-log buffer is closed'), { code: 'SQLITE_CANTOPEN' }),
      )
      answer.catch(() => {})
      return { id: 0, answer }
    }
    const id = this.nextId++
    const answer = new Promise<AppendAnswer>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, writes: true })
    })
    // The caller awaits it only after the parse: a failure before then is not unhandled.
    answer.catch(() => {})
    return { id, answer }
  }

  /** Gives up a ticket whose events will never be sent (the body was refused or parsed inline). */
  forget(id: number): void {
    this.pending.delete(id)
  }

  /** See DecisionBuffer.claim; the batch carries its upload body (texts decoded on demand). */
  async claim(maxEvents: number, maxBytes: number): Promise<ClaimedBatch | undefined> {
    const wire = (await this.call('claim', maxEvents, maxBytes)) as WireClaim | undefined
    return wire && new ClaimedBatch(wire)
  }

  /** See DecisionBuffer.shrink. */
  async shrink(batch: Batch, keep: number): Promise<Batch> {
    if (keep <= 0 || keep >= batch.seqs.length) return batch
    await this.call('shrink', batch.id, keep)
    if (batch instanceof ClaimedBatch) return batch.head(keep)
    const sizes = batch.sizes.slice(0, keep)
    const seqs = batch.seqs.slice(0, keep)
    return {
      id: batch.id,
      firstSeq: batch.firstSeq,
      lastSeq: seqs[keep - 1]!,
      seqs,
      texts: batch.texts.slice(0, keep),
      sizes,
      bytes: sizes.reduce((sum, n) => sum + n, 0),
    }
  }

  /** See DecisionBuffer.acknowledge. */
  async acknowledge(batch: Batch, fromSeq = batch.firstSeq, toSeq = batch.lastSeq): Promise<void> {
    await this.call('acknowledge', batch.id, fromSeq, toSeq)
  }

  /** See DecisionBuffer.acknowledgeMany; batches go by id, their texts stay here. */
  async acknowledgeMany(
    ranges: ReadonlyArray<{ batch: Batch; fromSeq: number; toSeq: number }>,
  ): Promise<void> {
    if (ranges.length === 0) return
    await this.call(
      'acknowledgeMany',
      ranges.map((r) => [r.batch.id, r.fromSeq, r.toSeq]),
    )
  }

  /** See DecisionBuffer.recordFailure. */
  async recordFailure(batch: Batch, status: number, error: string): Promise<void> {
    await this.call('recordFailure', batch.id, status, error)
  }

  /** See DecisionBuffer.deadLetter. */
  deadLetter(batch: Batch, why: DeadLetterReason, fromSeq = batch.firstSeq, toSeq = batch.lastSeq) {
    return this.call('deadLetter', batch.id, why, fromSeq, toSeq) as Promise<number>
  }

  /** See DecisionBuffer.releaseAll. */
  async releaseAll(): Promise<void> {
    if (this.closed) return
    await this.call('releaseAll')
  }

  /** See DecisionBuffer.listInFlight. */
  listInFlight(): Promise<InFlightBatch[]> {
    return this.call('listInFlight') as Promise<InFlightBatch[]>
  }

  /** See DecisionBuffer.listDeadBatches. */
  listDeadBatches(limit?: number): Promise<DeadBatch[]> {
    return this.call('listDeadBatches', limit) as Promise<DeadBatch[]>
  }

  /** See DecisionBuffer.deadBatchEvents. */
  deadBatchEvents(id: number): Promise<string[]> {
    return this.call('deadBatchEvents', id) as Promise<string[]>
  }

  /** See DecisionBuffer.redrive. */
  redrive(ids?: number[]): Promise<{ batches: number; events: number }> {
    return this.call('redrive', ids) as Promise<{ batches: number; events: number }>
  }

  /** See DecisionBuffer.peek. */
  peek(limit: number): Promise<string[]> {
    return this.call('peek', limit) as Promise<string[]>
  }

  /**
   * What is stored, as the buffer thread last published it (after each commit and each call;
   * `refresh()` re-reads the file, e.g. after another process changed it).
   */
  stats(): BufferStats {
    return readStats(this.stats_)
  }

  /** Re-reads the counters from the file (they are also refreshed by every claim). */
  async refresh(): Promise<void> {
    await this.call('refresh')
  }

  /** Commits what was submitted, checkpoints the WAL, closes the file and ends the thread. */
  async close(): Promise<void> {
    if (this.closed) return
    this.writable.close()
    try {
      if (!this.exited) await this.call('close')
    } finally {
      this.closed = true
      await this.worker.terminate()
    }
  }

  /** Whether `close()` was called. */
  get isClosed(): boolean {
    return this.closed
  }

  private call(method: BufferMethod, ...args: unknown[]): Promise<unknown> {
    return this.send({ kind: 'call', id: 0, method, args })
  }

  private send(request: BufferRequest, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.closed || this.exited) {
      return Promise.reject(
        Object.assign(new Error('the decision-log buffer is closed'), { code: 'SQLITE_CANTOPEN' }),
      )
    }
    const id = this.nextId++
    request.id = id
    const writes =
      request.kind === 'append' ||
      request.kind === 'appendRaw' ||
      (request.kind === 'call' && WRITING_METHODS.has(request.method))
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, writes })
      this.worker.postMessage(request, transfer)
    })
  }

  private receive(reply: BufferReply): void {
    if (reply.kind === 'drop') {
      this.options.onDrop?.(reply.drop as DropNotice)
      return
    }
    if (reply.kind === 'log') {
      this.logger[reply.level]({ err: reply.error }, reply.message)
      return
    }
    const pending = this.pending.get(reply.id)
    if (!pending) return
    this.pending.delete(reply.id)
    if (reply.kind === 'done') {
      if (pending.writes && wroteSomething(reply.value)) this.writable.succeeded()
      pending.resolve(reply.value)
    } else {
      if (pending.writes) this.writable.failed(reply.error)
      pending.reject(fromWireError(reply.error))
    }
  }
}

type WaitAsync = (
  flag: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: string } | { async: true; value: Promise<string> }

interface Started {
  worker: Worker
  stats: Float64Array
  /** Set to 1 by the buffer thread once it opened the file (or failed to). */
  flag: Int32Array
  /** Its first message on `port1` is the OpenAnswer. */
  channel: MessageChannel
}

/** Starts the buffer thread on `options` (it opens the file at once and then sets `flag`). */
function startThread(options: DecisionBufferOptions): Started {
  const { onDrop: _, ...plain } = options
  const stats = new SharedArrayBuffer(STATS_BYTES)
  const opened = new SharedArrayBuffer(4)
  const channel = new MessageChannel()
  const workerData: BufferWorkerData = { options: plain, stats, opened, openPort: channel.port2 }
  // A small young generation: the buffer thread makes short-lived strings only, and the
  // default semi-spaces would add resident memory for nothing.
  const worker = startModuleWorker(import.meta.url, 'buffer-worker', {
    workerData,
    transferList: [channel.port2],
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  })
  return { worker, stats: new Float64Array(stats), flag: new Int32Array(opened), channel }
}

/** Whether a write's answer shows a committed write (an append refused or held back wrote nothing). */
function wroteSomething(value: unknown): boolean {
  const append = value as Partial<AppendAnswer> | undefined
  if (append?.ok === undefined) return true
  return append.ok === true && append.outcome?.kind === 'stored'
}
