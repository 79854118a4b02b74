/**
 * The flags that bound an evaluation, shared by `regent eval` and `regent run -s`: a timeout and
 * an instruction limit (core/rego/eval/budget.ts). The hosts built-ins may reach come from the
 * `--capabilities` file (cli/capabilities-option.ts). docs/limits.md describes them.
 */
import { parseDuration } from '../core/rego/builtins/go-time.js'
import { type EvaluationBudget, resolveBudget } from '../core/rego/index.js'

/** A flag's value that is wrong; the message names the flag. */
export class LimitFlagError extends Error {}

/**
 * The budget of `--timeout`-like and `--instruction-limit` flag values over `defaults`. A timeout
 * is a Go duration (`500ms`, `10s`) or `0` for none; a limit a whole number, `0` for none.
 */
export function budgetFromFlags(
  flags: { timeout?: string | undefined; instructionLimit?: string | undefined },
  names: { timeout: string; instructionLimit: string },
  defaults: Readonly<EvaluationBudget>,
): EvaluationBudget {
  const parts: Partial<EvaluationBudget> = {}
  if (flags.timeout !== undefined) parts.timeoutMs = durationMs(names.timeout, flags.timeout)
  if (flags.instructionLimit !== undefined) {
    const n = Number(flags.instructionLimit)
    if (!Number.isInteger(n) || n < 0)
      throw new LimitFlagError(
        `${names.instructionLimit}: expected a whole number (0: unlimited), got ${JSON.stringify(flags.instructionLimit)}`,
      )
    parts.instructionLimit = n
  }
  return resolveBudget(parts, defaults)
}

function durationMs(flag: string, text: string): number {
  if (text === '0') return 0
  try {
    const ns = parseDuration(text)
    if (ns < 0n) throw new Error('negative')
    // A positive duration under a millisecond still sets a deadline.
    return ns === 0n ? 0 : Math.max(1, Number(ns / 1_000_000n))
  } catch {
    throw new LimitFlagError(
      `${flag}: expected a duration such as 500ms or 10s (0: none), got ${JSON.stringify(text)}`,
    )
  }
}
