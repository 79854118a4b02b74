/**
 * `regent build -O 1|2` rewrites entrypoints by partial evaluation: the bundle gets
 * `optimized/…rego` files, `regent eval -b` decides with it as with the sources, an entrypoint that
 * uses `with` is kept as written and named on stderr, and the manifest changes as OPA's does (the
 * partial namespace becomes a root, the revision is cleared unless `-r`). Through the real CLI.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../core/bundle/index.js'
import { runRegent } from '../support/run-cli.js'

let dir: string

const RBAC = `package rbac

default allow := false

allow if {
	some grant in user_grants
	input.action == grant.action
}

allow if "admin" in data.rbac_roles[input.user]

user_grants contains grant if {
	some role in data.rbac_roles[input.user]
	some grant in data.rbac_grants[role]
}

uses_with if allow with input.user as "alice"
`

const INPUTS = [
  { user: 'alice' },
  { user: 'bob', action: 'read' },
  { user: 'bob', action: 'write' },
  { user: 'carol', action: 'read' },
  {},
]

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-build-O-rewrite-'))
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'rbac.rego'), RBAC)
  writeFileSync(
    join(dir, 'src', 'data.json'),
    JSON.stringify({
      rbac_roles: { alice: ['admin'], bob: ['dev'], carol: [] },
      rbac_grants: { dev: [{ action: 'read' }] },
    }),
  )
  mkdirSync(join(dir, 'rooted'))
  writeFileSync(join(dir, 'rooted', '.manifest'), JSON.stringify({ roots: ['gate'], revision: 'r1' }))
  writeFileSync(
    join(dir, 'rooted', 'gate.rego'),
    'package gate\n\nallow if {\n\tinput.ok\n\tnot blocked\n}\n\nblocked if input.user == "eve"\n',
  )
  writeFileSync(join(dir, 'never.rego'), 'package never\n\np if 1 == 2\n')
  writeFileSync(join(dir, 'taken.rego'), 'package partial.mine\n\nq := 1\n\np if input.x == q\n')
  writeFileSync(join(dir, 'cases.json'), JSON.stringify({ cases: INPUTS }))
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** data.rbac.allow for every input, in one process (`with input as` each case). */
async function decisions(source: string[]): Promise<string> {
  const query = '[a | some c in data.cases; a := data.rbac.allow with input as c]'
  const r = await runRegent(['eval', ...source, '-d', join(dir, 'cases.json'), '-f', 'values', query], {
    timeoutMs: 60_000,
  })
  expect(r).toMatchObject({ code: 0, stderr: '' })
  return r.stdout
}

describe('regent build -O rewrites entrypoints', () => {
  for (const level of ['1', '2']) {
    it(`-O ${level}: optimized/ files, the same decisions as the sources`, async () => {
      const out = join(dir, `rbac-${level}.tar.gz`)
      // --prune-unused: uses_with refers to allow and would be an entrypoint too (kept: it uses with).
      const built = await runRegent([
        'build',
        '-O',
        level,
        '--prune-unused',
        '-e',
        'rbac/allow',
        '-o',
        out,
        join(dir, 'src'),
      ])
      expect(built).toMatchObject({ code: 0, stderr: '' })
      const bundle = await readBundle(readFileSync(out))
      expect(bundle.modules.map((m) => m.path)).toContain('optimized/rbac.rego')
      expect(bundle.modules.find((m) => m.path === 'optimized/rbac.rego')?.source).toContain('allow')
      const [want, got] = await Promise.all([decisions(['-d', join(dir, 'src')]), decisions(['-b', out])])
      // alice is an admin, bob may read; bob writing, carol and no user are refused.
      expect(JSON.parse(want)).toEqual([[true, true, false, false, false]])
      expect(got).toEqual(want)
    })
  }

  it('keeps an entrypoint that uses with as written, saying why on stderr', async () => {
    const out = join(dir, 'with.tar.gz')
    const r = await runRegent(['build', '-O', '2', '-e', 'rbac/uses_with', '-o', out, join(dir, 'src')])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^regent: build -O 2: rbac\/uses_with kept as written: uses with/)
    const bundle = await readBundle(readFileSync(out))
    expect(bundle.modules.map((m) => m.path)).toEqual(['src/rbac.rego'])
  })

  it('adds the partial namespace to the roots and clears the revision unless -r', async () => {
    const plain = join(dir, 'roots.tar.gz')
    const revised = join(dir, 'roots-r.tar.gz')
    const args = ['-b', '-O', '1', '-e', 'gate/allow', '--partial-namespace', 'opt.ns']
    const [a, b] = await Promise.all([
      runRegent(['build', ...args, '-o', plain, join(dir, 'rooted')]),
      runRegent(['build', ...args, '-r', 'v7', '-o', revised, join(dir, 'rooted')]),
    ])
    expect(a.code).toBe(0)
    expect(b.code).toBe(0)
    const [pa, pb] = await Promise.all([readBundle(readFileSync(plain)), readBundle(readFileSync(revised))])
    expect(pa.manifest.revision ?? '').toBe('')
    expect(pb.manifest.revision).toBe('v7')
    // -O 1 keeps `not blocked` as a synthetic rule under the namespace, which becomes a root.
    expect(pa.manifest.roots).toEqual(['gate', 'opt/ns'])
    expect(pa.modules.map((m) => m.path)).toEqual(['optimized/gate.rego', 'optimized/opt/ns.rego'])
    expect(pa.modules[1]?.source).toMatch(/^package opt\.ns\n/)
  })

  it('fails on an entrypoint that is never defined and on a namespace the bundle uses (exit 1)', async () => {
    const [never, taken] = await Promise.all([
      runRegent(['build', '-O', '1', '-e', 'never/p', '-o', join(dir, 'x.tar.gz'), join(dir, 'never.rego')]),
      runRegent([
        'build',
        '-O',
        '1',
        '-e',
        'partial/mine/p',
        '-o',
        join(dir, 'y.tar.gz'),
        join(dir, 'taken.rego'),
      ]),
    ])
    expect(never.code).toBe(1)
    expect(never.stderr).toContain('undefined entrypoint data["never"]["p"]')
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain('--partial-namespace partial: the bundle already has package partial.mine')
  })
})
