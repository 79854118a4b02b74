/**
 * `regent eval <query>`: evaluates a Rego query against policies and data, printing OPA's output
 * shapes (json, values, bindings, pretty, raw, discard; source with -p). Exit 1 on errors; `--fail` also on an undefined
 * result, `--fail-defined` on a defined one.
 */
import { Command, Option } from 'commander'
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import { CoverageTracer } from '../../core/rego/eval/coverage.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import type { QueryRun } from '../../core/rego/eval/query.js'
import {
  BufferTracer,
  ProfileTracer,
  prettyTrace,
  type TraceOp,
  type Tracer,
} from '../../core/rego/eval/trace.js'
import {
  DEFAULT_EVALUATION_BUDGET,
  type EvaluationBudget,
  UNLIMITED_EVALUATION_BUDGET,
} from '../../core/rego/index.js'
import type { Import, Module, Package } from '../../core/rego/syntax/ast.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'
import { parseQuery } from '../../core/rego/syntax/query.js'
import { loadCapabilities } from '../capabilities-option.js'
import { type CommandLog, type CommandLogFlags, commandLog, withLogFlags } from '../command-log.js'
import { budgetFromFlags } from '../evaluation-limits.js'
import { schemaCompileOptions } from '../input-schema.js'
import {
  type Doc,
  renderBindings,
  renderJson,
  renderPretty,
  renderRaw,
  renderValues,
  resultDoc,
  sortedDoc,
  table,
} from '../presentation.js'
import { collect, loadQueryPolicy, readQueryInput, withQueryOptions } from '../query-options.js'
import { runtimeTerm } from '../runtime-term.js'
import { readStdin } from '../stdin.js'
import { TEST_BUILTINS, withTestBuiltins, withTestLibraries } from '../test-builtins.js'
import { errorDocs, writeFailure } from './eval-errors.js'
import { missingEntrypoint } from './eval-optimize.js'
import { runPartialEval } from './eval-partial.js'
import { coverageDoc } from './test.js'

// In its own module so that `regent test` can parse --timeout without loading `regent eval`.
export { parseDuration } from '../duration.js'

interface EvalOptions {
  data: string[]
  bundle: string[]
  input?: string
  stdinInput?: boolean
  stdin?: boolean
  package?: string
  import: string[]
  format: string
  fail?: boolean
  failDefined?: boolean
  count: string
  timeout?: string
  metrics?: boolean
  profile?: boolean
  profileLimit: string
  profileSort?: string
  explain: string
  strictBuiltinErrors?: boolean
  showBuiltinErrors?: boolean
  strict?: boolean
  schema?: string
  v0Compatible?: boolean
  instructionLimit?: string
  disableIndexing?: boolean
  disableEarlyExit?: boolean
  ignore: string[]
  prettyLimit: string
  coverage?: boolean
  instrument?: boolean
  partial?: boolean
  unknowns: string[]
  disableInlining: string[]
  shallowInlining?: boolean
  nondeterminsticBuiltins?: boolean
  capabilities?: string
  varValues?: boolean
  entrypoint: string[]
  target: string
  optimize: string
  optimizeStoreForReadSpeed?: boolean
  logLevel: CommandLogFlags['logLevel']
  logFormat: CommandLogFlags['logFormat']
}

function usage(message: string): void {
  process.stderr.write(`regent: ${message}\n`)
  process.exitCode = 2
}

