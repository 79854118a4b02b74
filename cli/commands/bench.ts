/**
 * `regent bench <query>`: evaluates a query over and over and prints how long one evaluation
 * takes, as `opa bench` does. The query is loaded, compiled and prepared once (as `regent eval`
 * does it); only evaluations are timed. Each run grows its iteration count as Go's `testing.B`
 * does until the timed evaluations add up to `--benchtime` (1s), and reports Go's
 * `BenchmarkResult`: as a table (pretty), as JSON, or in the Go benchmark text format (gobench).
 * Measuring is in cli/bench/measure.ts, printing in cli/bench/render.ts. Allocation counts cannot
 * be measured in Node.js and are reported as `n/a` (null in JSON, left out of gobench lines).
 * With `--e2e` each operation is an HTTP request to a `regent run -s` server started in process
 * (cli/bench/e2e.ts), and the request's round trip is the timer reported.
 */
import { Command, Option } from 'commander'
import { AsyncCallNeeded } from '../../core/rego/eval/calls.js'
import type { Import, Package, PreparedQuery, QueryOptions, QueryRun } from '../../core/rego/index.js'
import {
  compile,
  type PartialResult,
  parseModule,
  parseQuery,
  partialEvaluate,
  partialEvaluateSync,
  RegoErrors,
} from '../../core/rego/index.js'
import { type E2eBench, startE2eBench } from '../bench/e2e.js'
import {
  type BenchmarkResult,
  type BenchmarkSettings,
  type BenchTime,
  type Operation,
  runBenchmark,
} from '../bench/measure.js'
import { renderBenchmark } from '../bench/render.js'
import { schemaCompileOptions } from '../input-schema.js'
import { renderJson } from '../presentation.js'
import { collect, loadQueryPolicy, readQueryInput, withQueryOptions } from '../query-options.js'
import { readStdin } from '../stdin.js'
import { parseDuration } from './eval.js'
import { errorDocs } from './eval-errors.js'

interface BenchOptions {
  data: string[]
  bundle: string[]
  input?: string
  stdinInput?: boolean
  stdin?: boolean
  package?: string
  import: string[]
  ignore: string[]
  v0Compatible?: boolean
  format: string
  fail: boolean
  benchmem: boolean
  metrics: boolean
  count: string
  benchtime: string
  partial?: boolean
  unknowns: string[]
  e2e?: boolean
  configFile?: string
  schema?: string
  target: string
  shutdownGracePeriod: string
  shutdownWaitPeriod: string
  optimizeStoreForReadSpeed?: boolean
}

/** Parses Go's `-benchtime` syntax: a duration (`1s`, `200ms`) or an iteration count (`100x`). */
export function parseBenchTime(text: string): BenchTime {
  const count = /^(\d+)x$/.exec(text)
  if (count) {
    const iterations = Number(count[1])
    if (iterations < 1) throw new Error(`invalid --benchtime ${JSON.stringify(text)}`)
    return { iterations }
  }
  const ms = parseDuration(text)
  if (!(ms > 0)) throw new Error(`invalid --benchtime ${JSON.stringify(text)}`)
  return { ns: ms * 1e6 }
}

