import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-test-'))
  writeFileSync(
    join(dir, 'authz.rego'),
    'package authz\n\nallow if input.path == ["users"]\n\nallow if input.admin\n',
  )
  writeFileSync(
    join(dir, 'authz_test.rego'),
    [
      'package authz_test',
      '',
      'import data.authz.allow',
      '',
      'test_users if allow with input as {"path": ["users"]}',
      '',
      'test_admin if allow with input as {"admin": true}',
      '',
      'test_wrong if allow with input as {"path": []}',
      '',
      'todo_test_later if false',
      '',
    ].join('\n'),
  )
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent test', () => {
  it('reports failures and skipped tests and exits 2', async () => {
    const { code, stdout } = await runRegent(['test', dir])
    expect(code).toBe(2)
    expect(stdout).toContain('data.authz_test.test_wrong: FAIL')
    expect(stdout).toContain('data.authz_test.todo_test_later: SKIPPED')
    expect(stdout).toContain('PASS: 2/4')
    expect(stdout).toContain('FAIL: 1/4')
  })

  it('filters with --run, reports JSON, and passes with -z', async () => {
    const { code, stdout } = await runRegent(['test', '-f', 'json', '-z', '--run', 'test_(users|admin)', dir])
    expect(code).toBe(0)
    const results = JSON.parse(stdout) as Array<{ name: string; fail?: boolean }>
    expect(results.map((r) => r.name)).toEqual(['test_users', 'test_admin'])
    expect(results.every((r) => !r.fail)).toBe(true)
  })

  it('writes an erroring test’s error in JSON as OPA does: code, message and location apart', async () => {
    const errDir = mkdtempSync(join(tmpdir(), 'regent-test-error-'))
    try {
      writeFileSync(
        join(errDir, 'c_test.rego'),
        'package c\n\nf(_) := 1\n\nf(_) := 2\n\ntest_conflict if f(1)\n',
      )
      const { code, stdout } = await runRegent(['test', '-f', 'json', errDir])
      expect(code).toBe(2)
      const [result] = JSON.parse(stdout) as Array<{ error?: unknown }>
      expect(result?.error).toEqual({
        code: 'eval_conflict_error',
        message: 'functions must not produce multiple outputs for same inputs',
        location: { file: join(errDir, 'c_test.rego'), row: 5, col: 1 },
      })
    } finally {
      rmSync(errDir, { recursive: true, force: true })
    }
  })

  it('gives opa.runtime() the environment, version and commit, as opa test passes runtime.Term', async () => {
    const rtDir = mkdtempSync(join(tmpdir(), 'regent-test-runtime-'))
    try {
      writeFileSync(
        join(rtDir, 'r_test.rego'),
        'package r\n\ntest_runtime if {\n\tis_string(opa.runtime().version)\n\tis_object(opa.runtime().env)\n}\n',
      )
      const { code, stdout } = await runRegent(['test', rtDir])
      expect([code, stdout]).toEqual([0, 'PASS: 1/1\n'])
    } finally {
      rmSync(rtDir, { recursive: true, force: true })
    }
  })

  it('reports coverage and enforces the threshold', async () => {
    const ok = await runRegent(['test', '-c', '--run', 'test_users', dir])
    expect(ok.code).toBe(0)
    const report = JSON.parse(ok.stdout) as {
      coverage: number
      files: Record<string, { not_covered?: unknown }>
    }
    expect(report.coverage).toBeGreaterThan(0)
    const low = await runRegent(['test', '--threshold', '99', '--run', 'test_users', dir])
    expect(low.code).toBe(2)
    expect(low.stderr).toContain('Code coverage threshold not met')
    // A failing test under coverage exits 1, as OPA's coverage reporter returns an error.
    const failing = await runRegent(['test', '-c', dir])
    expect(failing.code).toBe(1)
    expect(failing.stdout).toContain('data.authz_test.test_wrong: FAIL')
    expect(failing.stderr).toMatch(/^data\.authz_test\.test_wrong: FAIL \(/)
  })
})
