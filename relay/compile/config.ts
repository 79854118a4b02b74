/**
 * The `relay.compile` config section: the worker threads `/v1/compile` runs on, how many requests
 * may wait for one, each request's deadline, work limit and each worker's heap, and the hosts network-reaching
 * built-ins (`http.send`, `net.lookup_ip_addr`) may reach. Every key has a default.
 */
import { availableParallelism } from 'node:os'
import { z } from 'zod'
import { field } from '../../core/config.js'
// The budget's own file, not the engine's index: the relay reads this config at start and must
// not load the Rego engine until the compile endpoint is used.
import { DEFAULT_EVALUATION_BUDGET } from '../../core/rego/eval/budget.js'

/**
 * One worker per core beside the one the main thread needs, at most 2: each worker may use up to
 * `max_heap_mb` of memory, and a pod's memory limit rarely knows the node's core count.
 */
export function defaultCompileWorkers(cores = availableParallelism()): number {
  return Math.min(2, Math.max(1, cores - 1))
}

export const compileConfigSchema = z
  .strictObject({
    /** Worker threads that run compile requests (default: cores - 1, between 1 and 2). */
    workers: field.positiveInt().optional(),
    /** Requests that may wait for a free worker; past it, 503 with Retry-After. */
    queue: field.nonNegativeInt().default(16),
    /** Wall-clock deadline of a request, from its arrival (waiting included). */
    timeout_ms: field.positiveInt().default(10_000),
    /**
     * Units of work one request's evaluation may do (docs/limits.md); past it
     * `eval_instruction_limit_error`. 0: no work limit (the deadline and the heap still bound it).
     */
    instruction_limit: field.nonNegativeInt().default(DEFAULT_EVALUATION_BUDGET.instructionLimit),
    /** Old-generation heap of each worker (V8 `maxOldGenerationSizeMb`); past it the worker is replaced. */
    max_heap_mb: field.positiveInt().default(128),
    /**
     * Answer requests whose residual comes from a confirmed template on the main thread, without
     * the hop to a worker (relay/compile/main-thread-lane.ts); false: every request on a worker.
     */
    main_thread: z.boolean().default(true),
    /** Hosts `http.send` and `net.lookup_ip_addr` may reach (OPA capabilities `allow_net`); empty: none. */
    allow_net: z.array(z.string().min(1, { error: 'expected a host name or IP address' })).default([]),
  })
  .prefault({})
export type CompileConfig = z.output<typeof compileConfigSchema>
