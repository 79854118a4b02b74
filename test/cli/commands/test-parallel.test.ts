/**
 * `regent test -p N` and `-w`, run as a user runs them: a suite run over several threads reports
 * exactly what one thread reports, in the same order, with the same exit code; `-w` runs again
 * after a file changes (the second run's output is read, and the watcher stopped with SIGINT).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REGENT_BIN, runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-test-parallel-'))
  // 3 files of 40 tests: above the threshold under which -p runs on one thread.
  for (let f = 0; f < 3; f++) {
    // Two definitions with different outputs: calling it is an evaluation error, reported as ERROR.
    const lines = [`package p${f}_test`, '', 'conflict(_) := 1', '', 'conflict(_) := 2', '']
    for (let t = 0; t < 40; t++) {
      const body = t % 13 === 5 ? 'false' : t % 17 === 3 ? 'conflict(1) == 1' : `${t} >= 0`
      lines.push(`test_t${t} if {`, `  print("f${f} t${t}")`, `  ${body}`, '}', '')
    }
    lines.push('todo_test_later if false', '')
    writeFileSync(join(dir, `f${f}_test.rego`), lines.join('\n'))
  }
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const withoutDurations = (text: string) =>
  (JSON.parse(text) as Array<Record<string, unknown>>).map(({ duration: _d, ...rest }) => rest)

describe('regent test -p', () => {
  it('reports the same results in the same order as -p 1, with the same exit code; -p 0 is refused', async () => {
    const [one, three, bad] = await Promise.all([
      runRegent(['test', '-p', '1', '-f', 'json', dir], { timeoutMs: 60_000 }),
      runRegent(['test', '-p', '3', '-f', 'json', dir], { timeoutMs: 60_000 }),
      runRegent(['test', '-p', '0', dir]),
    ])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--parallel must be a positive whole number')
    expect(one.code).toBe(2)
    expect(three.code).toBe(2)
    const results = withoutDurations(one.stdout)
    expect(results).toHaveLength(123)
    expect(results.filter((r) => r.fail)).toHaveLength(9)
    expect(results.filter((r) => r.error)).toHaveLength(9)
    expect(withoutDurations(three.stdout)).toEqual(results)
  }, 90_000)
})

describe('regent test -w', () => {
  it('runs again when a file changes', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'regent-test-watch-'))
    const file = join(watched, 'w_test.rego')
    writeFileSync(file, 'package w_test\n\ntest_ok if true\n')
    const child = spawn(process.execPath, [REGENT_BIN, 'test', '-w', '-v', watched], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    const waitFor = async (predicate: () => boolean, what: string) => {
      const deadline = Date.now() + 30_000
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output so far:\n${stdout}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    try {
      await waitFor(() => stdout.includes('Watching for changes'), 'the first run')
      expect(stdout).toContain('data.w_test.test_ok: PASS')
      const firstRunEnd = stdout.length
      writeFileSync(file, 'package w_test\n\ntest_ok if true\n\ntest_new if false\n')
      await waitFor(() => stdout.slice(firstRunEnd).includes('Watching for changes'), 'the second run')
      const second = stdout.slice(firstRunEnd)
      expect(second).toContain('data.w_test.test_new: FAIL')
      expect(second).toContain('PASS: 1/2')
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      child.kill('SIGINT')
      // The last run failed: the watcher exits with its code once stopped.
      expect(await exited).toBe(2)
      rmSync(watched, { recursive: true, force: true })
    }
  }, 60_000)
})
