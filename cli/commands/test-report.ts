/**
 * What `regent test` and `regent test --bench` print about each test and how both pretty reports
 * end, as `opa test` prints them.
 */
import type { TestResult } from './test.js'

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
 * The end of a pretty report: with `verbose`, every failure again with its trace; a rule when
 * `ruled` (something was listed above); then the totals (`PASS: 3/4`, ...).
 */
export function reportEnd(results: TestResult[], verbose: boolean, ruled: boolean): string[] {
  const lines: string[] = []
  const failures = results.filter((r) => r.fail)
  if (verbose && failures.length > 0) {
    lines.push('-'.repeat(80), 'FAILURES', '-'.repeat(80))
    for (const f of failures) {
      lines.push(`${f.test.pkg}.${f.test.name}: ${outcome(f)}`)
      if (f.trace) lines.push('', ...f.trace.split('\n').map((l) => `  ${l}`))
      lines.push('')
    }
  }
  if (ruled) lines.push('-'.repeat(80))
  const counts = { pass: 0, fail: 0, skip: 0, error: 0 }
  for (const r of results) {
    if (r.test.skip) counts.skip++
    else if (r.error !== undefined) counts.error++
    else if (r.fail) counts.fail++
    else counts.pass++
  }
  const total = results.length
  if (counts.pass) lines.push(`PASS: ${counts.pass}/${total}`)
  if (counts.fail) lines.push(`FAIL: ${counts.fail}/${total}`)
  if (counts.skip) lines.push(`SKIPPED: ${counts.skip}/${total}`)
  if (counts.error) lines.push(`ERROR: ${counts.error}/${total}`)
  if (total === 0) lines.push('no tests found')
  return lines
}
