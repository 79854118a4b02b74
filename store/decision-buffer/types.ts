/** Types of the decision-log buffer: what goes in, what comes out, and what it reports. */

/**
 * One decision event as received from an agent: its JSON text exactly as it arrived, plus the
 * fields the buffer indexes (null when the event lacks them or they are not strings).
 */
export interface RawEvent {
  text: string
  decisionId: string | null
  timestamp: string | null
  /** `labels.id`: the agent process that made the decision. */
  agentId: string | null
  /** UTF-8 length of `text` when the caller knows it (saves measuring it again). */
  bytes?: number
}

/** What the buffer does when an append would pass `maxBytes`. */
export type OverflowPolicy = 'backpressure' | 'drop_oldest'

/** SQLite `synchronous` level: `normal` survives a process kill, `full` also a power cut. */
export type SyncMode = 'full' | 'normal'

/** How the database is checked when it is opened. */
export type IntegrityCheck = 'quick' | 'full' | 'off'

export interface DecisionBufferOptions {
  /** Path of the SQLite file; its folder must exist and be writable. */
  path: string
  sync: SyncMode
  /** Upper bound of the stored event text (pending and in flight), in bytes. */
  maxBytes: number
  overflow: OverflowPolicy
  /** How long a write waits for a lock held by another process before giving up. */
  busyTimeoutMs: number
  /** Dead-letter bounds; past either, whole dead batches are dropped oldest first. */
  deadLetterMaxEvents: number
  deadLetterMaxBytes: number
  integrityCheck?: IntegrityCheck
  /**
   * Return batches left in flight to pending at open (default true). Only the process that
   * forwards may do this; a CLI opening the file beside a running relay passes false.
   */
  recoverInFlight?: boolean
  /** Called with each batch of events removed by `drop_oldest` or the dead-letter bounds. */
  onDrop?: (drop: DropNotice) => void
}

/** Events deleted without being delivered, and why. */
export interface DropNotice {
  reason: 'drop_oldest' | 'dead_letter_limit'
  events: number
  bytes: number
}

/** The outcome of one append group (one intake request). */
export type AppendOutcome =
  | { kind: 'stored'; events: number; bytes: number; droppedEvents: number; droppedBytes: number }
  /** Backpressure: nothing stored, the caller should answer 503 so the agent keeps its copy. */
  | { kind: 'full'; needBytes: number; freeBytes: number }
  /** The group alone is larger than the whole buffer: it can never fit. */
  | { kind: 'too_large'; bytes: number; maxBytes: number }

/** A contiguous run of events claimed for one upload, oldest first. */
export interface Batch {
  id: number
  firstSeq: number
  lastSeq: number
  /** The seq of each event, ascending (a batch is contiguous among undelivered events). */
  seqs: number[]
  /** Event JSON texts in ingest order, parallel to `seqs`. */
  texts: string[]
  /** UTF-8 length of each text, parallel to `seqs`. */
  sizes: number[]
  bytes: number
}

/** A batch being uploaded now, as recorded in the file. */
export interface InFlightBatch {
  id: number
  events: number
  bytes: number
  attempts: number
  lastStatus: number | null
  lastError: string | null
  claimedAt: number
}

/** A batch the upstream refused for good, kept on disk until re-driven or dropped. */
export interface DeadBatch {
  id: number
  events: number
  bytes: number
  /** HTTP status of the last refusal (0 when there was none, e.g. a lone event too large). */
  status: number
  reason: string
  attempts: number
  deadAt: number
  firstReceivedAt: number
}

/** What is in the buffer now. */
export interface BufferStats {
  /** Events waiting for upload, including those in flight. */
  events: number
  bytes: number
  inFlightEvents: number
  /** Milliseconds since the Unix epoch when the oldest undelivered event arrived, or null. */
  oldestReceivedAt: number | null
  deadEvents: number
  deadBytes: number
  deadBatches: number
}
