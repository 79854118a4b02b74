/**
 * `regent test` over the largest library of the shared real-world corpus (../shared/realworld, or
 * REGENT_REALWORLD_DIR): every invocation of its tests.list, run as upstream CI runs it (through
 * bash, so its globs expand as in run.sh), in a process of its own. Prints tests per second and the
 * share of the wall time spent starting the process, measured in the same run as the time of
 * `regent version` and of `regent test` on an empty folder. Skips with a message when the corpus
 * is absent. Bounded: 3 runs of each command, best and median reported.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_FOLDER, PROJECT_ROOT } from '../realworld/runner.js'

const RUNS = 3
const REGENT = join(PROJECT_ROOT, 'bin', 'regent.js')

interface Invocation {
  expected: number
  args: string
}

/** A library's invocations from its tests.list (`expected<TAB>arguments`, `#` comments). */
function invocations(dir: string): Invocation[] {
  const list = join(dir, 'tests.list')
  if (!existsSync(list)) return []
  return readFileSync(list, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const [expected, args] = line.split('\t')
      return { expected: Number(expected), args: args ?? '' }
    })
    .filter((i) => Number.isFinite(i.expected) && i.args !== '')
}

/** The library with the most expected tests. */
function largest(
  folder: string,
): { name: string; dir: string; runs: Invocation[]; tests: number } | undefined {
  let best: { name: string; dir: string; runs: Invocation[]; tests: number } | undefined
  for (const name of readdirSync(folder)) {
    const dir = join(folder, name)
    const runs = invocations(dir)
    const tests = runs.reduce((n, i) => n + i.expected, 0)
    if (tests > (best?.tests ?? 0)) best = { name, dir, runs, tests }
  }
  return best
}

/** Runs a shell command in `cwd`; its wall time in ms and its stdout. */
function timed(command: string, cwd: string): { ms: number; stdout: string; status: number | null } {
  const started = performance.now()
  const child = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  return { ms: performance.now() - started, stdout: child.stdout, status: child.status }
}

/** Best and median of `RUNS` timings of `fn`. */
function measure(fn: () => number): { best: number; median: number } {
  const times = Array.from({ length: RUNS }, fn).sort((a, b) => a - b)
  return { best: times[0] as number, median: times[Math.floor(times.length / 2)] as number }
}

/** Test results of `regent test --format json` output: all reported, and those that passed. */
function counts(stdout: string): { reported: number; passed: number } {
  try {
    const results = JSON.parse(stdout) as Array<{ fail?: boolean; error?: unknown; skip?: boolean }>
    return { reported: results.length, passed: results.filter((t) => !t.fail && !t.error && !t.skip).length }
  } catch {
    return { reported: 0, passed: 0 }
  }
}

const ms = (x: number) => `${x.toFixed(0).padStart(6)} ms`

export async function run(): Promise<void> {
  const folder = process.env.REGENT_REALWORLD_DIR ?? DEFAULT_FOLDER
  const library = existsSync(folder) ? largest(folder) : undefined
  if (!library) {
    console.log(`   ${folder} not found (or holds no tests.list); skipping the real-world test benchmark`)
    return
  }
  const empty = mkdtempSync(join(tmpdir(), 'regent-bench-empty-'))
  try {
    const version = measure(() => timed(`node ${REGENT} version`, PROJECT_ROOT).ms)
    const emptyTest = measure(() => timed(`node ${REGENT} test --format json ${empty}`, PROJECT_ROOT).ms)
    let reported = 0
    let passed = 0
    const suite = measure(() => {
      let total = 0
      reported = 0
      passed = 0
      for (const inv of library.runs) {
        const [sub, ...rest] = inv.args.split(/\s+/)
        const r = timed(`node ${REGENT} ${sub} --format json ${rest.join(' ')}`, library.dir)
        total += r.ms
        const c = counts(r.stdout)
        reported += c.reported
        passed += c.passed
      }
      return total
    })
    const startups = library.runs.length
    console.log(
      `   library: ${library.name} (${library.runs.length} invocation(s), ${library.tests} tests expected)`,
    )
    const rows: Array<[string, { best: number; median: number }]> = [
      ['regent version', version],
      ['regent test (empty folder)', emptyTest],
      [`regent test (${library.name})`, suite],
    ]
    const width = Math.max(...rows.map(([label]) => label.length))
    console.log(`   ${'command'.padEnd(width)}      best /  median`)
    for (const [label, t] of rows) console.log(`   ${label.padEnd(width)} ${ms(t.best)} /${ms(t.median)}`)
    const perSecond = (reported * 1000) / suite.best
    const startupShare = (startups * emptyTest.best) / suite.best
    console.log(
      `   ${reported} tests reported, ${passed} passed: ${perSecond.toFixed(0)} tests/s (best run, start-up included); ` +
        `${((reported * 1000) / (suite.best - startups * emptyTest.best)).toFixed(0)} tests/s after start-up`,
    )
    console.log(
      `   start-up share of wall time: ${(startupShare * 100).toFixed(0)}% (empty-folder test run as the baseline), ` +
        `${(((startups * version.best) / suite.best) * 100).toFixed(0)}% (regent version as the baseline)`,
    )
  } finally {
    rmSync(empty, { recursive: true, force: true })
  }
}
