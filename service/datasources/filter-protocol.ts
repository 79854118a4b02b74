import type { EvaluationBudget } from '../../core/rego/index.js'

/** The messages between applyFilter (filter-off-thread.ts) and its worker (filter-worker.ts). */

/** From the main thread: the filter and the content as JSON text (stringifyJsonDocument's). */
export interface ToFilterWorker {
  policyFilter: string
  policyQuery: string
  inputText: string
  /** The run's limits on the evaluation (filter.ts's filterBudget). */
  budget: EvaluationBudget
}

/** From the worker: the filter's output, or why it failed (a RunError's message when runError). */
export type FromFilterWorker =
  | { kind: 'done'; text: string; items: number }
  | { kind: 'error'; message: string; runError: boolean }
