import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REGENT_VERSION } from '../../../cli/version-info.js'
import { runRegent } from '../../support/run-cli.js'

interface Caps {
  builtins: Array<{
    name: string
    decl: { type: string; args?: unknown[]; result?: unknown }
    infix?: string
    nondeterministic?: boolean
    relation?: boolean
  }>
  future_keywords: string[]
  features: string[]
}

describe('regent capabilities', () => {
  it('prints OPA-shaped capabilities with --current', async () => {
    const { code, stdout } = await runRegent(['capabilities', '--current'])
    expect(code).toBe(0)
    const caps = JSON.parse(stdout) as Caps
    const names = caps.builtins.map((b) => b.name)
    expect(names).toEqual([...names].sort())
    expect(names).toEqual(
      expect.arrayContaining(['count', 'http.send', 'io.jwt.decode_verify', 'graphql.parse', 'walk']),
    )
    const plus = caps.builtins.find((b) => b.name === 'plus')
    expect(plus).toEqual({
      name: 'plus',
      decl: { args: [{ type: 'number' }, { type: 'number' }], result: { type: 'number' }, type: 'function' },
      infix: '+',
    })
    expect(caps.builtins.find((b) => b.name === 'time.now_ns')?.nondeterministic).toBe(true)
    expect(caps.builtins.find((b) => b.name === 'walk')?.relation).toBe(true)
    expect(caps.future_keywords).toEqual(['and', 'contains', 'every', 'if', 'in', 'not', 'or'])
    expect((caps as unknown as { features: string[] }).features).toContain('rego_v2_import')
  })

  it('lists versions without flags, answers its own --version, refuses others', async () => {
    const listed = (await runRegent(['capabilities'])).stdout.trim().split('\n')
    expect(listed.at(-1)).toBe(`v${REGENT_VERSION}`)
    expect(listed).toEqual(expect.arrayContaining(['v0.17.0', 'v0.25.0-rc2', 'v0.56.0']))
    const own = await runRegent(['capabilities', '--version', `v${REGENT_VERSION}`])
    expect(own.code).toBe(0)
    expect(JSON.parse(own.stdout).builtins.length).toBeGreaterThan(150)
    const other = await runRegent(['capabilities', '--version', 'v0.1.2-nope'])
    expect(other.code).toBe(1)
    expect(other.stderr).toContain('no capabilities for version v0.1.2-nope')
  })

  it("checks --file, prints it in OPA's shape, and lets --version beat --file beat --current", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-caps-'))
    writeFileSync(
      join(dir, 'ok.json'),
      JSON.stringify({ builtins: [{ name: 'x', decl: { type: 'function' } }] }),
    )
    writeFileSync(join(dir, 'bad.json'), '{"nope": 1}')
    expect(
      JSON.parse((await runRegent(['capabilities', '--file', join(dir, 'ok.json')])).stdout).builtins[0].name,
    ).toBe('x')
    const bad = await runRegent(['capabilities', '--file', join(dir, 'bad.json')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('not a capabilities document')
    writeFileSync(
      join(dir, 'extra.json'),
      JSON.stringify({ allow_net: ['example.com'], builtins: [], extra: 1, features: ['rego_v1'] }),
    )
    const shaped = await runRegent(['capabilities', '--file', join(dir, 'extra.json')])
    expect(shaped.code).toBe(0)
    expect(JSON.parse(shaped.stdout)).toEqual({
      builtins: [],
      future_keywords: null,
      wasm_abi_versions: null,
      features: ['rego_v1'],
      allow_net: ['example.com'],
    })
    const fileOverCurrent = await runRegent(['capabilities', '--current', '--file', join(dir, 'ok.json')])
    expect(fileOverCurrent.code).toBe(0)
    expect(JSON.parse(fileOverCurrent.stdout).builtins).toHaveLength(1)
    const versionOverFile = await runRegent([
      'capabilities',
      '--file',
      join(dir, 'ok.json'),
      '--version',
      `v${REGENT_VERSION}`,
    ])
    expect(versionOverFile.code).toBe(0)
    expect(JSON.parse(versionOverFile.stdout).builtins.length).toBeGreaterThan(150)
  })
})

describe('regent capabilities --version of a reference engine release', () => {
  const names = async (version: string) => {
    const { code, stdout } = await runRegent(['capabilities', '--version', version])
    expect(code).toBe(0)
    return (JSON.parse(stdout) as Caps).builtins.map((b) => b.name)
  }

  it('prints the built-ins the release had, as builtin_metadata.json records their introduction', async () => {
    const [v17, v36, v56] = await Promise.all([names('v0.17.0'), names('0.36.0'), names('v0.56.0')])
    // array.reverse and the crypto.hmac family arrived in v0.36.0, numbers.range_step in v0.56.0.
    expect(v17).toContain('count')
    expect(v17).not.toContain('array.reverse')
    expect(v36).toEqual(expect.arrayContaining(['array.reverse', 'crypto.hmac.sha256']))
    expect(v36).not.toContain('numbers.range_step')
    expect(v56).toContain('numbers.range_step')
    expect(v17.length).toBeLessThan(v36.length)
    expect(v36.length).toBeLessThan(v56.length)
  })

  it('makes --capabilities vX.Y.Z refuse a built-in the release did not have', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-caps-release-'))
    const file = join(dir, 'rev.rego')
    writeFileSync(file, 'package a\n\nr := array.reverse([1])\n')
    const [old, recent] = await Promise.all([
      runRegent(['check', '--capabilities', 'v0.30.0', file]),
      runRegent(['check', '--capabilities', 'v0.36.0', file]),
    ])
    expect(old.code).toBe(1)
    expect(old.stdout).toContain('undefined function array.reverse')
    expect(recent.code).toBe(0)
  })
})
