/**
 * Rego parser throughput on generated policies of 1, 5 and 20 MB (the goal is at least 10 MB/s,
 * growing linearly with size), with the heap the AST keeps per MB of source, the lexer alone and
 * the formatter. The machine is shared, so every parse run is preceded by a `JSON.parse` of a JSON
 * document of the same size: the ratio of the two (best to best, median to median) moves much
 * less with the load than either figure. Each figure is given as best and median of the runs; the
 * spread between them comes as much from V8's pretenuring decisions, which change from one process
 * to the next, as from the load (docs/parser-performance.md). Nearly every object a parse makes
 * lives as long as the AST, so most of a parse is garbage collection; the share of each parse spent
 * in GC pauses, and the parser's rate without them, show what grows with size and what does not.
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'
import { formatModule } from '../../core/rego/format/formatter.js'
import type { Module } from '../../core/rego/syntax/ast.js'
import { lex } from '../../core/rego/syntax/lexer.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'
import { describeFreshMemory, type FreshMemory, measureFreshMemory, pageFaults } from './fresh-memory.js'

/** A policy of about `bytes` bytes built from a block that uses most constructs. */
export function generatePolicy(bytes: number): string {
  const parts = ['package bench.generated\n\nimport rego.v1\n\n']
  let size = parts[0]?.length ?? 0
  for (let i = 0; size < bytes; i++) {
    const block = `# rule ${i}
allow_${i} if {
\tinput.user.roles[_] == "admin_${i}"
\tsome x in input.items
\tx.price > ${i} * 2
\tcount([y | some y in x.tags; startswith(y, "t")]) > 0
\tnot deny_${i}
}

deny_${i} contains msg if {
\tmsg := sprintf("denied %v", [input.user.name])
\tinput.request.path == ["v1", "data", "${i}"]
}

obj_${i} := {"a": ${i}, "b": [1, 2.5, -3], "c": {"d": true, "e": null}}

f_${i}(a, b) := a + (b * ${i}) if a > b else := 0

`
    parts.push(block)
    size += block.length
  }
  return parts.join('')
}

/** A JSON document of about `bytes` bytes (objects, arrays, strings and numbers, like an AST's). */
function generateJson(bytes: number): string {
  const items: string[] = []
  let size = 2
  for (let i = 0; size < bytes; i++) {
    const item = JSON.stringify({
      name: `allow_${i}`,
      path: ['v1', 'data', String(i)],
      n: i,
      ok: i % 2 === 0,
    })
    items.push(item)
    size += item.length + 1
  }
  return `[${items.join(',')}]`
}

const MB = 1024 * 1024

/** `gc()` without starting node with --expose-gc, to measure the heap the AST keeps. */
function exposeGc(): () => void {
  v8.setFlagsFromString('--expose-gc')
  return vm.runInNewContext('gc') as () => void
}

function best(values: number[]): number {
  return Math.max(...values)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1] ?? 0
}

function rate(bytes: number, ms: number): number {
  return bytes / MB / (ms / 1000)
}

/** Wall time in ms of one call. */
function timed(fn: () => void): number {
  const t0 = performance.now()
  fn()
  return performance.now() - t0
}

interface Row {
  size: number
  parse: number[]
  json: number[]
  /** Share of each parse's wall time spent in garbage collection pauses (0-1). */
  gcShare: number[]
  /** Page faults of each parse: the new memory it touched. */
  faults: number[]
  lex: number[]
  format: number[]
  heapPerMb: number
  rss: number
}

/**
 * Garbage collection pauses, as Node reports them (`gc` performance entries, delivered a moment
 * after each collection): what share of a timed span they took.
 */
class GcPauses {
  readonly #pauses: Array<[number, number]> = []
  readonly #observer = new PerformanceObserver((list) => this.#record(list.getEntries()))

  constructor() {
    this.#observer.observe({ entryTypes: ['gc'] })
  }

  /** The share of `[start, end)` spent in pauses; waits for the entries of the last ones. */
  async shareOf(start: number, end: number): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 20))
    this.#record(this.#observer.takeRecords())
    let paused = 0
    for (const [from, to] of this.#pauses) paused += Math.max(0, Math.min(to, end) - Math.max(from, start))
    return paused / (end - start)
  }

  #record(entries: PerformanceEntry[]): void {
    for (const e of entries) this.#pauses.push([e.startTime, e.startTime + e.duration])
  }
}

