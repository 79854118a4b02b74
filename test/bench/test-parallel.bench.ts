/**
 * `regent test -p 2` against `-p 1` on a generated suite of 500 tests (10 files of 50, each test
 * a comprehension over 300 numbers): in process, the suite run on the main thread against the
 * same suite shared between the main thread and a worker thread (which compiles the policies again), after one warm-up
 * run of each; then the whole CLI, both ways, as a user runs it. Results are checked identical.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadTestPolicy, runTest, type TestOptions } from '../../cli/commands/test.js'
import { discoverTests } from '../../cli/commands/test-discovery.js'
import { runTestsInWorkers } from '../../cli/commands/test-parallel.js'

const BIN = fileURLToPath(new URL('../../bin/regent.js', import.meta.url))

function generateSuite(dir: string): void {
  for (let f = 0; f < 10; f++) {
    const lines = [`package suite.f${f}_test`, '', 'double(x) := x * 2', '']
    for (let t = 0; t < 50; t++) {
      lines.push(
        `test_t${t} if {`,
        `  count([y | some i in numbers.range(1, 300); y := double(i); y > ${t}]) > 0`,
        '}',
        '',
      )
    }
    writeFileSync(join(dir, `f${f}_test.rego`), lines.join('\n'))
  }
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-test-parallel-'))
  try {
    generateSuite(dir)
    const options = { parallel: '1', ignore: [], maxErrors: '10', format: 'json' } as unknown as TestOptions
    const { policy } = await loadTestPolicy([dir], options)
    const tests = discoverTests(policy)
    const sequential = async () => {
      const results = []
      for (const t of tests) results.push(await runTest(policy, t, 5000, options, undefined))
      return results
    }
    const parallel = () =>
      runTestsInWorkers([dir], options, tests, 2, 5000, (t) => runTest(policy, t, 5000, options, undefined))
    await sequential()
    await parallel()
    const time = async (label: string, fn: () => Promise<Array<{ fail: boolean }>>) => {
      const started = performance.now()
      const results = await fn()
      const ms = performance.now() - started
      console.log(
        `   ${label.padEnd(40)} ${ms.toFixed(0)} ms, ${(tests.length / (ms / 1000)).toFixed(0)} tests/s`,
      )
      return { ms, outcome: results.map((r) => r.fail).join() }
    }
    const one = await time(`in process, -p 1 (${tests.length} tests)`, sequential)
    const two = await time(`in process, -p 2 (${tests.length} tests)`, parallel)
    console.log(
      `   same outcomes: ${one.outcome === two.outcome}; -p 2 / -p 1 time: ${(two.ms / one.ms).toFixed(2)}`,
    )
    for (const p of ['1', '2']) {
      const started = performance.now()
      const child = spawnSync(process.execPath, [BIN, 'test', '-p', p, dir], { encoding: 'utf8' })
      const ms = performance.now() - started
      console.log(`   CLI regent test -p ${p}: ${ms.toFixed(0)} ms wall (exit ${child.status})`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
