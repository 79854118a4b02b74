/**
 * The flags that bound an evaluation, shared by `regent eval` and `regent run -s`: a timeout and
 * an instruction limit (core/rego/eval/budget.ts), and the hosts built-ins may reach, read from a
 * capabilities file's `allow_net` as OPA reads it. docs/limits.md describes them.
 */
import { existsSync, readFileSync } from 'node:fs'
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

/**
 * The `allow_net` of the capabilities named by `--capabilities` (a JSON file, or a version such
 * as v0.60.0 whose capabilities have none): the hosts `http.send` and `net.lookup_ip_addr` may
 * reach, `[]` for none; undefined when the capabilities say nothing (every host, as OPA).
 */
export function allowNetFromCapabilities(value: string | undefined): readonly string[] | undefined {
  if (value === undefined) return undefined
  if (!existsSync(value)) {
    if (/^v?\d+\.\d+\.\d+/.test(value)) return undefined
    throw new LimitFlagError(
      `--capabilities ${value}: no such file (give a capabilities JSON file or a version)`,
    )
  }
  let doc: unknown
  try {
    doc = JSON.parse(readFileSync(value, 'utf8'))
  } catch (err) {
    throw new LimitFlagError(`--capabilities ${value}: not a JSON file: ${(err as Error).message}`)
  }
  const allowNet = (doc as { allow_net?: unknown } | null)?.allow_net
  if (allowNet === undefined || allowNet === null) return undefined
  if (!Array.isArray(allowNet) || !allowNet.every((h) => typeof h === 'string'))
    throw new LimitFlagError(`--capabilities ${value}: allow_net must be a list of host names`)
  return allowNet
}
