/**
 * `regent test <path>...`: runs every rule named `test_*` (skipping `todo_test_*`) and reports
 * PASS, FAIL, SKIPPED or ERROR as `opa test` does. A test passes when its value is `true`; each
 * definition of a name is a test of its own (`test_x`, `test_x#01`, ...), and a parameterized
 * test (`test_x[case] if ...`) passes when every case does, each case reported. Exit 0 when all
 * pass, 2 on failures and errors (and skipped tests unless `-z`), 1 when policies do not load or
 * compile or `--run` is not a valid regular expression.
 */
import { Command, Option } from 'commander'
import type { RE2JS } from 're2js'
import { loadPolicy } from '../../core/bundle/policy-files.js'
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import { re2 } from '../../core/rego/builtins/re2.js'
import { RegoErrors } from '../../core/rego/errors.js'
import { type CoverageReport, CoverageTracer } from '../../core/rego/eval/coverage.js'
import { isEvalError } from '../../core/rego/eval/errors.js'
import { compilePolicy, type Policy } from '../../core/rego/eval/policy.js'
import { BufferTracer, prettyTrace, type TraceOp, type Tracer } from '../../core/rego/eval/trace.js'
import type { Value } from '../../core/rego/values/index.js'
import type { BenchTime } from '../bench/measure.js'
import { type CommandLogFlags, commandLog, withLogFlags } from '../command-log.js'
import { parseDuration } from '../duration.js'
import { type Doc, renderJson } from '../presentation.js'
import { collect } from '../query-options.js'
import { runtimeTerm } from '../runtime-term.js'
import { TEST_BUILTINS, withTestBuiltins, withTestLibraries } from '../test-builtins.js'
import { discoverTests, type TestCase } from './test-discovery.js'
import { testBootstrapCommand, testNewCommand } from './test-generate-commands.js'
import { logResults } from './test-log.js'
import { PARALLEL_MIN_TESTS, parallelism, runTestsInWorkers } from './test-parallel.js'
import { outcome, reportEnd, subResultLines } from './test-report.js'
import { type SubResultMap, subResults, subResultsDoc } from './test-sub-results.js'
import { failureDiagram, lastFailure } from './test-var-values.js'

export interface TestOptions extends Partial<CommandLogFlags> {
  parallel: string
  /** Record the values of each traced expression's variables (`--var-values`). */
  varValues?: boolean
  watch?: boolean
  verbose?: boolean
  run?: string
  format: string
  timeout: string
  target: string
  coverage?: boolean
  threshold: string
  exitZeroOnSkipped?: boolean
  count: string
  bundle?: boolean
  explain?: string
  ignore: string[]
  v0Compatible?: boolean
  capabilities?: string
  maxErrors: string
  bench?: boolean
  benchmem: boolean
  benchtime: string
}

/** Why `-t wasm` is refused, with the alternative. */
export const WASM_REFUSAL =
  '-t wasm is not supported: regent has no WebAssembly runtime; use -t rego (the default), which runs the same tests'

/** One test's outcome. */
export interface TestResult {
  test: TestCase
  fail: boolean
  error: string | undefined
  /** The error as OPA's JSON reporter writes it (`{code, message, location}` of an evaluation error). */
  errorJson?: { code?: string; message: string; location?: { file: string; row: number; col: number } }
  durationNs: number
  output: string
  trace: string
  /**
   * With `--var-values`: where the test failed and the drawing of the failed expression with its
   * variables' values (plain lines, so that a worker thread can post it).
   */
  failure?: { file: string; row: number; lines: string[] }
  /** The cases of a parameterized test (OPA's `sub_results`). */
  subResults: SubResultMap | undefined
}