/** Builds the `eval` command. */
export function evalCommand(): Command {
  return (
    withLogFlags(withQueryOptions(new Command('eval')), { level: 'info', format: 'json', timestamp: false })
      .description('evaluate a Rego query')
      .argument('[query]', 'the query to evaluate')
      .addOption(
        new Option('-f, --format <format>', 'output format')
          .choices(['json', 'values', 'bindings', 'pretty', 'source', 'raw', 'discard'])
          .default('json'),
      )
      .option('--fail', 'exit 1 when the result is undefined')
      .option('--fail-defined', 'exit 1 when the result is defined')
      .option('--count <n>', 'evaluate the query n times', '1')
      .option(
        '--timeout <duration>',
        `stop evaluation after this long (e.g. 5s); also applies --instruction-limit's server default (${DEFAULT_EVALUATION_BUDGET.instructionLimit}) unless given`,
      )
      .option('--metrics', 'report timings')
      .option('--profile', 'report per-expression statistics')
      .option('--profile-limit <n>', 'number of profile rows', '10')
      .option('--profile-sort <keys>', 'profile sort order (comma separated)')
      .addOption(
        new Option('--explain <mode>', 'trace evaluation')
          .choices(['off', 'notes', 'fails', 'full'])
          .default('off'),
      )
      .option('--var-values', "with --explain and -f pretty: show the values of each expression's variables")
      .option('--strict-builtin-errors', 'treat built-in errors as fatal')
      .option('--show-builtin-errors', 'report built-in errors that were ignored')
      .option('-S, --strict', 'strict compile checks')
      .option(
        '-s, --schema <path>',
        'JSON Schema of input (a file), or a directory of schemas for METADATA schemas annotations',
      )
      .option(
        '--capabilities <version-or-file>',
        'capabilities JSON file or version: the built-ins allowed, allow_net the hosts http.send may reach',
      )
      .option('--instruction-limit <n>', 'maximum units of work (expressions, iterations, built-in output)')
      .option('--disable-indexing', 'evaluate every rule (no rule indexing)')
      .option('--disable-early-exit', 'evaluate every rule body (no early exit)')
      .option('--pretty-limit <n>', 'truncate values in pretty output', '80')
      .option('--coverage', 'report coverage of the evaluated policies')
      .option('--instrument', 'report detailed metrics (implies --metrics)')
      .option('-p, --partial', 'partially evaluate the query (residual queries and support modules)')
      .option(
        '-u, --unknowns <ref>',
        'ref treated as unknown by --partial (repeatable; default input)',
        collect,
        [],
      )
      .option(
        '--disable-inlining <ref>',
        'rule kept as a support rule by --partial (repeatable)',
        collect,
        [],
      )
      .option('--shallow-inlining', '--partial keeps rules that depend on unknowns as support rules')
      // OPA's flag, misspelling included.
      .option('--nondeterminstic-builtins', '--partial evaluates non-deterministic built-ins (http.send, …)')
      .addOption(
        new Option(
          '-t, --target <target>',
          'evaluation target: rego (wasm: refused, regent has no Wasm engine)',
        )
          .choices(['rego', 'wasm'])
          .default('rego'),
      )
      .option(
        '-e, --entrypoint <path>',
        'accepted for compatibility; entrypoints choose what a Wasm build compiles, rego evaluates the query (repeatable)',
        collect,
        [],
      )
      .option(
        '-O, --optimize <level>',
        'accepted for compatibility; results are the same at every level; with -d or -b above 0 it needs an entrypoint, as opa does',
        '0',
      )
      .option(
        '--optimize-store-for-read-speed',
        'accepted for compatibility; regent keeps data as in-memory values already read without copies',
      )
      .action(async (queryArg: string | undefined, options: EvalOptions) => {
        if (options.target === 'wasm')
          return usage(
            '-t wasm is not available: regent has no Wasm engine; use -t rego (the default), which gives the same results',
          )
        if (!/^\d+$/.test(options.optimize)) return usage(`-O ${options.optimize}: expected a whole number`)
        // OPA builds an optimized bundle from one source: plain files or bundles, not both.
        if (Number(options.optimize) > 0 && options.data.length > 0 && options.bundle.length > 0)
          return usage('specify either --data or --bundle flag with optimization level greater than 0')
        const bad = options.entrypoint.find((e) => !/^\/?[\w.-]+(\/[\w.-]+)*$/.test(e))
        if (bad !== undefined) return usage(`-e ${bad}: expected a slash-separated path such as authz/allow`)
        if (options.stdin && options.stdinInput) return usage('--stdin and --stdin-input cannot be combined')
        const query = options.stdin ? await readStdin() : queryArg
        if (!query) return usage('missing query (give it as an argument or with --stdin)')
        const count = Number(options.count)
        if (!Number.isInteger(count) || count < 1) return usage(`invalid --count ${options.count}`)
        let limits: EvalLimits
        try {
          limits = evalLimits(options)
        } catch (err) {
          return usage((err as Error).message)
        }
        // OPA's `source` format prints partial evaluation results only (without -p, opa crashes).
        if (options.format === 'source' && !options.partial)
          return usage('-f source prints partial evaluation results: add -p/--partial')
        if (options.instrument) options.metrics = true
        if (options.partial) return runPartialEval(query, options, limits)
        await runEval(query, options, count, limits, commandLog(options))
      })
  )
}

