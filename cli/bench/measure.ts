/**
 * Benchmark measurement as Go's `testing.B` does it: an operation run with a growing iteration
 * count until the timed runs add up to the bench time (or an exact count), a histogram of the
 * per-operation times, and heap bytes per operation from a separate pass. Shared by `regent bench`
 * and `regent test --bench`.
 *
 * Memory: V8 has no allocation counter, so `B/op` is measured after the timed run: batches of
 * operations during which no garbage collection ran, heap growth divided by the batch size.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'

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

/** One benchmarked operation: synchronous when it can be, a promise when it awaits something. */
export type Operation = () => void | Promise<void>

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
