/**
 * `regent test -t rego|wasm` is the runtime target as in `opa test`; the timeout is `--timeout`
 * only (before, `-t rego` failed as an invalid duration).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-test-target-'))
  writeFileSync(join(dir, 'p_test.rego'), 'package p_test\n\ntest_one if 1 == 1\n')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent test -t', () => {
  it('-t rego runs the tests', async () => {
    const r = await runRegent(['test', '-t', 'rego', '-v', dir])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('data.p_test.test_one: PASS')
  })

  it('-t wasm is refused in one line naming -t rego, exit 1', async () => {
    const r = await runRegent(['test', '-t', 'wasm', dir])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain('use -t rego')
  })

  it('an unknown target is a usage error (exit 2)', async () => {
    const r = await runRegent(['test', '-t', 'js', dir])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("'js'")
  })

  it('the timeout is --timeout, with no short form', async () => {
    const ok = await runRegent(['test', '--timeout', '10s', dir])
    expect(ok.code).toBe(0)
    const bad = await runRegent(['test', '--timeout', 'soon', dir])
    expect(bad.code).toBe(2)
    // -t takes a target now: a duration there is an invalid choice, not a timeout.
    const short = await runRegent(['test', '-t', '10s', dir])
    expect(short.code).toBe(2)
  })
})
