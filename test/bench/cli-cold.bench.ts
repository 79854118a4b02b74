/**
 * `regent test` of a one-test file, cold (a fresh process each run), as built (`dist/`, from
 * `npm run build`), beside `regent version` measured in the same run as the floor of starting Node
 * and the CLI. The two commands alternate so that a change of load hits both alike. Skips with a
 * message when there is no build. Bounded: RUNS runs of each, best and median reported, of the
 * wall time (spawn to exit) and of the CPU time the process itself used (user + system, from
 * `process.cpuUsage()` at exit through a `--require`d probe), which moves less with the load of a
 * shared machine than the wall time does.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../support/logs-child.js'

const RUNS = 15
const MAIN = join(ROOT, 'dist', 'cli', 'main.js')

const ONE_TEST = `package cold
allow if input.x == 1
test_allow if allow with input as {"x": 1}
`

/** Written by the probe at the child's exit: its CPU time (user + system) in ms. */
const PROBE = `process.on('exit', () => {
  const u = process.cpuUsage()
  require('node:fs').writeFileSync(process.env.REGENT_COLD_CPU, String((u.user + u.system) / 1000))
})
`

interface Run {
  wallMs: number
  cpuMs: number
}

/** Wall and CPU time of one `node dist/cli/main.js …`; throws when the command fails. */
function timed(dir: string, args: string[]): Run {
  const cpuFile = join(dir, 'cpu')
  const started = performance.now()
  const child = spawnSync(process.execPath, ['--require', join(dir, 'probe.cjs'), MAIN, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, REGENT_COLD_CPU: cpuFile },
  })
  const wallMs = performance.now() - started
  if (child.status !== 0) throw new Error(`regent ${args.join(' ')} failed: ${child.stderr || child.stdout}`)
  return { wallMs, cpuMs: Number(readFileSync(cpuFile, 'utf8')) }
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
    writeFileSync(join(dir, 'probe.cjs'), PROBE)
    timed(dir, ['version']) // warms the file system cache for both
    const version: Run[] = []
    const test: Run[] = []
    for (let i = 0; i < RUNS; i++) {
      version.push(timed(dir, ['version']))
      test.push(timed(dir, ['test', file]))
    }
    const wall = (runs: Run[]) => runs.map((r) => r.wallMs)
    const cpu = (runs: Run[]) => runs.map((r) => r.cpuMs)
    console.log(`   regent version (baseline), cold: ${summary(wall(version))}`)
    console.log(`   regent test, one-test file, cold: ${summary(wall(test))}`)
    console.log(`   CPU of the process, regent version (baseline): ${summary(cpu(version))}`)
    console.log(`   CPU of the process, regent test: ${summary(cpu(test))}`)
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
    console.log(`   test − version (median): ${(median(wall(test)) - median(wall(version))).toFixed(0)} ms`)
    console.log(
      `   load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
