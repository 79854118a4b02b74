/**
 * `regent bench <query>`: evaluates a query over and over and prints how long one evaluation
 * takes, as `opa bench` does. The query is loaded, compiled and prepared once (as `regent eval`
 * does it); only evaluations are timed. Each run grows its iteration count as Go's `testing.B`
 * does until the timed evaluations add up to `--benchtime` (1s), and reports Go's
 * `BenchmarkResult`: as a table (pretty), as JSON, or in the Go benchmark text format (gobench).
 *
 * Memory: V8 has no allocation counter, so `B/op` is measured in a separate pass after the timed
 * run: batches of evaluations during which no garbage collection ran, heap growth divided by the
 * batch size. Allocation counts cannot be measured in Node.js and are reported as `n/a` (null in
 * JSON, left out of gobench lines).
 */
import { readFile } from 'node:fs/promises'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
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
import type { Value } from '../../core/rego/values/index.js'
import { loadPolicy, parseDocument } from '../policy-files.js'
import { type Doc, renderJson } from '../presentation.js'
import { errorDocs, parseDuration, readStdin } from './eval.js'

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
}

/** How long each benchmark runs: a total of timed evaluations, or an exact iteration count. */
export type BenchTime = { ns: number } | { iterations: number }

/** What one benchmark run measured, as Go's `testing.BenchmarkResult`. */
export interface BenchmarkResult {
  /** Iterations of the last (reported) run. */
  N: number
  /** Total timed nanoseconds of those iterations. */
  T: number
  /** Heap bytes allocated per operation, or undefined when not measured or not measurable. */
  bytesPerOp: number | undefined
  /** Extra metrics by unit name (`histogram_timer_rego_query_eval_ns_mean`, ...). */
  extra: Map<string, number>
}

/** Settings of {@link runBenchmark}. */
export interface BenchmarkSettings {
  benchtime: BenchTime
  benchmem: boolean
  /** Name of the per-operation timer reported as histogram metrics; none when undefined. */
  timer: string | undefined
}

