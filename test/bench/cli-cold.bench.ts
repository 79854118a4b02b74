/**
 * `regent test` of a one-test file, cold (a fresh process each run), as built (`dist/`, from
 * `npm run build`), beside `regent version` measured in the same run as the floor of starting Node
 * and the CLI. The two commands alternate so that a change of load hits both alike. Skips with a
 * message when there is no build. Bounded: RUNS runs of each, best and median reported.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../support/logs-child.js'

const RUNS = 15
const MAIN = join(ROOT, 'dist', 'cli', 'main.js')

const ONE_TEST = `package cold
allow if input.x == 1
test_allow if allow with input as {"x": 1}
`

/** Wall time of one `node dist/cli/main.js …` in ms; throws when the command fails. */
function timed(args: string[]): number {
  const started = performance.now()
  const child = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000 })
  const ms = performance.now() - started
  if (child.status !== 0) throw new Error(`regent ${args.join(' ')} failed: ${child.stderr || child.stdout}`)
  return ms
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)] as number
  return `best ${(sorted[0] as number).toFixed(0)} ms, median ${median.toFixed(0)} ms`
}

export async function run(): Promise<void> {
  if (!existsSync(MAIN)) {
    console.log('   skipped: no build at dist/cli/main.js (run `npm run build` first)')
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'regent-cold-'))
  try {
    const file = join(dir, 'cold_test.rego')
    writeFileSync(file, ONE_TEST)
    console.log(
      `   load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    )
    timed(['version']) // warms the file system cache for both
    const version: number[] = []
    const test: number[] = []
    for (let i = 0; i < RUNS; i++) {
      version.push(timed(['version']))
      test.push(timed(['test', file]))
    }
    console.log(`   regent version (baseline), cold: ${summary(version)}`)
    console.log(`   regent test, one-test file, cold: ${summary(test)}`)
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
    console.log(`   test − version (median): ${(median(test) - median(version)).toFixed(0)} ms`)
    console.log(
      `   load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
