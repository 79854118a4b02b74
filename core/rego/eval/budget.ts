/**
 * The budget one evaluation runs under: a wall-clock timeout and a limit on work. Work is counted
 * in one unit whatever produces it, so a runaway query stops whatever form it takes:
 *
 * - each expression the evaluator runs and each element it iterates over costs one unit;
 * - a built-in costs the size of what it returns (one unit per array, set or object element, one
 *   per {@link CHARS_PER_UNIT} characters of a string), charged after the call;
 * - a built-in whose output size follows from an argument (`numbers.range(1, 1e9)`) charges that
 *   size through `chargeWork(units)` (builtins/meter.ts) before it allocates, so a call the remaining budget cannot
 *   cover fails before it takes the memory. Relations (`walk`) charge each result they yield;
 * - partial evaluation charges each residual query by its size in AST nodes (partial.ts).
 *
 * Running out of units fails with `eval_instruction_limit_error`; running past the deadline with
 * `eval_cancel_error`. Both stop the whole query: they are never swallowed as built-in errors.
 * docs/limits.md describes the defaults and the flags and config keys that change them.
 */

import { BuiltinCallError } from '../builtins/errors.js'
import { isArray, isObject, isSet, type Value } from '../values/index.js'
import { cancelError, evalError } from './errors.js'

/** How long and how much one evaluation (or partial evaluation) may run. */
export interface EvaluationBudget {
  /** Wall-clock milliseconds from the start of the evaluation; 0: no deadline. */
  timeoutMs: number
  /** Units of work (see the file comment); 0: unlimited. */
  instructionLimit: number
}

/**
 * The budget servers apply when not told otherwise (`regent run -s`, the compile endpoint).
 * 5 million units is 0.3 to 3 s of evaluation, an order of magnitude above what real policies
 * need per decision (thousands to a few hundred thousand), and bounds what one query may allocate
 * to about 150 MiB (a value costs some 25 bytes), inside a 256 MiB pod; 10 s is far above a
 * decision's normal latency.
 */
export const DEFAULT_EVALUATION_BUDGET: Readonly<EvaluationBudget> = Object.freeze({
  timeoutMs: 10_000,
  instructionLimit: 5_000_000,
})

/** No limits at all (OPA's default for `opa eval` without `--timeout`). */
export const UNLIMITED_EVALUATION_BUDGET: Readonly<EvaluationBudget> = Object.freeze({
  timeoutMs: 0,
  instructionLimit: 0,
})

/** Characters of a string counted as one unit of work (a character costs far less than a value). */
export const CHARS_PER_UNIT = 16

/** The deadline and limit an evaluator takes for `budget`, starting `now`. */
export function budgetLimits(
  budget: EvaluationBudget,
  now: number = Date.now(),
): { deadline?: number; instructionLimit?: number } {
  return {
    ...(budget.timeoutMs > 0 ? { deadline: now + budget.timeoutMs } : {}),
    ...(budget.instructionLimit > 0 ? { instructionLimit: budget.instructionLimit } : {}),
  }
}

/**
 * A budget from optional parts: each missing or undefined part takes `defaults`' value.
 * Throws a message naming the field when a part is negative or not a whole number.
 */
export function resolveBudget(
  parts: Partial<EvaluationBudget> = {},
  defaults: Readonly<EvaluationBudget> = DEFAULT_EVALUATION_BUDGET,
): EvaluationBudget {
  const out = {
    timeoutMs: parts.timeoutMs ?? defaults.timeoutMs,
    instructionLimit: parts.instructionLimit ?? defaults.instructionLimit,
  }
  for (const [key, value] of Object.entries(out)) {
    if (!Number.isFinite(value) || value < 0 || !Number.isInteger(value))
      throw new Error(`${key} must be a whole number >= 0 (0: unlimited), got ${value}`)
  }
  return out
}

/** Units of work a built-in's result costs: its element count, or its length in {@link CHARS_PER_UNIT}s. */
export function resultUnits(v: Value | undefined): number {
  if (typeof v === 'string') return Math.floor(v.length / CHARS_PER_UNIT)
  if (v === null || typeof v !== 'object') return 0
  if (isArray(v)) return v.length
  if (isObject(v) || isSet(v)) return v.size
  return 0
}

/** What an evaluation entry point takes: a budget, or (overriding it) an explicit deadline or limit. */
export interface BudgetOptions {
  budget?: EvaluationBudget
  /** Milliseconds since the epoch after which the query is cancelled. */
  deadline?: number
  /** Maximum units of work (0: unlimited). */
  instructionLimit?: number
}

/** The deadline and limit of `options`, fixed once at the start of an evaluation. */
export function evaluationLimits(
  options: BudgetOptions,
  now?: number,
): { deadline?: number; instructionLimit?: number } {
  // The clock is read only when a budget asks for it: most evaluations have none.
  const limits = options.budget ? budgetLimits(options.budget, now ?? Date.now()) : {}
  if (options.deadline !== undefined) limits.deadline = options.deadline
  if (options.instructionLimit !== undefined) limits.instructionLimit = options.instructionLimit
  return limits
}

/**
 * Awaits an asynchronous built-in (`http.send`) no longer than the evaluation's deadline, and no
 * longer than `signal` stays unaborted: past either it rejects with `eval_cancel_error`, as the
 * evaluator itself would. A failed call rejects with the `EvalError` the query fails with (its
 * code, `http.send: reason`, the call's location), so servers answer it as any evaluation error.
 */
export async function awaitWithinDeadline<T>(
  promise: Promise<T>,
  deadline: number | undefined,
  signal?: AbortSignal,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stops: Array<Promise<never>> = []
  if (deadline !== undefined && deadline > 0)
    stops.push(
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(cancelError('timed out')), Math.max(0, deadline - Date.now()))
      }),
    )
  if (signal)
    stops.push(
      new Promise<never>((_, reject) => {
        onAbort = () => reject(cancelError())
        if (signal.aborted) onAbort()
        else signal.addEventListener('abort', onAbort, { once: true })
      }),
    )
  try {
    return await (stops.length > 0 ? Promise.race([promise, ...stops]) : promise)
  } catch (err) {
    if (err instanceof BuiltinCallError) throw evalError(err.code, err.message, err.location, err)
    throw err
  } finally {
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
  }
}
