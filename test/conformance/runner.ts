/**
 * Runs OPA's compliance cases (`../shared/conformance/rego/<category>.json`) against regent's
 * engine and judges each by its answer only: the result set (bindings, compared as a set, arrays
 * sorted when `sort_bindings`), or the error code and message. No case is special-cased by name.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { isLosslessNumber, parse as losslessParse, stringify as losslessStringify } from 'lossless-json'
import { RegoErrors } from '../../core/rego/errors.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { constantValue } from '../../core/rego/eval/prepare.js'
import { parseModule, parseTerm } from '../../core/rego/index.js'
import {
  canonicalNumber,
  compareValues,
  fromJS,
  numberText,
  parseJSON,
  parseNumber,
  toJSONText,
  type Value,
} from '../../core/rego/values/index.js'

/** One case as the JSON files hold it. */
export interface ConformanceCase {
  note: string
  query: string
  modules?: string[]
  data?: unknown
  input?: unknown
  input_term?: string
  want_result?: Array<Record<string, unknown>>
  sort_bindings?: boolean
  want_error_code?: string
  want_error?: string
  strict_error?: boolean
}

/** The outcome of one case. */
export interface CaseOutcome {
  category: string
  note: string
  passed: boolean
  /** Why it failed (expected vs got, or the unexpected error). */
  reason?: string
}

/** The default folder, relative to the repository root. */
export const DEFAULT_FOLDER = '../shared/conformance/rego'

/** Categories (file names without `.json`) and their cases. */
export function loadCases(folder: string): Array<{ category: string; cases: ConformanceCase[] }> {
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const doc = losslessParse(readFileSync(join(folder, f), 'utf8')) as { cases: ConformanceCase[] }
      return { category: basename(f, '.json'), cases: doc.cases }
    })
}

/** JSON text with object keys sorted as strings (non-string keys become strings in JSON). */
function stable(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(stable).join(',')}]`
  if (x && typeof x === 'object' && !isLosslessNumber(x)) {
    const entries = Object.entries(x as Record<string, unknown>).sort((a, b) =>
      a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0,
    )
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`
  }
  // Numbers compare by value, as OPA's harness compares terms: `3.0` (printed as written) is 3.
  if (isLosslessNumber(x)) {
    const n = parseNumber(x.value)
    if (n !== undefined) return numberText(canonicalNumber(n))
  }
  return losslessStringify(x) ?? 'undefined'
}

function canonical(v: Value, sortArrays: boolean): string {
  // OPA's harness sorts the JSON form of a binding: a set inside it is an array by then, so it
  // sorts among arrays (before objects), as the expected side, read from JSON, does.
  const json = parseJSON(toJSONText(v))
  const value = sortArrays && Array.isArray(json) ? [...(json as Value[])].sort(compareValues) : json
  return stable(losslessParse(toJSONText(value)))
}

function resultKey(bindings: Iterable<[string, Value]>, sortArrays: boolean): string {
  const entries = [...bindings].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v, sortArrays)}`).join(',')
}

function errorText(err: unknown): { code: string; text: string } {
  if (err instanceof RegoErrors) {
    const first = err.errors[0]
    return { code: first?.code ?? 'rego_compile_error', text: err.errors.map((e) => e.toString()).join('\n') }
  }
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') {
    return { code: err.code, text: String(err) }
  }
  return { code: 'internal', text: err instanceof Error ? (err.stack ?? err.message) : String(err) }
}

/** Runs one case. */
export async function runCase(category: string, tc: ConformanceCase): Promise<CaseOutcome> {
  const out = (passed: boolean, reason?: string): CaseOutcome =>
    reason === undefined ? { category, note: tc.note, passed } : { category, note: tc.note, passed, reason }
  let results: Array<Map<string, Value>>
  try {
    const modules: Record<string, ReturnType<typeof parseModule>> = {}
    for (const [i, text] of (tc.modules ?? []).entries()) {
      const file = `test-${i}.rego`
      modules[file] = parseModule(text, { file })
    }
    const policy = compilePolicy(modules, tc.data ?? {})
    let input: Value | undefined
    if (tc.input_term !== undefined) {
      input = constantValue(parseTerm(tc.input_term))
    } else if (tc.input !== undefined) {
      input = fromJS(tc.input)
    }
    const run = await policy.prepare(tc.query).eval({
      ...(input !== undefined ? { input } : {}),
      strictBuiltinErrors: tc.strict_error === true,
    })
    results = run.results.map((r) => r.bindings)
  } catch (err) {
    const { code, text } = errorText(err)
    if (tc.want_error_code !== undefined || tc.want_error !== undefined) {
      if (tc.want_error_code !== undefined && code !== tc.want_error_code) {
        return out(false, `want error ${tc.want_error_code}, got ${code}: ${text}`)
      }
      if (tc.want_error !== undefined && !text.includes(tc.want_error)) {
        return out(false, `want error containing ${JSON.stringify(tc.want_error)}, got ${text}`)
      }
      return out(true)
    }
    return out(false, `unexpected error: ${text}`)
  }
  if (tc.want_error_code !== undefined || tc.want_error !== undefined) {
    return out(
      false,
      `want error ${tc.want_error_code ?? ''} ${tc.want_error ?? ''}, got ${results.length} results`,
    )
  }
  if (tc.want_result === undefined) return out(true)
  const sort = tc.sort_bindings === true
  const want = new Set(
    tc.want_result.map((b) =>
      resultKey(
        Object.entries(b).map(([k, v]) => [k, fromJS(v)]),
        sort,
      ),
    ),
  )
  const got = new Set(results.map((b) => resultKey(b, sort)))
  const same = want.size === got.size && [...want].every((k) => got.has(k))
  return same ? out(true) : out(false, `want ${[...want].join(' | ')}\n     got ${[...got].join(' | ')}`)
}

/** Runs every case of every category in `folder`. */
export async function runAll(folder: string, filter?: string): Promise<CaseOutcome[]> {
  const outcomes: CaseOutcome[] = []
  for (const { category, cases } of loadCases(folder)) {
    if (filter && !category.includes(filter)) continue
    for (const tc of cases) outcomes.push(await runCase(category, tc))
  }
  return outcomes
}

/** The per-category table and the final `N passed, M failed` line. */
export function summarize(outcomes: readonly CaseOutcome[]): string {
  const byCategory = new Map<string, { passed: number; failed: number }>()
  for (const o of outcomes) {
    const row = byCategory.get(o.category) ?? { passed: 0, failed: 0 }
    if (o.passed) row.passed++
    else row.failed++
    byCategory.set(o.category, row)
  }
  const width = Math.max(8, ...[...byCategory.keys()].map((k) => k.length))
  const lines = [`${'category'.padEnd(width)}  passed  failed`]
  for (const [cat, row] of byCategory) {
    lines.push(`${cat.padEnd(width)}  ${String(row.passed).padStart(6)}  ${String(row.failed).padStart(6)}`)
  }
  const missing = new Map<string, number>()
  for (const o of outcomes) {
    const m = o.reason?.match(/(?:unsupported built-in function|undefined function): ([\w.]+)/)
    if (m?.[1]) missing.set(m[1], (missing.get(m[1]) ?? 0) + 1)
  }
  if (missing.size > 0) {
    lines.push('', 'missing built-ins (cases):')
    for (const [name, n] of [...missing].sort((a, b) => b[1] - a[1])) lines.push(`  ${name} (${n})`)
  }
  const passed = outcomes.filter((o) => o.passed).length
  lines.push('', `${passed} passed, ${outcomes.length - passed} failed`)
  return lines.join('\n')
}
