/**
 * The `service.evaluation` config section: the worker threads the data API evaluates on, how many
 * requests may wait for one, each evaluation's deadline, work limit and heap, and what unmocked
 * calls to outside systems may reach. Every key has a default; by default nothing outside is
 * reached (a management API evaluates what its callers send: docs/data-evaluation.md).
 */
import { z } from 'zod'
import { field } from '../../core/config.js'
import { DEFAULT_EVALUATION_BUDGET } from '../../core/rego/index.js'

export const evaluationConfigSchema = z
  .strictObject({
    /** Worker threads that run data evaluations. */
    workers: field.positiveInt().default(1),
    /** Evaluations that may wait for a free worker; past it, 503 with Retry-After. */
    queue: field.nonNegativeInt().default(16),
    /** Wall-clock deadline of an evaluation, from its arrival (waiting included). */
    timeout_ms: field.positiveInt().default(DEFAULT_EVALUATION_BUDGET.timeoutMs),
    /** Units of work one evaluation may do (docs/limits.md); 0: no work limit. */
    instruction_limit: field.nonNegativeInt().default(DEFAULT_EVALUATION_BUDGET.instructionLimit),
    /** Old-generation heap of each worker; past it the worker is replaced and the request fails. */
    max_heap_mb: field.positiveInt().default(256),
    /**
     * Hosts unmocked `http.send`, `sql.send` (PostgreSQL, MySQL) and `redis.query` calls may reach
     * (capabilities `allow_net`); empty: none.
     */
    allow_net: z.array(z.string().min(1, { error: 'expected a host name or IP address' })).default([]),
    /** Folders whose SQLite files unmocked `sql.send` calls may open (read-only); empty: none. */
    allow_files: z.array(z.string().min(1, { error: 'expected a folder path' })).default([]),
  })
  .prefault({})

export type EvaluationConfig = z.output<typeof evaluationConfigSchema>
