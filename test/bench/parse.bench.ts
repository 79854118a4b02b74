/**
 * Rego parser and formatter throughput on generated policies of 1, 5 and 20 MB (the parse goal is
 * at least 10 MB/s, growing linearly with size). Baselines in the same run: the lexer alone and
 * `JSON.parse` of a JSON document of the same size.
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
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

function mb(bytes: number): number {
  return bytes / (1024 * 1024)
}

/**
 * Best wall time in ms of `fn` over `runs` runs (bounded). The best run is the least disturbed by
 * other processes on a shared machine; the load average is printed beside the figures.
 */
function time(runs: number, fn: () => void): number {
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    fn()
    samples.push(performance.now() - t0)
  }
  return Math.min(...samples)
}

function measure(target: number, runs: number): string {
  const text = generatePolicy(target * 1024 * 1024)
  const size = mb(Buffer.byteLength(text))
  const lexMs = time(runs, () => lex(text))
  let rules = 0
  const parseMs = time(runs, () => {
    rules = parseModule(text).rules.length
  })
  const module = parseModule(text)
  const formatMs = time(runs, () => formatModule(module))
  const json = JSON.stringify({
    rules: Array.from({ length: rules }, (_, i) => ({
      name: `allow_${i}`,
      path: ['v1', 'data', String(i)],
      n: i,
    })),
  })
  const jsonMs = time(runs, () => JSON.parse(json))
  const rss = process.memoryUsage().rss / (1024 * 1024)
  const rate = (bytes: number, ms: number) => (bytes / (ms / 1000)).toFixed(1)
  return [
    `${size.toFixed(1)} MB`.padStart(8),
    rate(size, lexMs).padStart(9),
    rate(size, parseMs).padStart(11),
    rate(size, formatMs).padStart(12),
    rate(mb(json.length), jsonMs).padStart(16),
    String(rules).padStart(7),
    rss.toFixed(0).padStart(7),
  ].join('  ')
}

const HEADER = '       size   lex MB/s  parse MB/s  format MB/s  JSON.parse MB/s    rules  RSS MB'
const SIZES = [
  [1, 3],
  [5, 3],
  [20, 1],
] as const

function measureAll(): void {
  // Warm up the JIT on a small policy first.
  const warm = generatePolicy(256 * 1024)
  for (let i = 0; i < 3; i++) formatModule(parseModule(warm))
  console.log(HEADER)
  for (const [target, runs] of SIZES) console.log(`   ${measure(target, runs)}`)
}

export async function run(): Promise<void> {
  const [load] = os.loadavg()
  console.log(
    `   load average ${load?.toFixed(1)} on ${os.cpus().length} CPUs; best of 3 runs (1 for 20 MB), MB/s`,
  )
  console.log('   default V8 heap settings')
  measureAll()
  // The AST of a large policy is millions of small objects that all survive, so V8's young
  // generation size decides much of the parse time: the same measurement in a child process
  // started with a 64 MB semi-space (what NODE_OPTIONS=--max-semi-space-size=64 gives the CLI).
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