/** What bounds one `regent eval`: the budget (docs/limits.md). */
export interface EvalLimits {
  budget: EvaluationBudget
}

/**
 * `--timeout` bounds time and, as every budget, work: the default instruction limit applies
 * unless `--instruction-limit` sets one (a deadline alone cannot stop a built-in that allocates
 * gigabytes in one call). Without either flag evaluation is unlimited, as OPA's.
 */
function evalLimits(options: EvalOptions): EvalLimits {
  const budget = budgetFromFlags(
    { timeout: options.timeout, instructionLimit: options.instructionLimit },
    { timeout: '--timeout', instructionLimit: '--instruction-limit' },
    options.timeout !== undefined
      ? { ...UNLIMITED_EVALUATION_BUDGET, instructionLimit: DEFAULT_EVALUATION_BUDGET.instructionLimit }
      : UNLIMITED_EVALUATION_BUDGET,
  )
  return { budget }
}

async function runEval(
  query: string,
  options: EvalOptions,
  count: number,
  limits: EvalLimits,
  log: CommandLog,
) {
  const timers: Record<string, number> = {}
  const time = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
    const start = process.hrtime.bigint()
    try {
      return await f()
    } finally {
      timers[name] = (timers[name] ?? 0) + Number(process.hrtime.bigint() - start)
    }
  }
  let run: QueryRun | undefined
  let tracer: Tracer | undefined
  let loadedModules: Map<string, Module> | undefined
  try {
    const loaded = await time('timer_rego_load_files_ns', () => loadQueryPolicy(options))
    const unoptimizable = missingEntrypoint(loaded.modules, options)
    if (unoptimizable) return usage(unoptimizable)
    const input = await readQueryInput(options)
    loadedModules = loaded.modules
    log.debug('policies and data loaded', { modules: [...loaded.modules.keys()], input: input !== undefined })
    const schema = await schemaCompileOptions(options.schema)
    const capabilities = await loadCapabilities(options.capabilities)
    const policy = await time('timer_rego_module_compile_ns', () =>
      compilePolicy(withTestLibraries(loaded.modules, query), loaded.data, {
        strict: options.strict === true,
        ...schema,
        builtins: capabilities ? withTestBuiltins(capabilities.builtins) : TEST_BUILTINS,
      }),
    )
    // The --import imports decide the query's keywords (OPA's rego.parseQuery), so they come first.
    const context = queryContext(options)
    const body = await time('timer_rego_query_parse_ns', () =>
      parseQuery(query, context.imports ? { imports: context.imports } : {}),
    )
    const prepared = await time('timer_rego_query_compile_ns', () => policy.prepare(body, context))
    for (let i = 0; i < count; i++) {
      tracer =
        options.explain !== 'off'
          ? new BufferTracer({ varValues: options.varValues === true, names: policy.compiler.rewrittenVars })
          : options.profile
            ? new ProfileTracer()
            : options.coverage
              ? new CoverageTracer()
              : undefined
      const ctx = createBuiltinContext({
        strictBuiltinErrors: options.strictBuiltinErrors === true,
        runtime: runtimeTerm(),
        ...(capabilities?.allowNet ? { allowNet: capabilities.allowNet } : {}),
      })
      run = await time('timer_rego_query_eval_ns', () =>
        prepared.eval({
          ctx,
          ...(input !== undefined ? { input } : {}),
          strictBuiltinErrors: options.strictBuiltinErrors === true,
          indexing: !options.disableIndexing,
          earlyExit: !options.disableEarlyExit,
          budget: limits.budget,
          ...(tracer ? { tracer } : {}),
        }),
      )
    }
  } catch (err) {
    log.debug('evaluation failed', { error: err instanceof Error ? err.message : String(err) })
    writeFailure(err, options)
    return
  }
  const results = run?.results ?? []
  log.debug('query evaluated', { results: results.length, timers })
  const builtinErrors = options.showBuiltinErrors ? (run?.builtinErrors ?? []) : []
  const coverage =
    tracer instanceof CoverageTracer && loadedModules ? coverageDoc(tracer.report(loadedModules)) : undefined
  writeResults(results, builtinErrors, options, timers, tracer, coverage)
  // Shown built-in errors are a report, not a failure: OPA still exits 0 (the result stands).
  if (options.fail && results.length === 0) process.exitCode = 1
  if (options.failDefined && results.length > 0) process.exitCode = 1
}

