/**
 * Parse workers for intake: inflating and splitting upload bodies on worker threads leaves the
 * main thread to HTTP and the buffer thread to SQLite, so the three run side by side. With no
 * workers (`intake.parse_workers: 0`) the intake hands bodies to the buffer thread, which parses
 * them itself (one thread less: less memory, less parallelism). Once the pool is closed, or if
 * its workers keep dying, `parse` runs on the main thread (gzip still inflates on libuv's pool).
 *
 * An on-demand pool (the relay's) starts no worker until intake requests overlap, and stops its
 * workers after a quiet minute: each worker is a V8 isolate (about 11-15 MB resident), worth it
 * only while there is parallel work; one request at a time parses on the buffer thread as well.
 */
import type { MessagePort, Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { inflateBody } from '../../core/http/index.js'
import { startModuleWorker } from '../../core/workers/start-worker.js'
import type { ParsedUpload } from './parse-upload.js'
import { parseUpload } from './parse-upload.js'
import type { ParseRequest, ParseWorkerData } from './parse-worker.js'

interface Pending {
  resolve: (parsed: ParsedUpload | Forwarded) => void
  reject: (err: Error) => void
}

interface Slot {
  worker: Worker
  pending: Map<number, Pending>
}

/** A body whose events went straight to the buffer thread (see ParsePool.parseInto). */
export type Forwarded = { ok: true; forwarded: true }

/** Overlapping intake requests from which an on-demand pool starts its workers. */
const START_AT_CONCURRENT = 2
/** Quiet time after which an on-demand pool stops its workers. */
const IDLE_STOP_MS = 60_000

export interface ParsePoolOptions {
  /** Start workers only under concurrent intake (see `useWorkers`), stop them when quiet. */
  onDemand?: boolean
}

type WorkerAnswer = {
  id: number
  result: ParsedUpload | Forwarded | { ok: false; status: 500; message: string }
}

/** Parses upload bodies on `size` worker threads (or inline when `size` is 0). */
export class ParsePool {
  private readonly slots: Slot[] = []
  private nextId = 1
  private turn = 0
  private closed = false
  /** Worker deaths since the last answer; past a few, parsing falls back to the main thread. */
  private deathsInARow = 0
  /** Set once workers kept dying: no more are started. */
  private gaveUp = false
  private lastUse = 0
  private idleTimer: NodeJS.Timeout | undefined
  /** Bodies parsed on worker threads so far. */
  parsedOnWorkers = 0

  constructor(
    private readonly size: number,
    private readonly logger: Logger,
    /** Gives each new worker a port to the buffer thread, for parseInto. */
    private readonly connectBuffer?: () => MessagePort,
    private readonly options: ParsePoolOptions = {},
  ) {
    if (!options.onDemand) for (let i = 0; i < size; i++) this.slots.push(this.spawn())
  }

  /**
   * Whether the next body should go to a worker, `concurrent` intake requests being in progress.
   * An on-demand pool starts a worker here when requests overlap, and notes the use.
   */
  useWorkers(concurrent: number): boolean {
    if (this.closed) return false
    if (this.options.onDemand) {
      this.lastUse = Date.now()
      if (concurrent >= START_AT_CONCURRENT && this.slots.length < this.size && !this.gaveUp) {
        this.slots.push(this.spawn())
        this.idleTimer ??= setInterval(() => this.stopIfIdle(), IDLE_STOP_MS / 4).unref()
      }
    }
    return this.slots.length > 0
  }

  /** Stops an on-demand pool's workers once no body came for IDLE_STOP_MS. */
  private stopIfIdle(): void {
    if (Date.now() - this.lastUse < IDLE_STOP_MS) return
    if (this.slots.some((s) => s.pending.size > 0)) return
    // Out of the list first: their exit is then not taken for a death to replace.
    const retired = this.slots.splice(0)
    for (const slot of retired) void slot.worker.terminate()
    clearInterval(this.idleTimer)
    this.idleTimer = undefined
  }

  /** Inflates and splits one body. */
  async parse(raw: Buffer, encoding: string, maxDecompressedBytes: number): Promise<ParsedUpload> {
    if (this.slots.length === 0 || this.closed) return parseInline(raw, encoding, maxDecompressedBytes)
    return (await this.send(raw, encoding, maxDecompressedBytes)) as ParsedUpload
  }

  /**
   * Inflates and splits one body on a worker that sends the events straight to the buffer
   * thread as append `ticket` (needs `connectBuffer`); resolves with the refusal, or with
   * `forwarded` once they are on their way. Parses inline (answering with the events) when no
   * worker runs.
   */
  async parseInto(
    ticket: number,
    raw: Buffer,
    encoding: string,
    maxDecompressedBytes: number,
  ): Promise<ParsedUpload | Forwarded> {
    if (this.slots.length === 0 || this.closed || !this.connectBuffer) {
      return this.parse(raw, encoding, maxDecompressedBytes)
    }
    return this.send(raw, encoding, maxDecompressedBytes, ticket)
  }

  private send(
    raw: Buffer,
    encoding: string,
    maxDecompressedBytes: number,
    ticket?: number,
  ): Promise<ParsedUpload | Forwarded> {
    // The least busy worker; ties go round-robin.
    let slot = this.slots[this.turn++ % this.slots.length]!
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s
    const id = this.nextId++
    // Copy into a buffer of its own so transferring it cannot detach Node's shared pool slab.
    const copy = new Uint8Array(raw.byteLength)
    copy.set(raw)
    const request: ParseRequest = { id, raw: copy, encoding, maxDecompressedBytes, ticket }
    return new Promise<ParsedUpload | Forwarded>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject })
      slot.worker.postMessage(request, [copy.buffer])
    })
  }

  /** Worker threads running now (0 once closed). */
  get workers(): number {
    return this.closed ? 0 : this.slots.length
  }

  /** Stops the workers; later parses run inline. */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.idleTimer)
    await Promise.all(this.slots.map((s) => s.worker.terminate()))
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(this.connectBuffer?.()), pending: new Map() }
    slot.worker.unref()
    slot.worker.on('message', ({ id, result }: WorkerAnswer) => {
      const pending = slot.pending.get(id)
      slot.pending.delete(id)
      if (!pending) return
      this.deathsInARow = 0
      this.parsedOnWorkers++
      if (!result.ok && result.status === 500)
        pending.reject(new Error(`parse worker failed: ${result.message}`))
      else pending.resolve(result as ParsedUpload | Forwarded)
    })
    const fail = (err: Error) => {
      for (const p of slot.pending.values()) p.reject(err)
      slot.pending.clear()
      if (this.closed) return
      const at = this.slots.indexOf(slot)
      if (at < 0) return
      if (++this.deathsInARow > 3) {
        // A worker that cannot even start (e.g. no loader for its source) would respawn forever.
        this.logger.error({ err }, 'decision-log parse workers keep failing; parsing on the main thread')
        this.gaveUp = true
        this.slots.splice(at, 1)
        return
      }
      this.logger.error({ err }, 'decision-log parse worker died; starting another')
      this.slots[at] = this.spawn()
    }
    slot.worker.once('error', fail)
    slot.worker.once('exit', (code) => {
      if (!this.closed) fail(new Error(`parse worker exited with code ${code}`))
    })
    return slot
  }
}

async function parseInline(
  raw: Buffer,
  encoding: string,
  maxDecompressedBytes: number,
): Promise<ParsedUpload> {
  // Inflate off the main thread (libuv's pool), then split here.
  let bytes: Buffer = raw
  if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') {
    try {
      bytes = await inflateBody(raw, encoding, maxDecompressedBytes)
    } catch {
      // Let parseUpload produce the same refusal as a worker would.
      return parseUpload(raw, encoding, maxDecompressedBytes)
    }
    return parseUpload(bytes, 'identity', maxDecompressedBytes)
  }
  return parseUpload(bytes, encoding, maxDecompressedBytes)
}

/** Starts one parse worker (see start-worker.ts), with its port to the buffer thread if any. */
function startWorker(buffer: MessagePort | undefined): Worker {
  const workerData: ParseWorkerData = buffer ? { buffer } : {}
  // A small young generation: parsing makes short-lived strings, and the default semi-spaces
  // would add tens of MB of resident memory for nothing.
  return startModuleWorker(import.meta.url, 'parse-worker', {
    workerData,
    transferList: buffer ? [buffer] : [],
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  })
}
