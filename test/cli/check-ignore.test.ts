import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

/** A folder with one good policy, one broken one and a broken one inside `vendor/`. */
function fixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'regent-check-ignore-'))
  writeFileSync(join(dir, 'good.rego'), 'package good\n\nallow if input.x\n')
  writeFileSync(join(dir, 'broken_wip.rego'), 'package wip\n\nallow if {\n')
  mkdirSync(join(dir, 'vendor'))
  writeFileSync(join(dir, 'vendor', 'lib.rego'), 'package lib\n\nx := y\n')
  return dir
}

describe('regent check --ignore', () => {
  it('skips files and directories whose name matches, as opa check --ignore does', async () => {
    const dir = fixture()
    const all = await runRegent(['check', dir])
    expect(all.code).toBe(1)
    expect(all.stdout).toContain('broken_wip.rego')
    const one = await runRegent(['check', '--ignore', '*_wip.rego', dir])
    expect(one.code).toBe(1)
    expect(one.stdout).not.toContain('broken_wip.rego')
    expect(one.stdout).toContain('vendor')
    const both = await runRegent(['check', '--ignore', '*_wip.rego', '--ignore', 'vendor', dir])
    expect(both).toMatchObject({ code: 0, stdout: '' })
  })

  it('uses Go glob rules: ? is one character, [..] a class', async () => {
    const dir = fixture()
    const q = await runRegent(['check', '--ignore', 'broken_wi?.rego', '--ignore', '[uv]endor', dir])
    expect(q).toMatchObject({ code: 0, stdout: '' })
    const miss = await runRegent(['check', '--ignore', 'broken_w?.rego', '--ignore', 'vendor', dir])
    expect(miss.code).toBe(1)
  })

  it('skips a named file that matches, and applies to bundles read with -b', async () => {
    const dir = fixture()
    const named = await runRegent([
      'check',
      '--ignore',
      '*_wip.rego',
      join(dir, 'broken_wip.rego'),
      join(dir, 'good.rego'),
    ])
    expect(named).toMatchObject({ code: 0, stdout: '' })
    const bundle = await runRegent(['check', '-b', '--ignore', '*_wip.rego', '--ignore', 'vendor', dir])
    expect(bundle).toMatchObject({ code: 0, stdout: '' })
    const bundleAll = await runRegent(['check', '-b', dir])
    expect(bundleAll.code).toBe(1)
  })
})
