/**
 * Rego parser throughput on generated policies of 1, 5 and 20 MB (the goal is at least 10 MB/s,
 * growing linearly with size), with the heap the AST keeps per MB of source, the lexer alone and
 * the formatter. The machine is shared, so every parse run is followed by a `JSON.parse` of a JSON
 * document of the same size: the ratio of the two (best to best, median to median) moves much
 * less with the load than either figure. Each figure is given as best and median of the runs; the
 * spread between them comes as much from V8's pretenuring decisions, which change from one process
 * to the next, as from the load (docs/parser-performance.md).
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'
import { formatModule } from '../../core/rego/format/formatter.js'
import { lex } from '../../core/rego/syntax/lexer.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'

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
  lex: number[]
  format: number[]
  heapPerMb: number
  rss: number
}

function measure(targetMb: number, runs: number, gc: () => void): Row {
  const text = generatePolicy(targetMb * MB)
  const json = generateJson(text.length)
  const bytes = Buffer.byteLength(text)
  const row: Row = {
    size: bytes / MB,
    parse: [],
    json: [],
    lex: [],
    format: [],
    heapPerMb: 0,
    rss: 0,
  }
  // Timed runs follow each other with no forced GC in between: a full GC that finds every object
  // of the last parse dead also drops the hidden classes V8 compiled the parser for, and the next
  // run would then measure recompilation.
  for (let r = 0; r < runs; r++) {
    let module: ReturnType<typeof parseModule> | undefined
    const parseMs = timed(() => {
      module = parseModule(text)
    })
    row.rss = Math.max(row.rss, process.memoryUsage().rss / MB)
    const jsonMs = timed(() => JSON.parse(json))
    row.parse.push(rate(bytes, parseMs))
    row.json.push(rate(json.length, jsonMs))
    if (r < 2) {
      row.lex.push(
        rate(
          bytes,
          timed(() => lex(text)),
        ),
      )
      const parsed = module
      if (parsed)
        row.format.push(
          rate(
            bytes,
            timed(() => formatModule(parsed)),
          ),
        )
    }
  }
  // The heap the AST keeps, per MB of source, from one more (untimed) parse between two full GCs.
  gc()
  const before = process.memoryUsage().heapUsed
  const kept = parseModule(text)
  gc()
  row.heapPerMb = (process.memoryUsage().heapUsed - before) / bytes
  if (kept.rules.length === 0) throw new Error('the generated policy has no rules')
  return row
}

const HEADER =
  '      size |  parse MB/s   | JSON.parse MB/s | parse/JSON  | heap/MB | lex MB/s | format MB/s | RSS MB\n' +
  '           |  best    med  |  best     med   |  best   med |   MB    |   best   |    best     |'

function line(row: Row): string {
  const f = (n: number, w: number, d = 1) => n.toFixed(d).padStart(w)
  return [
    `${f(row.size, 6)} MB`,
    `${f(best(row.parse), 6)} ${f(median(row.parse), 6)} `,
    `${f(best(row.json), 6)} ${f(median(row.json), 7)}  `,
    `${f(best(row.parse) / best(row.json), 5, 3)} ${f(median(row.parse) / median(row.json), 5, 3)}`,
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

function measureAll(): void {
  const gc = exposeGc()
  // Warm up the JIT on a small policy first.
  const warm = generatePolicy(256 * 1024)
  for (let i = 0; i < 3; i++) formatModule(parseModule(warm))
  JSON.parse(generateJson(256 * 1024))
  console.log(HEADER)
  for (const [target, runs] of SIZES) console.log(`   ${line(measure(target, runs, gc))}`)
}

export async function run(): Promise<void> {
  const [load] = os.loadavg()
  console.log(
    `   load average ${load?.toFixed(1)} on ${os.cpus().length} CPUs; runs: ${SIZES.map(([s, r]) => `${r} at ${s} MB`).join(', ')}`,
  )
  console.log('   default V8 heap settings')
  measureAll()
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
if (process.argv.includes(CHILD_FLAG)) measureAll()
