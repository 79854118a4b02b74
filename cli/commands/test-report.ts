/**
 * What `regent test` and `regent test --bench` print about each test and how both pretty reports
 * end, as `opa test` prints them.
 */
import type { TestResult } from './test.js'
import { eachSubResult } from './test-sub-results.js'

/** Go's `time.Duration` text (`1.234ms`). */
function goDuration(ns: number): string {
  if (ns < 1000) return `${ns}ns`
  if (ns < 1e6) return `${trim(ns / 1e3)}µs`
  if (ns < 1e9) return `${trim(ns / 1e6)}ms`
  return `${trim(ns / 1e9)}s`
}

function trim(x: number): string {
  return x.toFixed(6).replace(/\.?0+$/, '')
}

/** `PASS (1.2ms)`, `FAIL (...)`, `SKIPPED`, `ERROR (...)`. */
export function outcome(r: TestResult): string {
  if (r.test.skip) return 'SKIPPED'
  if (r.error !== undefined) return `ERROR (${goDuration(r.durationNs)})`
  return `${r.fail ? 'FAIL' : 'PASS'} (${goDuration(r.durationNs)})`
}

/**
 * The cases of a parameterized test under its line: every case with `all` (`-v`), else the failed
 * ones; indented two spaces, two more per nesting level (`  case: PASS`).
 */
export function subResultLines(r: TestResult, all: boolean): string[] {
  const lines: string[] = []
  for (const [path, sr] of eachSubResult(r.subResults ?? new Map())) {
    if (sr.fail || all) lines.push(`${'  '.repeat(path.length)}${sr.name}: ${sr.fail ? 'FAIL' : 'PASS'}`)
  }
  return lines
}

/**
 * The end of a pretty report: with `verbose` or `varValues`, every failure again, with its trace
 * (`verbose`) and the expression it failed at, drawn with its variables' values (`varValues`); a
 * rule when `ruled` (something was listed above); then the totals (`PASS: 3/4`, ...).
 */
export function reportEnd(
  results: TestResult[],
  verbose: boolean,
  ruled: boolean,
  varValues = false,
): string[] {
  const lines: string[] = []
  const counts = countResults(results)
  const failures = results.filter((r) => !r.test.skip && r.error === undefined && r.fail)
  if ((verbose || varValues) && counts.fail > 0) {
    lines.push('-'.repeat(80), 'FAILURES', '-'.repeat(80))
    for (const f of failures) {
      lines.push(`${f.test.pkg}.${f.test.name}: ${outcome(f)}`)
      // The trace of the whole test, then (for a parameterized one) each failed case with the
      // cases leading to it, as OPA prints them.
      if (verbose) lines.push('', ...(f.trace ? f.trace.split('\n').map((l) => `  ${l}`) : []))
      if (varValues && f.failure) {
        const at = f.failure
        lines.push('', `  ${at.file}:${at.row}:`, ...at.lines.map((l) => `    ${l}`))
      }
      if (f.subResults && f.subResults.size > 0) {
        lines.push('')
        for (const [path, sr] of eachSubResult(f.subResults)) {
          if (!sr.fail || sr.subResults.size > 0) continue
          for (const [i, name] of path.entries()) lines.push(`${'  '.repeat(i + 1)}${name}: FAIL`)
        }
      }
      lines.push('')
    }
  }
  if (ruled) lines.push('-'.repeat(80))
  const total = counts.pass + counts.fail + counts.skip + counts.error
  if (counts.pass) lines.push(`PASS: ${counts.pass}/${total}`)
  if (counts.fail) lines.push(`FAIL: ${counts.fail}/${total}`)
  if (counts.skip) lines.push(`SKIPPED: ${counts.skip}/${total}`)
  if (counts.error) lines.push(`ERROR: ${counts.error}/${total}`)
  return lines
}

/**
 * OPA's totals: skipped and erroneous tests count once each, a parameterized test counts each
 * of its innermost cases, any other test once.
 */
export function countResults(results: TestResult[]): {
  pass: number
  fail: number
  skip: number
  error: number
} {
  const counts = { pass: 0, fail: 0, skip: 0, error: 0 }
  for (const r of results) {
    if (r.test.skip) counts.skip++
    else if (r.error !== undefined) counts.error++
    else if (r.subResults && r.subResults.size > 0) {
      for (const [, sr] of eachSubResult(r.subResults)) {
        if (sr.subResults.size > 0) continue
        if (sr.fail) counts.fail++
        else counts.pass++
      }
    } else if (r.fail) counts.fail++
    else counts.pass++
  }
  return counts
}
