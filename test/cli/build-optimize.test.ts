/**
 * `regent build -O 1|2` entrypoints (spec 002_, behaviour 2): from -e and `entrypoint: true`
 * annotations, rules referring to them added unless --prune-unused, a given path checked, and
 * none at all refused as opa build refuses it. Through the real CLI, exit codes checked.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-build-O-'))
  mkdirSync(join(dir, 'annotated'))
  writeFileSync(
    join(dir, 'annotated', 'authz.rego'),
    'package authz\n\n# METADATA\n# entrypoint: true\nallow if input.user == "alice"\n\naudit if allow\n\nhelper := 1\n',
  )
  writeFileSync(join(dir, 'annotated', 'other.rego'), 'package other\n\nuses if data.authz.audit\n')
  writeFileSync(join(dir, 'plain.rego'), 'package plain\n\np := 1\n')
  mkdirSync(join(dir, 'outside'))
  writeFileSync(join(dir, 'outside', 'e.rego'), 'package ext\n\np := 1\n')
  mkdirSync(join(dir, 'linked'))
  writeFileSync(join(dir, 'linked', 'a.rego'), 'package a\n\nq := 1\n')
  symlinkSync(join(dir, 'outside'), join(dir, 'linked', 'shared'))
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const build = (...args: string[]) =>
  runRegent(['build', '-o', join(dir, `${args.length}-${Math.random()}.tar.gz`), ...args])

describe('regent build -O', () => {
  it('takes annotated entrypoints and, unless --prune-unused, the rules referring to them', async () => {
    const [all, pruned] = await Promise.all([
      build('-O', '1', '--debug', join(dir, 'annotated')),
      build('-O', '2', '--prune-unused', '-e', 'authz/helper', '--debug', join(dir, 'annotated')),
    ])
    expect(all.code).toBe(0)
    expect(all.stderr).toContain('entrypoint: authz/allow (annotation)')
    expect(all.stderr).toContain('entrypoint: authz/audit (refers to an entrypoint)')
    expect(all.stderr).toContain('entrypoint: other/uses (refers to an entrypoint)')
    for (const e of ['authz/allow', 'authz/audit', 'other/uses'])
      expect(all.stderr).toContain(`optimized: ${e}\n`)
    expect(pruned.code).toBe(0)
    expect(pruned.stderr).toContain('entrypoint: authz/helper (-e)')
    expect(pruned.stderr).not.toContain('refers to an entrypoint')
  })

  it('refuses -O without any entrypoint and an -e naming nothing (exit 1, no bundle written)', async () => {
    const out = join(dir, 'never.tar.gz')
    const [none, unknown, zero] = await Promise.all([
      runRegent(['build', '-O', '1', '-o', out, join(dir, 'plain.rego')]),
      runRegent(['build', '-O', '1', '-e', 'plain/nope', '-o', out, join(dir, 'plain.rego')]),
      build('-O', '0', join(dir, 'plain.rego')),
    ])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('bundle optimizations require at least one entrypoint')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('-e plain/nope: no rule or package of the bundle has this path')
    expect(existsSync(out)).toBe(false)
    expect(zero).toMatchObject({ code: 0, stderr: '' })
  })
})

describe('regent build --follow-symlinks', () => {
  it('skips symbolically linked folders unless asked to follow them', async () => {
    const [plain, followed] = await Promise.all([
      build('--debug', join(dir, 'linked')),
      build('--follow-symlinks', '--debug', join(dir, 'linked')),
    ])
    expect(plain.code).toBe(0)
    expect(plain.stderr).toMatch(/module: .*linked\/a\.rego/)
    expect(plain.stderr).not.toContain('shared/e.rego')
    expect(followed.code).toBe(0)
    expect(followed.stderr).toMatch(/module: .*linked\/shared\/e\.rego/)
  })
})
