import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-test-flags-'))
  writeFileSync(
    join(dir, 'authz.rego'),
    [
      'package authz',
      '',
      'allow if {',
      '\tinput.user == "alice"',
      '\tcount(input.roles) > 1',
      '}',
      '',
      'test_alice if allow with input as {"user": "alice", "roles": ["reader"]}',
      '',
      'test_sum if {',
      '\ttotal := 40 + 1',
      '\ttotal == 42',
      '}',
      '',
      'test_passes if true',
      '',
    ].join('\n'),
  )
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('regent test --var-values', () => {
  it("draws, under FAILURES, the expression each failed test stopped at with its variables, as OPA's PrettyEvent", async () => {
    const r = await runRegent(['test', dir, '--var-values'])
    expect(r.code).toBe(2)
    const failures = r.stdout.slice(r.stdout.indexOf('FAILURES'))
    expect(failures).toMatch(/^data\.authz\.test_sum: FAIL \(/m)
    expect(failures).toContain(
      `\n\n  ${join(dir, 'authz.rego')}:12:\n    \ttotal == 42\n    \t|\n    \t41\n\n`,
    )
    // The listing above carries no traces.
    expect(r.stdout.slice(0, r.stdout.indexOf('FAILURES'))).not.toContain('Fail ')
    expect(r.stdout).not.toContain('test_passes')
    expect(r.stdout).toContain('PASS: 1/3\nFAIL: 2/3')
  })

  it('without the flag, failures are listed without traces (and, at the default log level, nothing is logged)', async () => {
    const r = await runRegent(['test', dir])
    expect(r.code).toBe(2)
    expect(r.stdout).toContain('data.authz.test_sum: FAIL')
    expect(r.stdout).not.toContain('Fail ')
    // No variable values (the durations printed beside each test may contain any digits).
    expect(r.stdout).not.toMatch(/__local\d+__: 41/)
    expect(r.stderr).toBe('')
  })

  it('with -v, the traces under FAILURES carry the values', async () => {
    const r = await runRegent(['test', dir, '-v', '--var-values'])
    expect(r.code).toBe(2)
    const failures = r.stdout.slice(r.stdout.indexOf('FAILURES'))
    expect(failures).toMatch(/Fail total = 42 +\{total: 41\}/)
    const plain = await runRegent(['test', dir, '-v'])
    expect(plain.stdout.slice(plain.stdout.indexOf('FAILURES'))).toMatch(/Fail total = 42$/m)
  })
})

describe('regent test -l/--log-format', () => {
  it('-l debug logs one JSON line per test on stderr, the report unchanged on stdout', async () => {
    const [plain, r] = await Promise.all([runRegent(['test', dir]), runRegent(['test', dir, '-l', 'debug'])])
    expect(r.code).toBe(2)
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const finished = lines.filter((l) => l.msg === 'test finished')
    expect(finished.map((l) => [l.name, l.result])).toEqual([
      ['data.authz.test_alice', 'fail'],
      ['data.authz.test_sum', 'fail'],
      ['data.authz.test_passes', 'pass'],
    ])
    for (const l of lines) expect(l.level).toBe('debug')
    expect(lines.find((l) => l.msg === 'tests discovered')?.tests).toBe(3)
    const withoutTimes = (s: string) => s.replace(/\(\d[^)]*\)/g, '')
    expect(withoutTimes(r.stdout)).toBe(withoutTimes(plain.stdout))
  })

  it('--log-format text writes `time level msg key=value` lines', async () => {
    const r = await runRegent(['test', dir, '-l', 'debug', '--log-format', 'text'])
    expect(r.stderr).toMatch(
      /^\S+ debug test finished name="data\.authz\.test_passes" result="pass" duration_ns=\d+$/m,
    )
  })

  it('refuses an unknown level or format', async () => {
    const [level, format] = await Promise.all([
      runRegent(['test', dir, '-l', 'loud']),
      runRegent(['test', dir, '--log-format', 'xml']),
    ])
    expect(level.code).not.toBe(0)
    expect(level.stderr).toContain("'loud' is invalid")
    expect(format.code).not.toBe(0)
    expect(format.stderr).toContain("'xml' is invalid")
  })
})