const collect = (v: string, prev: string[]) => [...prev, v]

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
  return new Command('bench')
    .description('benchmark a Rego query (repeat an evaluation and print performance results)')
    .argument('[query]', 'the query to benchmark')
    .option(
      '-d, --data <path>',
      'policy or data files and directories (prefix:path to root them)',
      collect,
      [],
    )
    .option('-b, --bundle <path>', 'bundle directories or .tar.gz files', collect, [])
    .option('-i, --input <path>', 'input document (JSON or YAML)')
    .option('-I, --stdin-input', 'read the input document from stdin')
    .option('--stdin', 'read the query from stdin')
    .option('--package <path>', 'package the query is evaluated in')
    .option('--import <import>', 'import for the query (repeatable)', collect, [])
    .option('--ignore <glob>', 'file names to skip when loading', collect, [])
    .option('--v0-compatible', 'parse with Rego v0 syntax')
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
    .action(async (queryArg: string | undefined, options: BenchOptions) => {
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
  try {
    op = await prepareOperation(query, options)
  } catch (err) {
    writeBenchError(err, options.format)
    return
  }
  const settings: BenchmarkSettings = {
    benchtime,
    benchmem: options.benchmem,
    timer: options.metrics
      ? options.partial
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
  const loaded = await loadPolicy({
    paths: options.data,
    bundles: options.bundle,
    ignore: options.ignore,
    ...(options.v0Compatible ? { v0: true } : {}),
  })
  let input: Value | undefined
  if (options.stdinInput) input = parseDocument(await readStdin(), 'stdin.json')
  else if (options.input) input = parseDocument(await readFile(options.input, 'utf8'), options.input)
  // print() calls are dropped (as OPA's rego package does unless asked): one line per iteration
  // would flood the terminal and time the terminal, not the policy.
  const policy = compile(loaded.modules, loaded.data, { enablePrintStatements: false })
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
  const prepared = policy.prepare(parseQuery(query), queryContext(options))
  return evaluation(prepared, input !== undefined ? { input } : {}, (run) => {
    if (options.fail && run.results.length === 0) throw new Error('undefined result')
  })
}

/** One benchmarked operation: synchronous when it can be, a promise when it awaits something. */
export type Operation = () => void | Promise<void>

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

/**
 * Runs `op` as Go's `testing.Benchmark` does: once, then with a growing iteration count (at most
 * 100 times the last, 1.2 times the predicted need) until the timed operations add up to the
 * bench time, or exactly `iterations` times. Only `op` itself is timed. Throws what `op` throws.
 */
export async function runBenchmark(op: Operation, settings: BenchmarkSettings): Promise<BenchmarkResult> {
  const histogram = new Histogram()
  const runN = async (n: number): Promise<number> => {
    histogram.reset()
    let total = 0
    for (let i = 0; i < n; i++) {
      const start = process.hrtime.bigint()
      const pending = op()
      if (pending) await pending
      const ns = Number(process.hrtime.bigint() - start)
      total += ns
      histogram.add(ns)
    }
    return total
  }
  let n = 1
  let t = await runN(1)
  const bt = settings.benchtime
  if ('iterations' in bt) {
    if (bt.iterations > 1) {
      n = bt.iterations
      t = await runN(n)
    }
  } else {
    while (t < bt.ns && n < 1e9) {
      const last = n
      let next = Math.floor((bt.ns * n) / Math.max(t, 1))
      next += Math.floor(next / 5)
      next = Math.min(next, 100 * last)
      next = Math.max(next, last + 1)
      n = Math.min(next, 1e9)
      t = await runN(n)
    }
  }
  const extra = settings.timer ? histogram.metrics(`histogram_${settings.timer}`) : new Map<string, number>()
  const bytesPerOp = settings.benchmem ? await heapBytesPerOp(op, n) : undefined
  return { N: n, T: t, bytesPerOp, extra }
}

/** Batches of evaluations the memory pass measures. */
const BATCHES = 25

/**
 * Heap bytes one call of `op` allocates: heap growth over batches of calls, keeping only the
 * batches no garbage collection overlapped, median over the batches, less the cost of reading
 * the heap size itself. Undefined when too few batches were clean.
 */
async function heapBytesPerOp(op: Operation, timedOps: number): Promise<number | undefined> {
  const gcs: Array<[number, number]> = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration])
  })
  observer.observe({ entryTypes: ['gc'] })
  const batch = async (size: number) => {
    const start = performance.now()
    const before = getHeapStatistics().used_heap_size
    for (let i = 0; i < size; i++) {
      const pending = op()
      if (pending) await pending
    }
    const after = getHeapStatistics().used_heap_size
    return { start, end: performance.now(), bytes: after - before }
  }
  try {
    const first = await batch(1)
    // 25 batches of about 256 KiB each, together at most a quarter of the timed run's
    // iterations (at least 25), so a slow policy is not run for much longer than benchmarked.
    const budget = Math.max(BATCHES, Math.floor(timedOps / 4))
    const size = Math.max(
      1,
      Math.min(1000, Math.floor(budget / BATCHES), Math.floor((256 * 1024) / Math.max(first.bytes, 64))),
    )
    const empty: Array<Awaited<ReturnType<typeof batch>>> = []
    const full: Array<Awaited<ReturnType<typeof batch>>> = []
    for (let i = 0; i < BATCHES; i++) {
      empty.push(await batch(0))
      full.push(await batch(size))
    }
    // GC entries arrive asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 5))
    for (const e of observer.takeRecords()) gcs.push([e.startTime, e.startTime + e.duration])
    const clean = (xs: typeof full) =>
      xs.filter((b) => b.bytes >= 0 && !gcs.some(([s, e]) => s < b.end && e > b.start)).map((b) => b.bytes)
    const overhead = median(clean(empty)) ?? 0
    const measured = clean(full)
    const perBatch = median(measured)
    if (perBatch === undefined || measured.length < 3) return undefined
    return Math.max(0, Math.round((perBatch - overhead) / size))
  } finally {
    observer.disconnect()
  }
}

function median(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}

const RESERVOIR = 1028

/**
 * A histogram of nanosecond timings, reported as OPA's metrics histograms are (`_count`, `_min`,
 * `_max`, `_mean`, `_stddev`, `_median` and the 75 to 99.99 percentiles). Count, min, max, mean
 * and standard deviation are exact; percentiles come from a uniform sample of 1028 values, the
 * reservoir size OPA uses.
 */
export class Histogram {
  #count = 0
  #sum = 0
  #sumSquares = 0
  #min = Number.POSITIVE_INFINITY
  #max = 0
  #sample: number[] = []

  reset(): void {
    this.#count = 0
    this.#sum = 0
    this.#sumSquares = 0
    this.#min = Number.POSITIVE_INFINITY
    this.#max = 0
    this.#sample = []
  }