async function measure(targetMb: number, runs: number, gc: () => void, pauses: GcPauses): Promise<Row> {
  const text = generatePolicy(targetMb * MB)
  const json = generateJson(text.length)
  const bytes = Buffer.byteLength(text)
  const row: Row = {
    size: bytes / MB,
    parse: [],
    json: [],
    gcShare: [],
    faults: [],
    lex: [],
    format: [],
    heapPerMb: 0,
    rss: 0,
  }
  // Each run starts with no AST alive: the last run's is dropped first, but no GC is forced in
  // between (a full GC that finds every object of the last parse dead also drops the hidden
  // classes V8 compiled the parser for, and the next run would measure recompilation). With the
  // last AST alive, each parse would also pay for marking it, and the lexer's token arrays
  // (external memory) would make V8 mark the whole heap before the lexer even starts.
  let kept: Module | undefined
  for (let r = 0; r < runs; r++) {
    kept = undefined
    if (r < 2)
      row.lex.push(
        rate(
          bytes,
          timed(() => lex(text)),
        ),
      )
    row.json.push(
      rate(
        json.length,
        timed(() => JSON.parse(json)),
      ),
    )
    const faultsBefore = pageFaults()
    const start = performance.now()
    kept = parseModule(text)
    const end = performance.now()
    row.faults.push(pageFaults() - faultsBefore)
    row.parse.push(rate(bytes, end - start))
    row.gcShare.push(await pauses.shareOf(start, end))
    row.rss = Math.max(row.rss, process.memoryUsage().rss / MB)
    const parsed = kept
    if (r < 2)
      row.format.push(
        rate(
          bytes,
          timed(() => formatModule(parsed)),
        ),
      )
  }
  kept = undefined
  // The heap the AST keeps, per MB of source, from one more (untimed) parse between two full GCs.
  gc()
  const before = process.memoryUsage().heapUsed
  kept = parseModule(text)
  gc()
  row.heapPerMb = (process.memoryUsage().heapUsed - before) / bytes
  if (kept.rules.length === 0) throw new Error('the generated policy has no rules')
  return row
}

const HEADER =
  '      size |  parse MB/s   | JSON.parse MB/s | parse/JSON  | GC pauses | parse without | new pages | page faults |  bound by   | parse without    | heap/MB | lex MB/s | format MB/s | RSS MB\n' +
  '           |  best    med  |  best     med   |  best   med |  % of med | GC, MB/s med  | MB per MB |  % of med   | faults MB/s | faults, MB/s med |   MB    |   best   |    best     |'

function line(row: Row, fresh: FreshMemory): string {
  const f = (n: number, w: number, d = 1) => n.toFixed(d).padStart(w)
  // The parser's own rate: each run's MB/s with its GC pauses taken out.
  const own = row.parse.map((r, i) => r / (1 - (row.gcShare[i] ?? 0)))
  // The share of each parse spent mapping new pages, at what one page fault cost at the start of
  // the run (an estimate: some faults happen on the GC's helper thread, beside the parser).
  const faultShare = row.parse.map((r, i) => {
    const ms = (row.size / r) * 1000
    return Math.min(1, ((row.faults[i] ?? 0) * fresh.msPerFault) / ms)
  })
  const withoutFaults = row.parse.map((r, i) => r / (1 - Math.min(0.99, faultShare[i] ?? 0)))
  const newPagesPerMb = (median(row.faults) * fresh.bytesPerFault) / MB / row.size
  // The fastest any parse could be that maps this much new memory, with no other work at all.
  const faultBound = 1000 / (newPagesPerMb * fresh.msPerMb)
  return [
    `${f(row.size, 6)} MB`,
    `${f(best(row.parse), 6)} ${f(median(row.parse), 6)} `,
    `${f(best(row.json), 6)} ${f(median(row.json), 7)}  `,
    `${f(best(row.parse) / best(row.json), 5, 3)} ${f(median(row.parse) / median(row.json), 5, 3)}`,
    `${f(median(row.gcShare) * 100, 6, 0)}   `,
    `${f(median(own), 9)}    `,
    `${f(newPagesPerMb, 7)}  `,
    `${f(median(faultShare) * 100, 8, 0)}   `,
    `${f(faultBound, 9)}  `,
    `${f(median(withoutFaults), 11)}     `,
    `${f(row.heapPerMb, 6)}  `,
    `${f(best(row.lex), 7)}  `,
    `${f(best(row.format), 9)}  `,
    f(row.rss, 6, 0),
  ].join(' | ')
}

const SIZES = [
  [1, 7],
  [5, 5],
  [20, 3],
] as const

async function measureAll(): Promise<void> {
  const gc = exposeGc()
  const pauses = new GcPauses()
  // Warm up the JIT on a small policy first.
  const warm = generatePolicy(256 * 1024)
  for (let i = 0; i < 3; i++) formatModule(parseModule(warm))
  JSON.parse(generateJson(256 * 1024))
  const fresh = measureFreshMemory()
  console.log(`   ${describeFreshMemory(fresh)}`)
  console.log(HEADER)
  for (const [target, runs] of SIZES)
    console.log(`   ${line(await measure(target, runs, gc, pauses), fresh)}`)
  console.log(`   at the end, ${describeFreshMemory(measureFreshMemory())}`)
}

export async function run(): Promise<void> {
  const [load] = os.loadavg()
  console.log(
    `   load average ${load?.toFixed(1)} on ${os.cpus().length} CPUs; runs: ${SIZES.map(([s, r]) => `${r} at ${s} MB`).join(', ')}`,
  )
  console.log('   default V8 heap settings')
  await measureAll()
  // Most of the parse time is garbage collection of an AST whose objects all survive, so V8's
  // young generation size matters: the same measurement in a child process started with a 64 MB
  // semi-space (what NODE_OPTIONS=--max-semi-space-size=64 gives the CLI).
  console.log('   node --max-semi-space-size=64')
  const child = spawnSync(
    process.execPath,
    ['--max-semi-space-size=64', '--import', 'tsx', fileURLToPath(import.meta.url), CHILD_FLAG],
    { encoding: 'utf8', timeout: 600_000 },
  )
  process.stdout.write(child.stdout || `   child failed: ${child.stderr}\n`)
}

const CHILD_FLAG = '--parse-bench-child'
if (process.argv.includes(CHILD_FLAG)) await measureAll()
