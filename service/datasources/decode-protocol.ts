/** The messages between decode-off-thread.ts and its worker (decode-worker.ts). */
import type { EvaluationBudget } from '../../core/rego/index.js'
import type { ContentFormat } from './decode.js'
import type { Piece } from './decode-transfer.js'

/** A filter for the worker to run on what it decoded (filter.ts's runFilter). */
export interface WorkerFilter {
  policyFilter: string
  policyQuery: string
  budget: EvaluationBudget
}

/**
 * From the main thread: what to decode, then one `next` per batch wanted. `output: 'pieces'`
 * answers the decoded document in batches of pieces; `output: 'text'` answers its stored form
 * (after `filter` when given): JSON text in parts, then its item count and ETag.
 */
export type ToDecodeWorker =
  | {
      kind: 'decode'
      bytes: Uint8Array
      format: ContentFormat
      where: string
      maxYamlNodes: number
      output: 'pieces' | 'text'
      filter?: WorkerFilter
    }
  | { kind: 'next' }

/**
 * From the worker: a batch of pieces or a part of the text, the end (with the text's item count
 * and ETag in text mode), or why decoding or filtering failed (a RunError's message).
 */
export type FromDecodeWorker =
  | { kind: 'batch'; pieces: Piece[] }
  | { kind: 'text'; part: string }
  | { kind: 'done'; items?: number; etag?: string }
  | { kind: 'error'; message: string; runError: boolean }
