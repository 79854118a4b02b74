/**
 * How built-ins reach the evaluation budget (eval/budget.ts): {@link chargeWork} charges units of
 * work against the evaluation running now, and throws the budget's error when they do not fit.
 * A built-in whose output size follows from an argument (`numbers.range`) calls it with that size
 * before allocating. Evaluation is synchronous, so "the evaluation running now" is a module-level
 * slot the evaluator fills for the length of a query ({@link runMetered}); outside one, and in
 * asynchronous built-ins once they have been started, charging does nothing. A slot rather than a
 * context field: deriving a context per query to hold the meter made every evaluation measurably
 * slower.
 */

/** What charging talks to: the running evaluator. */
export interface WorkMeter {
  charge(units: number): void
}

let active: WorkMeter | undefined

/** Charges `units` of work to the running evaluation; throws when its budget cannot cover them. */
export function chargeWork(units: number): void {
  active?.charge(units)
}

/** Runs `f` with `meter` as the running evaluation (nesting restores the outer one). */
export function runMetered<T>(meter: WorkMeter, f: () => T): T {
  const outer = active
  active = meter
  try {
    return f()
  } finally {
    active = outer
  }
}
