/** Messages between the decision-log parse pool (decision-parse-pool.ts) and its worker. */
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { NewDecision } from '../store/service/index.js'
import type { BatchContext } from './decision-events.js'

/**
 * One upload and how it is attributed and bounded: its text (already inflated), or its gzip
 * bytes as received, inflated on the worker up to `maxBytes` (readBodyText's answers).
 */
export type ParseTask =
  | { text: string; context: BatchContext }
  | { gzip: Uint8Array; maxBytes: number; context: BatchContext }

/** The upload's rows, or the HTTP error decision-events.ts refused it with. */
export type ParseAnswer =
  | { ok: true; rows: NewDecision[] }
  | { ok: false; status: ContentfulStatusCode; code: string; message: string }