/** Builds the `test` command. */
export function testCommand(): Command {
  // The log flags as `regent eval` has them: lines on stderr, JSON at info by default.
  return withLogFlags(
    new Command('test')
      // `test bootstrap -f` is the subcommand's --force, not test's --format.
      .enablePositionalOptions()
      .addCommand(testBootstrapCommand())
      .addCommand(testNewCommand())
      .description('run Rego tests (rules named test_*)')
      .argument('<path...>', 'files or directories with policies, tests and data')
      .option('-v, --verbose', 'report every test, with traces of failures')
      .option('-r, --run <regex>', 'only run tests whose full name matches')
      .addOption(
        new Option('-f, --format <format>', 'output format (gobench with --bench)')
          .choices(['pretty', 'json', 'gobench'])
          .default('pretty'),
      )
      // `-t` is the target, as in `opa test`; the timeout has no short form there.
      .addOption(
        new Option('-t, --target <target>', 'runtime to exercise (wasm is not available in regent)')
          .choices(['rego', 'wasm'])
          .default('rego'),
      )
      .option('--timeout <duration>', 'timeout per test (30s with --bench)', '5s')
      .option('-c, --coverage', 'report coverage (JSON)')
      .option('--threshold <percent>', 'fail when coverage is below this percentage', '0')
      .option('-z, --exit-zero-on-skipped', 'skipped tests do not fail the run')
      .option('--count <n>', 'run the tests n times', '1')
      .option('-b, --bundle', 'load paths as bundles')
      .addOption(
        new Option('--explain <mode>', 'trace mode for verbose output').choices(['fails', 'full', 'notes']),
      )
      .option('--ignore <glob>', 'file names to skip', collect, [])
      .option('--v0-compatible', 'parse with Rego v0 syntax')
      .option(
        '--capabilities <version-or-file>',
        'the built-ins the compiler knows: a capabilities JSON file (may declare functions of other tools, for tests that mock them) or a version',
      )
      .option('-m, --max-errors <n>', 'stop compiling after this many errors', '10')
      .option('--bench', 'benchmark the tests that pass (see regent bench)')
      .option('--benchmem', 'report heap bytes per evaluation with --bench', true)
      .option('--no-benchmem', 'do not measure memory with --bench')
      .option(
        '--benchtime <t>',
        'with --bench: run each benchmark this long (1s) or this many times (100x)',
        '1s',
      )
      .option(
        '-p, --parallel <n>',
        `test threads (worker threads; suites under ${PARALLEL_MIN_TESTS} tests and coverage runs use one)`,
        '2',
      )
      .option('-w, --watch', 'run again whenever a file under the paths changes')
      .option(
        '--var-values',
        'show the values of the variables of failed expressions (under each failure; in traces with -v)',
      ),
    { level: 'info', format: 'json', timestamp: false },
  ).action(async (paths: string[], options: TestOptions, command: Command) => {
    if (!/^[1-9][0-9]*$/.test(options.parallel)) {
      process.stderr.write(`regent: --parallel must be a positive whole number, got ${options.parallel}\n`)
      process.exitCode = 2
      return
    }
    if (options.watch) {
      // The watcher loads only with --watch.
      const { watchAndRun } = await import('./test-watch.js')
      await watchAndRun(paths, () => runOnce(paths, options, command))
      return
    }
    await runOnce(paths, options, command)
  })
}

