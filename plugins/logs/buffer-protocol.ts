/**
 * What the main thread and the buffer thread say to each other (see buffer-thread.ts), and the
 * shared memory through which the buffer thread publishes its counters, so `/v1/relay/status`
 * and the metrics read them synchronously without a round trip.
 */
import type { MessagePort } from 'node:worker_threads'
import type { EventSpans } from '../../core/decision-events/index.js'
import type {
  AppendOutcome,
  BufferStats,
  DecisionBufferOptions,
  DropNotice,
} from '../../store/decision-buffer/index.js'
import type { ParsedUpload } from './parse-upload.js'

/** What the buffer thread is started with. */
export interface BufferWorkerData {
  options: Omit<DecisionBufferOptions, 'onDrop'>
  /** BufferStats, see STATS_SLOTS; written by the buffer thread only. */
  stats: SharedArrayBuffer
  /** Int32 flag the main thread waits on while the file is opened: 0 opening, 1 done. */
  opened: SharedArrayBuffer
  /** Where the buffer thread answers the open (read with receiveMessageOnPort). */
  openPort: MessagePort
}

/** The answer to the open: what DecisionBuffer.open reported, or why it failed. */
export type OpenAnswer =
  | { ok: true; quarantinedTo: string | undefined; recoveredBatches: number }
  | { ok: false; error: WireError }

/** An error as it crosses threads: SQLite's `code` matters to the intake's answer. */
export interface WireError {
  name: string
  message: string
  code?: string
}

/** The buffer's methods the main thread calls by name (all but appends). */
export type BufferMethod =
  | 'claim'
  | 'shrink'
  | 'acknowledge'
  | 'acknowledgeMany'
  | 'recordFailure'
  | 'deadLetter'
  | 'releaseAll'
  | 'listInFlight'
  | 'listDeadBatches'
  | 'deadBatchEvents'
  | 'redrive'
  | 'peek'
  | 'refresh'
  | 'probeWrite'
  | 'close'

/** Main thread to buffer thread. */
export type BufferRequest =
  /** Events split on a parse worker: append them (group commit). */
  | { kind: 'append'; id: number; split: EventSpans }
  /** A body as received: parse it here, then append (no parse workers). */
  | { kind: 'appendRaw'; id: number; raw: Uint8Array; encoding: string; maxDecompressedBytes: number }
  | { kind: 'call'; id: number; method: BufferMethod; args: unknown[] }
  /** A port on which a parse worker sends `append` requests (answered to the main thread). */
  | { kind: 'parser'; id: number; port: MessagePort }

/** The answer to an append: the buffer's outcome, or the parser's refusal (appendRaw only). */
export type AppendAnswer =
  | {
      ok: true
      outcome: AppendOutcome
      events: number
      malformed: number
    }
  | Extract<ParsedUpload, { ok: false }>

/** Buffer thread to main thread. */
export type BufferReply =
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'failed'; id: number; error: WireError }
  | { kind: 'drop'; drop: DropNotice }
  | { kind: 'log'; level: 'warn' | 'error'; message: string; error?: WireError }

/** Slots of the stats array (Float64Array over `stats`); NaN stands for null. */
export const STATS_SLOTS = {
  events: 0,
  bytes: 1,
  inFlightEvents: 2,
  oldestReceivedAt: 3,
  deadEvents: 4,
  deadBytes: 5,
  deadBatches: 6,
} as const

/** Bytes of the shared stats array. */
export const STATS_BYTES = 8 * Object.keys(STATS_SLOTS).length

/** Writes `stats` into the shared array. */
export function writeStats(target: Float64Array, stats: BufferStats): void {
  target[STATS_SLOTS.events] = stats.events
  target[STATS_SLOTS.bytes] = stats.bytes
  target[STATS_SLOTS.inFlightEvents] = stats.inFlightEvents
  target[STATS_SLOTS.oldestReceivedAt] = stats.oldestReceivedAt ?? Number.NaN
  target[STATS_SLOTS.deadEvents] = stats.deadEvents
  target[STATS_SLOTS.deadBytes] = stats.deadBytes
  target[STATS_SLOTS.deadBatches] = stats.deadBatches
}

/** Reads the shared array back into a BufferStats. */
export function readStats(source: Float64Array): BufferStats {
  const oldest = source[STATS_SLOTS.oldestReceivedAt]!
  return {
    events: source[STATS_SLOTS.events]!,
    bytes: source[STATS_SLOTS.bytes]!,
    inFlightEvents: source[STATS_SLOTS.inFlightEvents]!,
    oldestReceivedAt: Number.isNaN(oldest) ? null : oldest,
    deadEvents: source[STATS_SLOTS.deadEvents]!,
    deadBytes: source[STATS_SLOTS.deadBytes]!,
    deadBatches: source[STATS_SLOTS.deadBatches]!,
  }
}

/** An error as it crosses threads. */
export function toWireError(err: unknown): WireError {
  const e = err as { name?: string; message?: string; code?: unknown }
  return {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(err),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  }
}

/** An Error again on the receiving side, with its `code`. */
export function fromWireError(wire: WireError): Error {
  const err = new Error(wire.message) as Error & { code?: string }
  err.name = wire.name
  if (wire.code !== undefined) err.code = wire.code
  return err
}