/** Builds the `bench` command. */
export function benchCommand(): Command {
  return withQueryOptions(new Command('bench'))
    .description('benchmark a Rego query (repeat an evaluation and print performance results)')
    .argument('[query]', 'the query to benchmark')
    .addOption(
      new Option('-f, --format <format>', 'output format')
        .choices(['pretty', 'json', 'gobench'])
        .default('pretty'),
    )
    .option('--fail', 'exit 1 on an undefined or empty result and on errors', true)
    .option('--no-fail', 'report undefined or empty results as normal evaluations')
    .option('--benchmem', 'report heap bytes allocated per evaluation', true)
    .option('--no-benchmem', 'do not measure memory')
    .option('--metrics', 'report histograms of the evaluation timer', true)
    .option('--no-metrics', 'do not report timer histograms')
    .option('--count <n>', 'number of benchmark runs', '1')
    .option('--benchtime <t>', 'run each benchmark for this long (1s, 200ms) or this many times (100x)', '1s')
    .option('-p, --partial', 'benchmark partial evaluation instead of evaluation')
    .option(
      '-u, --unknowns <ref>',
      'ref treated as unknown by --partial (repeatable; default input)',
      collect,
      [],
    )
    .option('--e2e', 'benchmark over HTTP against a regent run -s server started in this process')
    .option('-c, --config-file <path>', 'configuration file of the --e2e server (see the notice)')
    .option(
      '-s, --schema <path>',
      'JSON Schema of input (a file), or a directory of schemas for METADATA schemas annotations',
    )
    .addOption(
      new Option('-t, --target <target>', 'runtime to benchmark (wasm is not available in regent)')
        .choices(['rego', 'wasm'])
        .default('rego'),
    )
    .option(
      '--shutdown-grace-period <seconds>',
      'with --e2e: seconds in-flight requests get at shutdown',
      '10',
    )
    .option('--shutdown-wait-period <seconds>', 'with --e2e: seconds to wait before shutting down', '0')
    .option('--optimize-store-for-read-speed', 'accepted for compatibility (regent has one store layout)')
    .action(async (queryArg: string | undefined, options: BenchOptions) => {
      if (options.target === 'wasm') {
        process.stderr.write(
          'regent: -t wasm is not supported: regent has no WebAssembly runtime; use -t rego (the default)\n',
        )
        process.exitCode = 1
        return
      }
      for (const flag of ['shutdownGracePeriod', 'shutdownWaitPeriod'] as const) {
        if (!/^[0-9]+$/.test(options[flag]))
          return usage(`invalid --${kebab(flag)} ${options[flag]} (whole seconds)`)
      }
      if (options.configFile) {
        process.stderr.write(
          'regent: bench -c is accepted; the --e2e server loads only -d and -b (services, bundles and plugins of a config file are regent run -s -c)\n',
        )
      }
      if (options.optimizeStoreForReadSpeed) {
        process.stderr.write('regent: --optimize-store-for-read-speed ignored: regent has one store layout\n')
      }
      if (options.stdin && options.stdinInput) return usage('--stdin and --stdin-input cannot be combined')
      const query = options.stdin ? await readStdin() : queryArg
      if (!query?.trim()) return usage('missing query (give it as an argument or with --stdin)')
      const count = Number(options.count)
      if (!Number.isInteger(count) || count < 1) return usage(`invalid --count ${options.count}`)
      let benchtime: BenchTime
      try {
        benchtime = parseBenchTime(options.benchtime)
      } catch (err) {
        return usage((err as Error).message)
      }
      await runBench(query, options, count, benchtime)
    })
}

async function runBench(query: string, options: BenchOptions, count: number, benchtime: BenchTime) {
  let op: Operation
  let e2e: E2eBench | undefined
  try {
    if (options.e2e) {
      e2e = await startE2eBench(
        {
          data: options.data,
          bundles: options.bundle,
          ignore: options.ignore,
          regoVersion: options.v0Compatible ? 'v0' : 'v1',
          shutdownGraceSeconds: Number(options.shutdownGracePeriod),
          shutdownWaitSeconds: Number(options.shutdownWaitPeriod),
        },
        {
          query,
          input: await readQueryInput(options),
          partial: options.partial === true,
          unknowns: options.unknowns.length > 0 ? options.unknowns : ['input'],
          fail: options.fail,
        },
      )
      op = e2e.op
    } else op = await prepareOperation(query, options)
  } catch (err) {
    writeBenchError(err, options.format)
    return
  }
  try {
    await runAll(op, options, count, benchtime, e2e !== undefined)
  } finally {
    await e2e?.stop()
  }
}