  add(ns: number): void {
    this.#count++
    this.#sum += ns
    this.#sumSquares += ns * ns
    if (ns < this.#min) this.#min = ns
    if (ns > this.#max) this.#max = ns
    if (this.#sample.length < RESERVOIR) this.#sample.push(ns)
    else {
      const r = Math.floor(Math.random() * this.#count)
      if (r < RESERVOIR) this.#sample[r] = ns
    }
  }

  /** The metrics under `name_<stat>`. */
  metrics(name: string): Map<string, number> {
    const out = new Map<string, number>()
    if (this.#count === 0) return out
    const mean = this.#sum / this.#count
    const sorted = [...this.#sample].sort((a, b) => a - b)
    const pct = (p: number) => percentile(sorted, p)
    const stats: Array<[string, number]> = [
      ['75%', pct(0.75)],
      ['90%', pct(0.9)],
      ['95%', pct(0.95)],
      ['99%', pct(0.99)],
      ['99.9%', pct(0.999)],
      ['99.99%', pct(0.9999)],
      ['count', this.#count],
      ['max', this.#max],
      ['mean', mean],
      ['median', pct(0.5)],
      ['min', this.#min],
      ['stddev', Math.sqrt(Math.max(0, this.#sumSquares / this.#count - mean * mean))],
    ]
    for (const [k, v] of stats) out.set(`${name}_${k}`, v)
    return out
  }
}

/** go-metrics' percentile of a sorted sample (linear between neighbours). */
function percentile(sorted: number[], p: number): number {
  const n = sorted.length
  const pos = p * (n + 1)
  if (pos < 1) return sorted[0] ?? 0
  if (pos >= n) return sorted[n - 1] ?? 0
  const lower = sorted[Math.floor(pos) - 1] as number
  const upper = sorted[Math.floor(pos)] as number
  return lower + (pos - Math.floor(pos)) * (upper - lower)
}

/** One result in `format`: OPA's table, Go's BenchmarkResult JSON, or a gobench line. */
export function renderBenchmark(r: BenchmarkResult, format: string, benchmem: boolean): string {
  switch (format) {
    case 'json':
      return `${renderJson(benchmarkDoc(r))}\n`
    case 'gobench':
      return `BenchmarkOPAEval\t${benchmarkLine(r, benchmem)}\n`
    default: {
      const rows: Array<[string, string]> = [
        ['samples', String(r.N)],
        ['ns/op', formatFloat(r.T / r.N)],
      ]
      if (benchmem) {
        rows.push(['B/op', r.bytesPerOp === undefined ? 'n/a' : String(r.bytesPerOp)])
        rows.push(['allocs/op', 'n/a'])
      }
      for (const k of [...r.extra.keys()].sort(compareGo))
        rows.push([k, formatFloat(r.extra.get(k) as number)])
      return keyValueTable(rows)
    }
  }
}

/** Go's `BenchmarkResult` as JSON (`MemAllocs` null: Node.js cannot count allocations). */
export function benchmarkDoc(r: BenchmarkResult): Doc {
  const extra: { [key: string]: Doc } = {}
  for (const k of [...r.extra.keys()].sort(compareGo)) extra[k] = r.extra.get(k) as number
  return {
    N: r.N,
    T: r.T,
    Bytes: 0,
    MemAllocs: null,
    MemBytes: r.bytesPerOp === undefined ? null : r.bytesPerOp * r.N,
    Extra: extra,
  }
}

/** `BenchmarkResult.String()` (plus `B/op` with benchmem): `N  ns/op  extra metrics...`. */
export function benchmarkLine(r: BenchmarkResult, benchmem: boolean): string {
  let out = String(r.N).padStart(8)
  const ns = r.T / r.N
  if (ns !== 0) out += `\t${goPrettyPrint(ns, 'ns/op')}`
  for (const k of [...r.extra.keys()].sort(compareGo))
    out += `\t${goPrettyPrint(r.extra.get(k) as number, k)}`
  if (benchmem && r.bytesPerOp !== undefined) out += `\t${String(r.bytesPerOp).padStart(8)} B/op`
  return out
}

/** Go's `testing` prettyPrint: ten places before the point, four significant figures below 1000. */
function goPrettyPrint(x: number, unit: string): string {
  const y = Math.abs(x)
  const [width, digits] =
    y === 0 || y >= 999.95
      ? [10, 0]
      : y >= 99.995
        ? [12, 1]
        : y >= 9.9995
          ? [13, 2]
          : y >= 0.99995
            ? [14, 3]
            : y >= 0.099995
              ? [15, 4]
              : y >= 0.0099995
                ? [16, 5]
                : y >= 0.00099995
                  ? [17, 6]
                  : [18, 7]
  return `${x.toFixed(digits).padStart(width)} ${unit}`
}

/** OPA's `prettyFormatFloat` for the bench table (three significant figures below 100). */
function formatFloat(x: number): string {
  const y = Math.abs(x)
  const [width, digits] =
    y === 0 || y >= 99.95
      ? [10, 0]
      : y >= 9.995
        ? [12, 1]
        : y >= 0.9995
          ? [13, 2]
          : y >= 0.09995
            ? [14, 3]
            : y >= 0.009995
              ? [15, 4]
              : y >= 0.0009995
                ? [16, 5]
                : [17, 6]
  return x.toFixed(digits).padStart(width)
}

/** Go's string order (bytes), which sorts `99%` before `99.9%`. */
function compareGo(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** A two-column bordered table without header, values right-aligned (OPA's bench table). */
function keyValueTable(rows: Array<[string, string]>): string {
  const w0 = Math.max(...rows.map((r) => r[0].length))
  const w1 = Math.max(...rows.map((r) => r[1].length))
  const line = `+${'-'.repeat(w0 + 2)}+${'-'.repeat(w1 + 2)}+`
  const body = rows.map(([k, v]) => `| ${k.padEnd(w0)} | ${v.padStart(w1)} |`)
  return `${[line, ...body, line].join('\n')}\n`
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

function usage(message: string): void {
  process.stderr.write(`regent: ${message}\n`)
  process.exitCode = 2
}