/** One run of the tests as the flags ask; sets `process.exitCode`. */
async function runOnce(paths: string[], options: TestOptions, command: Command): Promise<void> {
  process.exitCode = 0
  if (options.target === 'wasm') {
    // OPA fails a run whose runtime is missing with exit 1; regent never has a Wasm runtime.
    process.stderr.write(`regent: ${WASM_REFUSAL}\n`)
    process.exitCode = 1
    return
  }
  const threshold = Number(options.threshold)
  if (!(threshold >= 0 && threshold <= 100)) {
    process.stderr.write('Code coverage threshold must be between 0 and 100\n')
    process.exitCode = 1
    return
  }
  if (options.format === 'gobench' && !options.bench) {
    process.stderr.write('regent: -f gobench needs --bench\n')
    process.exitCode = 2
    return
  }
  if (options.bench && (options.coverage || threshold > 0)) {
    process.stderr.write('regent: --bench cannot be combined with coverage\n')
    process.exitCode = 2
    return
  }
  // Spec: the test timeout is 5s, 30s when benchmarking.
  if (options.bench && command.getOptionValueSource('timeout') === 'default') options.timeout = '30s'
  let timeoutMs: number
  let benchtime: BenchTime | undefined
  try {
    timeoutMs = parseDuration(options.timeout)
    // The benchmark modules (and `regent bench`'s end-to-end server) load only with --bench.
    if (options.bench) benchtime = (await import('./bench.js')).parseBenchTime(options.benchtime)
  } catch (err) {
    process.stderr.write(`regent: ${(err as Error).message}\n`)
    process.exitCode = 2
    return
  }
  if (options.explain) options.verbose = true
  const log = commandLog({ logLevel: options.logLevel ?? 'info', logFormat: options.logFormat ?? 'json' })
  let policy: Policy
  let loaded: Awaited<ReturnType<typeof loadPolicy>>
  try {
    ;({ policy, loaded } = await loadTestPolicy(paths, options))
  } catch (err) {
    process.stderr.write(`${err instanceof RegoErrors ? err.toString() : (err as Error).message}\n`)
    process.exitCode = 1
    return
  }
  log.debug('policies loaded', { modules: loaded.modules.size })
  let filter: RE2JS | undefined
  try {
    // Go's regexp syntax, as `opa test -r` reads it.
    filter = options.run ? re2().compile(options.run) : undefined
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`)
    process.exitCode = 1
    return
  }
  const tests = discoverTests(policy, filter)
  log.debug('tests discovered', { tests: tests.length })
  if (benchtime) {
    const { runTestBenchmarks } = await import('./test-bench.js')
    const failed = await runTestBenchmarks(
      policy,
      tests,
      {
        format: options.format,
        benchmem: options.benchmem,
        count: Math.max(1, Number(options.count) || 1),
        benchtime,
        timeoutMs,
        exitZeroOnSkipped: options.exitZeroOnSkipped === true,
        verbose: options.verbose === true,
      },
      {
        runTest: (t) => runTest(policy, t, timeoutMs, options, undefined),
        resultDoc,
      },
    )
    if (failed) process.exitCode = 2
    return
  }
  const coverage = options.coverage || threshold > 0 ? new CoverageTracer() : undefined
  const parallel = parallelism(options.parallel, tests.length, coverage !== undefined)
  let results: TestResult[] = []
  for (let i = 0; i < Math.max(1, Number(options.count) || 1); i++) {
    if (parallel > 1) {
      results = await runTestsInWorkers(paths, options, tests, parallel, timeoutMs, (t) =>
        runTest(policy, t, timeoutMs, options, undefined),
      )
      continue
    }
    results = []
    for (const t of tests) results.push(await runTest(policy, t, timeoutMs, options, coverage))
  }
  const failed = results.some(
    (r) => r.error !== undefined || r.fail || (r.test.skip && !options.exitZeroOnSkipped),
  )
  logResults(log, results)
  if (coverage) {
    const report = coverage.report(loaded.modules)
    // As OPA's coverage reporter: an error is printed alone, failures are reported and the
    // first one repeated on stderr; both exit 1 (only a missed threshold exits 2).
    const errored = results.find((r) => r.error !== undefined)
    if (errored) {
      process.stderr.write(`${errored.error}\n`)
      process.exitCode = 1
      return
    }
    const failures = results.filter((r) => r.fail)
    if (failures.length > 0) {
      process.stdout.write(pretty(failures, options))
      const first = failures[0] as TestResult
      process.stderr.write(
        `${[`${first.test.pkg}.${first.test.name}: ${outcome(first)}`, ...subResultLines(first, true)].join('\n')}\n\n`,
      )
      process.exitCode = 1
      return
    }
    if (report.coverage < threshold) {
      process.stderr.write(
        `Code coverage threshold not met: got ${report.coverage.toFixed(2)} instead of ${threshold.toFixed(2)}\n`,
      )
      process.exitCode = 2
      return
    }
    process.stdout.write(`${renderJson(coverageDoc(report))}\n`)
  } else if (options.format === 'json') {
    process.stdout.write(`${renderJson(results.map(resultDoc))}\n`)
  } else {
    process.stdout.write(pretty(results, options))
  }
  if (failed) process.exitCode = 2
}

/** Loads and compiles the policies and tests under `paths` as the flags say (also in workers). */
export async function loadTestPolicy(
  paths: string[],
  options: Pick<
    TestOptions,
    'bundle' | 'ignore' | 'v0Compatible' | 'maxErrors' | 'capabilities' | 'varValues'
  >,
): Promise<{ policy: Policy; loaded: Awaited<ReturnType<typeof loadPolicy>> }> {
  const loaded = await loadPolicy({
    paths: options.bundle ? [] : paths,
    bundles: options.bundle ? paths : [],
    ignore: options.ignore,
    allDataFiles: true,
    ...(options.v0Compatible ? { v0: true } : {}),
  })
  // Loaded only with the flag: the release capabilities tables are not needed by a plain run.
  const capabilities = options.capabilities
    ? await (await import('../capabilities-option.js')).loadCapabilities(options.capabilities)
    : undefined
  const policy = compilePolicy(withTestLibraries(loaded.modules), loaded.data, {
    maxErrors: Number(options.maxErrors) || 0,
    tests: true,
    // --var-values shows the values of compared refs too: they are bound to variables first.
    ...(options.varValues ? { traceTestRules: true } : {}),
    builtins: capabilities ? withTestBuiltins(capabilities.builtins) : TEST_BUILTINS,
  })
  return { policy, loaded }
}

/** Runs one test (exported for the worker threads of `-p`). */
export async function runTest(
  policy: Policy,
  test: TestCase,
  timeoutMs: number,
  options: TestOptions,
  coverage: Tracer | undefined,
): Promise<TestResult> {
  const result: TestResult = {
    test,
    fail: false,
    error: undefined,
    durationNs: 0,
    output: '',
    trace: '',
    subResults: undefined,
  }
  if (test.skip) return result
  const output: string[] = []
  // `--var-values` needs the trace even without -v: the failed expressions are shown with values.
  const buffer =
    options.verbose || options.varValues
      ? new BufferTracer({ varValues: options.varValues === true, names: policy.compiler.rewrittenVars })
      : undefined
  const tracer = coverage ?? buffer
  const start = process.hrtime.bigint()
  try {
    const reached: Value[] = []
    const ctx = createBuiltinContext({
      print: (m) => output.push(m),
      testCase: (c) => reached.push(c),
      runtime: runtimeTerm(),
    })
    const run = await policy.prepare(test.query).eval({
      ctx,
      deadline: Date.now() + timeoutMs,
      ...(tracer ? { tracer } : {}),
    })
    const first = run.results[0]?.expressions[0]
    if (!first) {
      result.fail = true
    } else if (test.partialObject) {
      const cases = subResults(first.value, reached)
      result.fail = cases.fail
      result.subResults = cases.cases
    } else {
      result.fail = first.value !== true
    }
  } catch (err) {
    result.error = err instanceof Error ? String(err) : String(err)
    if (isEvalError(err)) result.errorJson = err.toJSON()
  }
  result.durationNs = Number(process.hrtime.bigint() - start)
  result.output = output.join('\n')
  if (buffer && (result.fail || options.explain)) {
    const modes: Record<string, Set<TraceOp> | undefined> = {
      fails: new Set<TraceOp>(['Fail']),
      notes: new Set<TraceOp>(['Note']),
      full: undefined,
    }
    const ops = options.explain
      ? modes[options.explain]
      : new Set<TraceOp>(options.verbose ? ['Note', 'Fail'] : ['Fail'])
    result.trace = prettyTrace(buffer.events, ops)
    if (result.fail && options.varValues) {
      const failure = lastFailure(buffer.events)
      if (failure)
        result.failure = {
          file: failure.location.file,
          row: failure.location.row,
          lines: failureDiagram(failure),
        }
    }
  }
  return result
}

function pretty(results: TestResult[], options: TestOptions): string {
  const lines: string[] = []
  let lastFile = ''
  let dirty = false
  for (const r of results) {
    const passed = !r.test.skip && r.error === undefined && !r.fail
    if (!options.verbose && passed) continue
    const loc = r.test.location
    // OPA's PrettyReporter: a `file:` header (no row) when the file changes, a blank line between files.
    if (loc && loc.file !== lastFile) {
      if (lastFile !== '') lines.push('')
      lines.push(`${loc.file}:`)
      lastFile = loc.file
    }
    dirty = true
    lines.push(`${r.test.pkg}.${r.test.name}: ${outcome(r)}`)
    lines.push(...subResultLines(r, options.verbose === true))
    if (r.output)
      lines.push(
        '',
        ...r.output
          .trim()
          .split('\n')
          .map((l) => `  ${l}`),
        '',
      )
    if (r.error !== undefined) lines.push(`  ${r.error}`)
  }
  lines.push(...reportEnd(results, options.verbose === true, dirty, options.varValues === true))
  return `${lines.join('\n')}\n`
}

function resultDoc(r: TestResult): Doc {
  const loc = r.test.location
  return {
    location: loc ? { file: loc.file, row: loc.row, col: loc.col } : null,
    package: r.test.pkg,
    name: r.test.name,
    fail: r.fail ? true : undefined,
    error: r.error !== undefined ? (r.errorJson ?? { message: r.error }) : undefined,
    skip: r.test.skip ? true : undefined,
    duration: r.durationNs,
    output: r.output ? Buffer.from(`${r.output}\n`).toString('base64') : undefined,
    sub_results: r.subResults && r.subResults.size > 0 ? subResultsDoc(r.subResults) : undefined,
  }
}

/** A coverage report in OPA's JSON shape (`cover.Report`). */
export function coverageDoc(report: CoverageReport): Doc {
  const files: { [key: string]: Doc } = {}
  for (const [file, f] of report.files) {
    files[file] = {
      covered: f.covered.length > 0 ? f.covered.map((r) => ({ start: r.start, end: r.end })) : undefined,
      not_covered:
        f.notCovered.length > 0 ? f.notCovered.map((r) => ({ start: r.start, end: r.end })) : undefined,
      covered_lines: f.coveredLines || undefined,
      not_covered_lines: f.notCoveredLines || undefined,
      coverage: f.coverage || undefined,
    }
  }
  return {
    files,
    covered_lines: report.coveredLines,
    not_covered_lines: report.notCoveredLines,
    coverage: report.coverage,
  }
}
