/**
 * `--capabilities` of `regent check`, `regent eval` and `regent test` (build:
 * test/cli/build.test.ts): the file's built-ins are the only ones the compiler knows, so a call to
 * any other fails with OPA's `rego_type_error: undefined function NAME`. A function the file
 * declares that regent lacks compiles with its declared type and, as in OPA (topdown's
 * unsupportedBuiltinErr), fails with `eval_internal_error: unsupported built-in` when called;
 * `with` can replace it, which is how `opa test --capabilities` runs tests of another tool's
 * custom built-ins.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadCapabilities } from '../../cli/capabilities-option.js'
import { currentCapabilities } from '../../cli/commands/capabilities.js'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-capabilities-'))
const current = currentCapabilities() as { builtins: Array<{ name: string }> }
const caps = join(dir, 'caps.json')
writeFileSync(
  caps,
  JSON.stringify({
    ...current,
    builtins: current.builtins.filter((b) => b.name !== 'upper'),
    allow_net: ['example.com'],
  }),
)
const policy = join(dir, 'p.rego')
writeFileSync(policy, 'package p\n\nshout := upper("hi")\n')

describe('--capabilities', () => {
  it('reads a file into the listed built-ins and allow_net', async () => {
    const loaded = await loadCapabilities(caps)
    expect(loaded?.builtins.some((b) => b.name === 'upper')).toBe(false)
    expect(loaded?.builtins.some((b) => b.name === 'lower')).toBe(true)
    expect(loaded?.allowNet).toEqual(['example.com'])
    expect(await loadCapabilities(undefined)).toBeUndefined()
    await expect(loadCapabilities(join(dir, 'nope.json'))).rejects.toThrow(/no such file/)
    writeFileSync(join(dir, 'bad.json'), '{"builtins": [{"nom": "x"}]}')
    await expect(loadCapabilities(join(dir, 'bad.json'))).rejects.toThrow(/builtins\[0\] has no "name"/)
  })

  it('regent check fails on a built-in missing from the capabilities file', async () => {
    const refused = await runRegent(['check', '--capabilities', caps, policy])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toMatch(/p\.rego:3: rego_type_error: undefined function upper/)
    const allowed = await runRegent(['check', policy])
    expect([allowed.code, allowed.stdout]).toEqual([0, ''])
  })

  it("regent check parses with the file's future keywords and features (not-bodies, rego.v2)", async () => {
    const old = join(dir, 'old.json')
    writeFileSync(
      old,
      JSON.stringify({
        ...current,
        future_keywords: ['contains', 'every', 'if', 'in'],
        features: ['rego_v1'],
      }),
    )
    const notImport = join(dir, 'not.rego')
    writeFileSync(notImport, 'package q\n\nimport future.keywords.not\n\nr if not { input.a; input.b }\n')
    const v2 = join(dir, 'v2.rego')
    writeFileSync(v2, 'package v\n\nimport rego.v2\n\nr if not { input.a; input.b }\n')
    const refused = await runRegent(['check', '--capabilities', old, notImport])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toContain(
      'not.rego:3: rego_parse_error: unexpected keyword, must be one of [contains every if in]',
    )
    const orImport = join(dir, 'or.rego')
    writeFileSync(orImport, 'package o\n\nimport future.keywords.or\n\nr if input.a or input.b\n')
    const refusedOr = await runRegent(['check', '--capabilities', old, orImport])
    expect(refusedOr.stdout).toContain('unexpected keyword, must be one of [contains every if in]')
    const allowedOr = await runRegent(['check', '--capabilities', caps, orImport])
    expect([allowedOr.code, allowedOr.stdout]).toEqual([0, ''])
    const refusedV2 = await runRegent(['check', '--capabilities', old, v2])
    expect(refusedV2.stdout).toContain('invalid import, `rego.v2` is not supported by current capabilities')
    const allowed = await runRegent(['check', '--capabilities', caps, notImport, v2])
    expect([allowed.code, allowed.stdout]).toEqual([0, ''])
  })

  it('regent eval fails on it too, in policies and in the query', async () => {
    const refused = await runRegent(['eval', '--capabilities', caps, '-d', policy, 'data.p.shout'])
    expect(refused.code).toBe(2)
    expect(JSON.parse(refused.stdout).errors[0]).toMatchObject({
      code: 'rego_type_error',
      message: 'undefined function upper',
    })
    const inQuery = await runRegent(['eval', '--capabilities', caps, '-f', 'pretty', 'x := upper("a")'])
    expect(inQuery.code).toBe(2)
    expect(inQuery.stderr).toMatch(/rego_type_error: undefined function upper/)
    const allowed = await runRegent(['eval', '-f', 'raw', '-d', policy, 'data.p.shout'])
    expect([allowed.code, allowed.stdout]).toEqual([0, 'HI\n'])
  })

  it('regent test compiles functions the file declares and regent lacks; with replaces them', async () => {
    const custom = join(dir, 'custom.json')
    const decl = { type: 'function', args: [{ type: 'string' }], result: { type: 'any' } }
    writeFileSync(
      custom,
      JSON.stringify({ ...current, builtins: [...current.builtins, { name: 'acme.fetch', decl }] }),
    )
    const tests = join(dir, 'custom_test.rego')
    writeFileSync(
      tests,
      [
        'package custom_test',
        '',
        'kind(ref) := acme.fetch(ref).kind',
        '',
        'mock(_) := {"kind": "fn"}',
        '',
        'test_value if kind("r") == "value" with acme.fetch as {"kind": "value"}',
        '',
        'test_function if kind("r") == "fn" with acme.fetch as mock',
        '',
        'test_called if kind("r") == "x"',
        '',
      ].join('\n'),
    )
    const run = await runRegent(['test', '--capabilities', custom, '-f', 'json', tests])
    expect(run.code).toBe(2)
    const results = JSON.parse(run.stdout) as Array<{
      name: string
      fail?: boolean
      error?: { code: string; message: string; location: { row: number } }
    }>
    // OPA's JSON reporter writes the evaluation error itself: code, message and location apart.
    expect(
      results.map((r) => [
        r.name,
        r.fail === true,
        r.error && `${r.error.code}: ${r.error.message} (row ${r.error.location.row})`,
      ]),
    ).toEqual([
      ['test_value', false, undefined],
      ['test_function', false, undefined],
      ['test_called', false, 'eval_internal_error: unsupported built-in (row 3)'],
    ])
    const undeclared = await runRegent(['test', tests])
    expect(undeclared.code).toBe(1)
    expect(undeclared.stderr).toMatch(
      /with keyword target must reference existing input, data, or a function/,
    )
    writeFileSync(
      join(dir, 'badecl.json'),
      JSON.stringify({ builtins: [{ name: 'acme.x', decl: { type: 'nope' } }] }),
    )
    await expect(loadCapabilities(join(dir, 'badecl.json'))).rejects.toThrow(
      /\(acme\.x\) has a malformed "decl"/,
    )
  })

  it('regent eval limits http.send to the allow_net hosts', async () => {
    const send = 'http.send({"method": "GET", "url": "http://127.0.0.1:9/"}, r)'
    const refused = await runRegent([
      'eval',
      '--capabilities',
      caps,
      '--strict-builtin-errors',
      '-f',
      'pretty',
      send,
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/http\.send: unallowed host: 127\.0\.0\.1/)
  })
})