async function runAll(
  op: Operation,
  options: BenchOptions,
  count: number,
  benchtime: BenchTime,
  e2e: boolean,
) {
  const settings: BenchmarkSettings = {
    benchtime,
    benchmem: options.benchmem,
    timer: options.metrics
      ? e2e
        ? 'timer_server_request_ns'
        : options.partial
          ? 'timer_rego_partial_eval_ns'
          : 'timer_rego_query_eval_ns'
      : undefined,
  }
  for (let i = 0; i < count; i++) {
    let result: BenchmarkResult
    try {
      result = await runBenchmark(op, settings)
    } catch (err) {
      writeBenchError(err, options.format)
      return
    }
    process.stdout.write(renderBenchmark(result, options.format, options.benchmem))
  }
}

/** Loads, compiles and prepares everything once; the returned operation is one evaluation. */
async function prepareOperation(query: string, options: BenchOptions): Promise<Operation> {
  const loaded = await loadQueryPolicy(options)
  const input = await readQueryInput(options)
  // print() calls are dropped (as OPA's rego package does unless asked): one line per iteration
  // would flood the terminal and time the terminal, not the policy.
  const policy = compile(loaded.modules, loaded.data, {
    enablePrintStatements: false,
    ...(await schemaCompileOptions(options.schema)),
  })
  if (options.partial) {
    const unknowns = options.unknowns.length > 0 ? options.unknowns : ['input']
    const partialOptions = { ...(input !== undefined ? { input } : {}), unknowns }
    const check = (result: PartialResult) => {
      if (options.fail && result.queries.length === 0) throw new Error('undefined result')
    }
    // Synchronous as evaluations are (see `evaluation`), awaiting only for asynchronous built-ins.
    let sync = true
    return () => {
      if (sync) {
        try {
          check(partialEvaluateSync(policy, query, partialOptions))
          return
        } catch (err) {
          if (!(err instanceof AsyncCallNeeded)) throw err
          sync = false
        }
      }
      return partialEvaluate(policy, query, partialOptions).then(check)
    }
  }
  const context = queryContext(options)
  const prepared = policy.prepare(
    parseQuery(query, context.imports ? { imports: context.imports } : {}),
    context,
  )
  return evaluation(prepared, input !== undefined ? { input } : {}, (run) => {
    if (options.fail && run.results.length === 0) throw new Error('undefined result')
  })
}

/**
 * An operation evaluating `prepared` and passing the result to `check`. It evaluates
 * synchronously (`evalSync`), so no promise is made per evaluation (`eval()` costs several
 * microseconds more than a small evaluation); once an asynchronous built-in (`http.send`) is met
 * it awaits `eval()` from then on.
 */
export function evaluation(
  prepared: PreparedQuery,
  options: QueryOptions | (() => QueryOptions),
  check: (run: QueryRun) => void,
): Operation {
  const opts = typeof options === 'function' ? options : () => options
  let sync = true
  return () => {
    if (sync) {
      try {
        check(prepared.evalSync(opts()))
        return
      } catch (err) {
        if (!(err instanceof AsyncCallNeeded)) throw err
        sync = false
      }
    }
    return prepared.eval(opts()).then(check)
  }
}

function queryContext(options: BenchOptions): { package?: Package; imports?: Import[] } {
  if (!options.package && options.import.length === 0) return {}
  const pkg = options.package ?? '__regent_query__'
  const mod = parseModule(`package ${pkg}\n${options.import.map((i) => `import ${i}`).join('\n')}\n`, {
    file: 'query',
  })
  return { ...(options.package ? { package: mod.package } : {}), imports: mod.imports }
}

/** Errors as OPA's bench prints them: `{"errors": [...]}` on stdout for json, text on stderr otherwise. */
function writeBenchError(err: unknown, format: string): void {
  if (format === 'json') process.stdout.write(`${renderJson({ errors: errorDocs(err) })}\n`)
  else process.stderr.write(`${errorText(err)}\n`)
  process.exitCode = 1
}

function errorText(err: unknown): string {
  if (err instanceof RegoErrors) return err.toString()
  return `1 error occurred: ${err instanceof Error && 'code' in err ? String(err) : err instanceof Error ? err.message : String(err)}`
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

function usage(message: string): void {
  process.stderr.write(`regent: ${message}\n`)
  process.exitCode = 2
}
