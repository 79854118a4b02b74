/** Messages between the decision-log parse pool (decision-parse-pool.ts) and its worker. */
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { NewDecision } from '../store/service/index.js'
import type { BatchContext } from './decision-events.js'

/** One upload's text (already inflated) and how it is attributed and bounded. */
export interface ParseTask {
  text: string
  context: BatchContext
}

/** The upload's rows, or the HTTP error decision-events.ts refused it with. */
export type ParseAnswer =
  | { ok: true; rows: NewDecision[] }
  | { ok: false; status: ContentfulStatusCode; code: string; message: string }
