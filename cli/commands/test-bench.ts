/**
 * `regent test --bench`: every test that passes is then run as a benchmark (as `opa test
 * --bench`): its query is prepared once and evaluated as Go's `testing.B` would, each evaluation
 * checked to still be `true`. Tests that fail, err or are skipped are reported as `regent test`
 * reports them. Pretty and gobench output print one line per benchmark, `name  N  ns/op  B/op`
 * (gobench names are `BenchmarkDataPkgTestName`); JSON adds OPA's `benchmark_result` (Go's
 * `BenchmarkResult`) to each test result.
 */
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import type { Policy } from '../../core/rego/index.js'
import { type BenchmarkResult, type BenchTime, runBenchmark } from '../bench/measure.js'
import { benchmarkDoc, benchmarkLine } from '../bench/render.js'
import { type Doc, renderJson } from '../presentation.js'
import { runtimeTerm } from '../runtime-term.js'
import { evaluation } from './bench.js'
import type { TestResult } from './test.js'
import { outcome, reportEnd, subResultLines } from './test-report.js'
import { subResults } from './test-sub-results.js'

/** What `regent test` lends the benchmarks: its own test run and result rendering. */
export interface TestBenchHooks {
  /** Runs a test once, as `regent test` does. */
  runTest(test: TestResult['test']): Promise<TestResult>
  /** A result in OPA's test JSON shape. */
  resultDoc(result: TestResult): Doc
}

/** Options of {@link runTestBenchmarks}. */
export interface TestBenchOptions {
  format: string
  benchmem: boolean
  count: number
  benchtime: BenchTime
  /** Time allowed for one test's benchmark (30s unless `--timeout` says otherwise). */
  timeoutMs: number
  /** `-z`: skipped tests do not fail the run. */
  exitZeroOnSkipped: boolean
  /** `-v`: print output of tests that did not pass, and the traces of failures. */
  verbose: boolean
}

interface BenchResult {
  result: TestResult
  benchmark: BenchmarkResult | undefined
}

/** Runs `tests` as benchmarks, prints the report, and resolves to true when the run failed (exit 2). */
export async function runTestBenchmarks(
  policy: Policy,
  tests: Array<TestResult['test']>,
  options: TestBenchOptions,
  hooks: TestBenchHooks,
): Promise<boolean> {
  const results: BenchResult[] = []
  for (let i = 0; i < options.count; i++) {
    for (const test of tests) {
      const result = await hooks.runTest(test)
      const passed = !result.test.skip && !result.fail && result.error === undefined
      let benchmark: BenchmarkResult | undefined
      if (passed) {
        try {
          benchmark = await benchmarkTest(policy, test, options)
        } catch (err) {
          result.error = err instanceof Error ? String(err) : String(err)
        }
      }
      results.push({ result, benchmark })
    }
  }
  if (options.format === 'json') {
    const docs = results.map(({ result, benchmark }) => {
      const doc = hooks.resultDoc(result) as { [key: string]: Doc | undefined }
      if (benchmark) doc.benchmark_result = benchmarkDoc(benchmark)
      return doc
    })
    process.stdout.write(`${renderJson(docs)}\n`)
  } else {
    process.stdout.write(report(results, options))
  }
  return results.some(
    ({ result: r }) => r.fail || r.error !== undefined || (r.test.skip && !options.exitZeroOnSkipped),
  )
}

async function benchmarkTest(
  policy: Policy,
  test: TestResult['test'],
  options: TestBenchOptions,
): Promise<BenchmarkResult> {
  const prepared = policy.prepare(test.query)
  const deadline = Date.now() + options.timeoutMs
  const ignore = () => {}
  // A fresh context (clock, caches) per evaluation, as `regent test` gives each test; print() output discarded.
  const op = evaluation(
    prepared,
    () => ({ ctx: createBuiltinContext({ print: ignore, runtime: runtimeTerm() }), deadline }),
    (run) => {
      const value = run.results[0]?.expressions[0]?.value
      const passed = test.partialObject ? value !== undefined && !subResults(value, []).fail : value === true
      if (!passed) throw new Error('test failed while benchmarking')
    },
  )
  return runBenchmark(op, { benchtime: options.benchtime, benchmem: options.benchmem, timer: undefined })
}

/** OPA's pretty test report with benchmark lines for the tests that passed. */
function report(results: BenchResult[], options: TestBenchOptions): string {
  const lines: string[] = []
  let lastFile = ''
  for (const { result: r, benchmark } of results) {
    const name = `${r.test.pkg}.${r.test.name}`
    if (benchmark && r.error === undefined) {
      // gobench lines leave allocs/op out (not a number here); pretty shows it as n/a.
      if (options.format === 'gobench')
        lines.push(`${goBenchName(name)}\t${benchmarkLine(benchmark, options.benchmem)}`)
      else
        lines.push(
          `${name}\t${benchmarkLine(benchmark, false)}${options.benchmem ? `\t${memString(benchmark)}` : ''}`,
        )
      continue
    }
    const loc = r.test.location
    // OPA's PrettyReporter: a `file:` header (no row) when the file changes, a blank line between files.
    if (loc && loc.file !== lastFile) {
      if (lastFile !== '') lines.push('')
      lines.push(`${loc.file}:`)
      lastFile = loc.file
    }
    lines.push(`${name}: ${outcome(r)}`)
    lines.push(...subResultLines(r, options.verbose))
    if (options.verbose && r.output) lines.push('', ...r.output.split('\n').map((l) => `  ${l}`), '')
    if (r.error !== undefined) lines.push(`  ${r.error}`)
  }
  const tests = results.map(({ result }) => result)
  lines.push(...reportEnd(tests, options.verbose === true, tests.length > 0))
  return `${lines.join('\n')}\n`
}

/** Go's `MemString` with the allocation count Node.js cannot measure shown as n/a. */
function memString(b: BenchmarkResult): string {
  const bytes = b.bytesPerOp === undefined ? 'n/a' : String(b.bytesPerOp)
  return `${bytes.padStart(8)} B/op\t${'n/a'.padStart(8)} allocs/op`
}

/** `data.authz_test.test_admin` as a Go benchmark name: `BenchmarkDataAuthzTestTestAdmin`. */
export function goBenchName(name: string): string {
  const parts = name.replaceAll('_', '.').split('.')
  return `Benchmark${parts.map((p) => (p ? p[0]?.toUpperCase() + p.slice(1) : '')).join('')}`
}
