/**
 * `regent build -t plan` (spec 002_, build behaviour 3): the bundle keeps its Rego and data and
 * gains /plan.json for the entrypoints from -e and annotations (plus the rules referring to them
 * unless --prune-unused); no entrypoint is refused as opa refuses it; a construct outside the plan
 * subset is refused with exit 2 and one line naming it and its file:line. Through the real CLI.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle, writeBundle } from '../../core/bundle/index.js'
import type { Policy } from '../../core/rego/plan/ir.js'
import { runRegent } from '../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-build-plan-'))
  mkdirSync(join(dir, 'annotated'))
  writeFileSync(
    join(dir, 'annotated', 'authz.rego'),
    'package authz\n\n# METADATA\n# entrypoint: true\nallow if input.user == "alice"\n\naudit if allow\n',
  )
  writeFileSync(join(dir, 'annotated', 'other.rego'), 'package other\n\nuses if data.authz.audit\n')
  writeFileSync(join(dir, 'annotated', 'data.json'), '{"limits": {"max": 3}}')
  writeFileSync(join(dir, 'plain.rego'), 'package plain\n\np := 1\n\ndouble(x) := x * 2\n')
  writeFileSync(join(dir, 'printing.rego'), 'package pr\n\np if {\n  print("checking")\n  input.x == 1\n}\n')
  writeFileSync(
    join(dir, 'with.rego'),
    'package w\n\nok if input.x == 1\n\nmocked if {\n  ok with data.w.ok as true\n}\n',
  )
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function planOf(file: string): Promise<{ policy: Policy; modules: string[]; data: unknown }> {
  const bundle = await readBundle(readFileSync(file))
  const plan = bundle.files.find((f) => f.path === 'plan.json')
  if (!plan) throw new Error('no plan.json in the bundle')
  return {
    policy: JSON.parse(new TextDecoder().decode(plan.raw)) as Policy,
    modules: bundle.modules.map((m) => m.path),
    data: bundle.data,
  }
}

describe('regent build -t plan', () => {
  it('adds /plan.json for annotated entrypoints and the rules referring to them, keeping Rego and data', async () => {
    const all = join(dir, 'all.tar.gz')
    const pruned = join(dir, 'pruned.tar.gz')
    const [a, b] = await Promise.all([
      runRegent(['build', '-t', 'plan', '-o', all, join(dir, 'annotated')]),
      runRegent(['build', '-t', 'plan', '--prune-unused', '-o', pruned, join(dir, 'annotated')]),
    ])
    expect(a.code, a.stderr).toBe(0)
    expect(b.code, b.stderr).toBe(0)
    const full = await planOf(all)
    expect(full.policy.plans.plans.map((p) => p.name)).toEqual(['authz/allow', 'authz/audit', 'other/uses'])
    expect(full.modules).toEqual(['annotated/authz.rego', 'annotated/other.rego'])
    expect(full.data).toEqual({ limits: { max: 3 } })
    expect(full.policy.funcs.funcs.map((f) => f.name)).toContain('g0.data.authz.allow')
    const only = await planOf(pruned)
    expect(only.policy.plans.plans.map((p) => p.name)).toEqual(['authz/allow'])
  })

  it('plans the -e entrypoints it is given, signs plan.json with the bundle, and lists plans with --debug', async () => {
    const out = join(dir, 'e.tar.gz')
    const r = await runRegent([
      'build',
      '-t',
      'plan',
      '-e',
      'plain/p',
      '--signing-key',
      'secret',
      '--signing-alg',
      'HS256',
      '--debug',
      '-o',
      out,
      join(dir, 'plain.rego'),
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('plan: plain/p')
    const { policy } = await planOf(out)
    expect(policy.plans.plans.map((p) => p.name)).toEqual(['plain/p'])
    const verification = { keys: { default: { key: 'secret', algorithm: 'HS256' } }, keyId: 'default' }
    const signed = await readBundle(readFileSync(out), { verification })
    expect(signed.files.map((f) => f.path)).toContain('plan.json')
    // A plan.json changed after signing no longer verifies.
    const tampered = await readBundle(readFileSync(out))
    const bytes = await writeBundle({
      ...tampered,
      files: tampered.files.map((f) =>
        f.path === 'plan.json' ? { ...f, raw: new TextEncoder().encode('{}') } : f,
      ),
    })
    await expect(readBundle(bytes, { verification })).rejects.toThrow(/plan\.json/)
  })

  it('erases print() before planning, as opa build does, and the engine still evaluates the Rego', async () => {
    const out = join(dir, 'print.tar.gz')
    const built = await runRegent([
      'build',
      '-t',
      'plan',
      '-e',
      'pr/p',
      '-o',
      out,
      join(dir, 'printing.rego'),
    ])
    expect(built.code, built.stderr).toBe(0)
    const { policy } = await planOf(out)
    expect(policy.static.builtin_funcs.map((b) => b.name)).not.toContain('internal.print')
    const evaluated = await runRegent(['eval', '-b', out, '-I', '-f', 'raw', 'data.pr.p'], {
      stdin: '{"x": 1}',
    })
    expect(evaluated.code, evaluated.stderr).toBe(0)
    expect(evaluated.stdout.trim()).toBe('true')
  })

  it('refuses a plan without entrypoints, and an entrypoint naming a function (exit 1, nothing written)', async () => {
    const out = join(dir, 'never.tar.gz')
    const [none, fn] = await Promise.all([
      runRegent(['build', '-t', 'plan', '-o', out, join(dir, 'plain.rego')]),
      runRegent(['build', '-t', 'plan', '-e', 'plain/double', '-o', out, join(dir, 'plain.rego')]),
    ])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('plan compilation requires at least one entrypoint')
    expect(fn.code).toBe(1)
    expect(fn.stderr).toContain('entrypoint "plain/double" names a function')
    expect(existsSync(out)).toBe(false)
  })

  it('refuses a construct outside the subset with exit 2 and one line naming it and where it is', async () => {
    const out = join(dir, 'with.tar.gz')
    const r = await runRegent(['build', '-t', 'plan', '-e', 'w/mocked', '-o', out, join(dir, 'with.rego')])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/with\.rego:6: `with` replacing rules is not supported by the plan target/)
    expect(existsSync(out)).toBe(false)
  })

  it('still refuses -t wasm, naming -t rego and -t plan', async () => {
    const r = await runRegent([
      'build',
      '-t',
      'wasm',
      '-e',
      'plain/p',
      '-o',
      join(dir, 'w.tar.gz'),
      join(dir, 'plain.rego'),
    ])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/-t wasm is not available.*-t rego.*-t plan/)
  })
})
