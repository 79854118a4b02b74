/**
 * `regent test` runs every test OPA's tester runs: each definition of a test name on its own
 * (`test_x`, `test_x#01`, ...), and each case of a parameterized test (`test_x[case] if ...`),
 * reported and counted as `opa test` reports them, in text, `-v` and JSON, with OPA's exit codes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-test-cases-'))
  writeFileSync(
    join(dir, 'cases_test.rego'),
    [
      'package cases',
      '',
      'test_dup if true',
      '',
      'test_dup if false',
      '',
      'test_dup if {',
      '\tprint("third")',
      '\tfalse',
      '}',
      '',
      'test_concat[tc.note] if {',
      '\tsome tc in [{"note": "ok", "a": 1, "exp": 1}, {"note": "bad", "a": 2, "exp": 3}, {"note": "also ok", "a": 3, "exp": 3}]',
      '\tgot := tc.a',
      '\tgot == tc.exp',
      '}',
      '',
      'todo_test_later if false',
      '',
      'todo_not_a_test if false',
      '',
    ].join('\n'),
  )
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent test: duplicate and parameterized tests', () => {
  it('runs each definition and each case, shows failed cases and counts cases', async () => {
    const { code, stdout } = await runRegent(['test', dir])
    expect(code).toBe(2)
    expect(stdout).toMatch(/cases_test\.rego:\ndata\.cases\.test_dup#01: FAIL \(.*\)\n/m)
    expect(stdout).toMatch(/^data\.cases\.test_dup#02: FAIL \(.*\)\n\n {2}third\n\n/m)
    expect(stdout).not.toContain('data.cases.test_dup: ')
    expect(stdout).toMatch(/^data\.cases\.test_concat: FAIL \(.*\)\n {2}bad: FAIL\n/m)
    expect(stdout).not.toContain('  ok: PASS')
    expect(stdout).toContain('data.cases.todo_test_later: SKIPPED')
    expect(stdout).not.toContain('todo_not_a_test')
    // test_dup (pass), test_dup#01 and #02 (fail), 3 cases (2 pass, 1 fail), 1 skipped.
    expect(stdout).toMatch(/PASS: 3\/7\nFAIL: 3\/7\nSKIPPED: 1\/7\n$/)
  })

  it('-v lists every case and the failed cases again under FAILURES', async () => {
    const { stdout } = await runRegent(['test', '-v', dir])
    expect(stdout).toMatch(/^data\.cases\.test_dup: PASS/m)
    expect(stdout).toMatch(
      /^data\.cases\.test_concat: FAIL \(.*\)\n {2}also ok: PASS\n {2}bad: FAIL\n {2}ok: PASS\n/m,
    )
    const failures = stdout.slice(stdout.indexOf('FAILURES'))
    expect(failures).toMatch(/^data\.cases\.test_concat: FAIL \(.*\)\n\n[\s\S]*?\n\n {2}bad: FAIL\n\n/m)
  })

  it('reports JSON with one entry per definition and sub_results per case', async () => {
    const { code, stdout } = await runRegent(['test', '-f', 'json', dir])
    expect(code).toBe(2)
    const results = JSON.parse(stdout) as Array<Record<string, unknown>>
    expect(results.map((r) => r.name)).toEqual([
      'test_dup',
      'test_dup#01',
      'test_dup#02',
      'test_concat',
      'todo_test_later',
    ])
    const concat = results[3] as Record<string, unknown>
    expect(concat.fail).toBe(true)
    expect(concat.sub_results).toEqual({
      'also ok': { name: 'also ok' },
      bad: { name: 'bad', fail: true },
      ok: { name: 'ok' },
    })
    expect(Object.keys(concat)).toEqual(['location', 'package', 'name', 'fail', 'duration', 'sub_results'])
  })

  it('--run matches OPA full names (data.pkg["name#01"]) with Go regexp syntax', async () => {
    const dups = await runRegent(['test', '-f', 'json', '--run', 'test_dup', dir])
    expect((JSON.parse(dups.stdout) as Array<{ name: string }>).map((r) => r.name)).toEqual([
      'test_dup',
      'test_dup#01',
      'test_dup#02',
    ])
    const first = await runRegent(['test', '--run', '^data\\.cases\\.test_dup$', dir])
    expect(first.code).toBe(0)
    expect(first.stdout).toBe('PASS: 1/1\n')
    const bad = await runRegent(['test', '--run', '(', dir])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('error parsing regexp')
  })
})