function queryContext(options: EvalOptions): { package?: Package; imports?: Import[] } {
  if (!options.package && options.import.length === 0) return {}
  const pkg = options.package ?? '__regent_query__'
  const mod = parseModule(`package ${pkg}\n${options.import.map((i) => `import ${i}`).join('\n')}\n`, {
    file: 'query',
  })
  return { ...(options.package ? { package: mod.package } : {}), imports: mod.imports }
}

function writeResults(
  results: QueryRun['results'],
  builtinErrors: QueryRun['builtinErrors'],
  options: EvalOptions,
  timers: Record<string, number>,
  tracer: Tracer | undefined,
  coverage: Doc | undefined,
): void {
  const explainOps: Record<string, ReadonlySet<TraceOp> | undefined> = {
    notes: new Set<TraceOp>(['Note']),
    fails: new Set<TraceOp>(['Fail']),
    full: undefined,
  }
  const events = tracer instanceof BufferTracer ? tracer.events : []
  const ops = explainOps[options.explain]
  const limit = Number(options.profileLimit)
  const profile =
    tracer instanceof ProfileTracer
      ? tracer.results(options.profileSort?.split(',')).slice(0, Number.isInteger(limit) ? limit : 10)
      : []
  switch (options.format) {
    case 'json':
    case 'discard': {
      const doc: { [key: string]: Doc | undefined } = {}
      if (options.metrics) doc.metrics = Object.fromEntries(Object.entries(timers).sort())
      if (coverage) doc.coverage = coverage
      if (builtinErrors.length > 0) doc.errors = builtinErrors.map((e) => errorDocs(e)[0] as Doc)
      // `discard` keeps everything but the result, for timing or checking errors of big results.
      if (results.length > 0) doc.result = options.format === 'discard' ? 'discarded' : results.map(resultDoc)
      if (options.explain !== 'off') {
        doc.explanation = events
          .filter((ev) => !ops || ops.has(ev.op))
          .map((ev) => ({
            op: ev.op,
            message: ev.text,
            location: ev.location
              ? { file: ev.location.file, row: ev.location.row, col: ev.location.col }
              : undefined,
          }))
      }
      if (profile.length > 0) {
        doc.profile = profile.map((p) => ({
          total_time_ns: p.totalTimeNs,
          num_eval: p.numEval,
          num_redo: p.numRedo,
          location: { file: p.location.file, row: p.location.row, col: p.location.col },
        }))
      }
      process.stdout.write(`${renderJson(options.format === 'discard' ? sortedDoc(doc) : doc)}\n`)
      return
    }
    case 'values':
      process.stdout.write(renderValues(results))
      return
    case 'bindings':
      process.stdout.write(renderBindings(results))
      return
    case 'raw':
      process.stdout.write(renderRaw(results))
      return
    default: {
      if (options.explain !== 'off') process.stdout.write(`${prettyTrace(events, ops)}\n`)
      for (const e of builtinErrors) process.stderr.write(`${String(e)}\n`)
      process.stdout.write(renderPretty(results, Number(options.prettyLimit)))
      if (options.metrics) {
        process.stdout.write(
          table(
            ['Metric', 'Value'],
            Object.entries(timers)
              .sort()
              .map(([k, v]) => [k, String(v)]),
          ),
        )
      }
      if (profile.length > 0) {
        process.stdout.write(
          table(
            ['Time', 'Num Eval', 'Num Redo', 'Location'],
            profile.map((p) => [
              `${(p.totalTimeNs / 1e3).toFixed(1)}µs`,
              String(p.numEval),
              String(p.numRedo),
              `${p.location.file}:${p.location.row}`,
            ]),
          ),
        )
      }
    }
  }
}
