/**
 * `regent license` / `license trial` say regent needs no licence and exit 0; the licence flags of
 * the spec are accepted on exactly the commands the spec gives them to, with one line on stderr,
 * and the command still does its work.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string
const NOTICE = /^regent: .* ignored: regent needs no license\n$/

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-license-'))
  writeFileSync(join(dir, 'p.rego'), 'package p\n\nallow if input.user == "alice"\n')
  writeFileSync(
    join(dir, 'p_test.rego'),
    'package p_test\n\nimport data.p\n\ntest_alice if p.allow with input.user as "alice"\n',
  )
  mkdirSync(join(dir, 'inputs'))
  writeFileSync(join(dir, 'inputs', 'a.json'), '{"user": "alice"}')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent license', () => {
  it('says no licence is needed and exits 0, with or without its flags', async () => {
    const plain = await runRegent(['license'])
    expect(plain.code).toBe(0)
    expect(plain.stdout).toContain('regent needs no license')
    const flagged = await runRegent(['license', '--license-key', 'k.txt', '--license-token', 't.txt'])
    expect(flagged.code).toBe(0)
    expect(flagged.stdout).toContain('regent needs no license')
    expect(flagged.stderr).toMatch(NOTICE)
  })

  it('license trial accepts every flag of the spec and exits 0', async () => {
    const r = await runRegent([
      'license',
      'trial',
      '--company',
      'ACME',
      '--country',
      'FR',
      '--email',
      'a@example.com',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
    ])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('no trial')
  })

  it('license trial --key-only leaves stdout empty (a script reads it as the key) and explains on stderr', async () => {
    const r = await runRegent(['license', 'trial', '--key-only'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('regent needs no license')
  })
})

describe('licence flags on other commands', () => {
  it('eval takes --license-key/--license-token, prints one notice and still evaluates', async () => {
    const r = await runRegent(['eval', '--license-key', 'k', '--license-token', 't', '-f', 'raw', '1 + 1'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('2')
    expect(r.stderr).toBe('regent: --license-key, --license-token ignored: regent needs no license\n')
  })

  it('exec takes --no-license-fallback and the key flags', async () => {
    const r = await runRegent([
      'exec',
      '--no-license-fallback',
      '--license-key',
      'k',
      '--decision',
      'p/allow',
      '-b',
      dir,
      join(dir, 'inputs'),
    ])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(NOTICE)
    expect((JSON.parse(r.stdout) as { result: Array<{ result: unknown }> }).result[0]?.result).toBe(true)
  })

  it('test takes --license-token and still runs the tests', async () => {
    const r = await runRegent(['test', '--license-token', 't', dir])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(NOTICE)
  })

  it('run takes all five of its licence flags', async () => {
    const r = await runRegent(
      [
        'run',
        '--license-key',
        'k',
        '--license-token',
        't',
        '--no-license-fallback',
        '--license-discovery-timeout',
        '5',
        '--no-discovery-license-check',
        join(dir, 'p.rego'),
      ],
      { stdin: 'data.p.allow with input.user as "alice"\n' },
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('true\n')
    expect(r.stderr).toMatch(NOTICE)
    expect(r.stderr).toContain('--no-discovery-license-check')
  })

  it('no notice without licence flags, and a command the spec gives none refuses them (exit 2)', async () => {
    const quiet = await runRegent(['eval', '-f', 'raw', '1 + 1'])
    expect(quiet.stderr).toBe('')
    const check = await runRegent(['check', '--license-key', 'k', dir])
    expect(check.code).toBe(2)
    expect(check.stderr).toContain('--license-key')
  })
})
