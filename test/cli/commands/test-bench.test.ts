import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

// Benchmarks are bounded with --benchtime Nx; only counts, names, shapes and exit codes are asserted.
let dir: string
let broken: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-test-bench-'))
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
      'test_admin if {',
      '\tprint("checking admin")',
      '\tallow with input as {"admin": true}',
      '}',
      '',
      'test_wrong if allow with input as {"path": []}',
      '',
      'todo_test_later if false',
      '',
    ].join('\n'),
  )
  broken = mkdtempSync(join(tmpdir(), 'regent-test-bench-broken-'))
  writeFileSync(join(broken, 'broken_test.rego'), 'package broken_test\n\ntest_x if {\n')
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(broken, { recursive: true, force: true })
})

const benchLine =
  /^data\.authz_test\.(test_\w+)\t {6}(\d+)\t +\d+ ns\/op\t +(\d+|n\/a) B\/op\t +n\/a allocs\/op$/

describe('regent test --bench', () => {
  it('prints one benchmark line per passing test and reports the others as regent test does', async () => {
    const { code, stdout, stderr } = await runRegent(['test', '--bench', '--benchtime', '20x', dir])
    expect(code).toBe(2)
    // print() output is not repeated once per iteration.
    expect(stderr).toBe('')
    const lines = stdout.split('\n')
    const benches = lines.map((l) => benchLine.exec(l)).filter((m) => m !== null)
    expect(benches.map((m) => [m[1], m[2]])).toEqual([
      ['test_users', '20'],
      ['test_admin', '20'],
    ])
    expect(stdout).toMatch(/authz_test\.rego:\ndata\.authz_test\.test_wrong: FAIL \(/)
    expect(stdout).toContain('data.authz_test.todo_test_later: SKIPPED')
    expect(lines.slice(-5)).toEqual(['-'.repeat(80), 'PASS: 2/4', 'FAIL: 1/4', 'SKIPPED: 1/4', ''])
    const verbose = await runRegent([
      'test',
      '--bench',
      '-v',
      '--benchtime',
      '3x',
      '--run',
      'test_(users|wrong)',
      dir,
    ])
    expect(verbose.code).toBe(2)
    expect(verbose.stdout).toMatch(/^data\.authz_test\.test_users\t {7}3\t/)
    expect(verbose.stdout).toContain(
      `${'-'.repeat(80)}\nFAILURES\n${'-'.repeat(80)}\ndata.authz_test.test_wrong: FAIL (`,
    )
    expect(verbose.stdout).toContain('| Fail data.authz.allow with input as {"path": []}')
  })

  it('prints gobench lines, repeated with --count, and exits 0 when all selected tests pass', async () => {
    const { code, stdout } = await runRegent([
      'test',
      '--bench',
      '--benchtime',
      '5x',
      '--count',
      '2',
      '-f',
      'gobench',
      '--run',
      'test_(users|admin)',
      dir,
    ])
    expect(code).toBe(0)
    const names = stdout
      .split('\n')
      .filter((l) => l.startsWith('Benchmark'))
      .map((l) => l.split('\t').slice(0, 2).join(' '))
    expect(names).toEqual([
      'BenchmarkDataAuthzTestTestUsers        5',
      'BenchmarkDataAuthzTestTestAdmin        5',
      'BenchmarkDataAuthzTestTestUsers        5',
      'BenchmarkDataAuthzTestTestAdmin        5',
    ])
    expect(stdout).not.toContain('allocs/op')
    expect(stdout).toContain('PASS: 4/4')
  })

  it('adds OPA’s benchmark_result to the JSON results of passing tests', async () => {
    const { code, stdout } = await runRegent([
      'test',
      '--bench',
      '--no-benchmem',
      '--benchtime',
      '3x',
      '-f',
      'json',
      '-z',
      dir,
    ])
    expect(code).toBe(2)
    const results = JSON.parse(stdout) as Array<{
      name: string
      fail?: boolean
      skip?: boolean
      benchmark_result?: { N: number; T: number; MemAllocs: null; MemBytes: null }
    }>
    expect(
      results.map((r) => [r.name, r.benchmark_result?.N ?? null, r.fail ?? false, r.skip ?? false]),
    ).toEqual([
      ['test_users', 3, false, false],
      ['test_admin', 3, false, false],
      ['test_wrong', null, true, false],
      ['todo_test_later', null, false, true],
    ])
    expect(results[0]?.benchmark_result).toMatchObject({ MemAllocs: null, MemBytes: null })
    expect(results[0]?.benchmark_result?.T).toBeGreaterThan(0)
  })

  it('refuses gobench without --bench, and exits 1 on malformed Rego', async () => {
    const gobench = await runRegent(['test', '-f', 'gobench', dir])
    expect(gobench.code).toBe(2)
    expect(gobench.stderr).toContain('-f gobench needs --bench')
    const parse = await runRegent(['test', '--bench', '--benchtime', '5x', broken])
    expect(parse.code).toBe(1)
    expect(parse.stderr).toContain('rego_parse_error')
  })
})
