/**
 * The optimizer's rules besides exact decisions (optimize-differential.test.ts): data outside the
 * roots stays unknown, each entrypoint's synthetic rules get their own package, the manifest
 * changes as OPA's does, and the refusals (an undefined entrypoint, a namespace in use).
 */
import { describe, expect, it } from 'vitest'
import { type Bundle, bundleFromParts } from '../../../../core/bundle/index.js'
import {
  NamespaceTakenError,
  optimizeBundle,
  UndefinedEntrypointError,
} from '../../../../core/bundle/optimize/optimize.js'
import { compile, evaluate, type Module, parseModule, toJSONText } from '../../../../core/rego/index.js'

async function decide(bundle: Bundle, extraData: Record<string, unknown>, query: string, input: unknown) {
  const modules = new Map<string, Module>()
  for (const m of bundle.modules) modules.set(m.path, parseModule(m.source, { file: m.path }))
  const policy = compile(modules, { ...bundle.data, ...extraData })
  const run = await evaluate(`x = ${query}`, input, { policy })
  return run.results.map((r) => toJSONText(r.bindings.get('x')!)).join(' | ') || 'undefined'
}

describe('optimizeBundle', () => {
  it('keeps data outside the manifest roots unknown: another bundle provides it at run time', async () => {
    const original = bundleFromParts({
      modules: {
        'gate.rego':
          'package gate\n\nallow if data.users[input.user].admin\n\nallow if input.user in data.gate.guests\n',
      },
      data: { gate: { guests: ['gina'] } },
      manifest: { roots: ['gate'] },
    })
    const { bundle, outcomes } = await optimizeBundle(original, { entrypoints: ['gate/allow'], level: 2 })
    expect(outcomes).toEqual([{ entrypoint: 'gate/allow', optimized: true }])
    const text = bundle.modules.map((m) => m.source).join('\n')
    expect(text).toContain('data.users')
    expect(text).toContain('"gina"')
    const users = { users: { ann: { admin: true }, bob: { admin: false } } }
    for (const user of ['ann', 'bob', 'gina', 'zed']) {
      const want = await decide(original, users, 'data.gate.allow', { user })
      expect(await decide(bundle, users, 'data.gate.allow', { user })).toBe(want)
    }
  })

  it('gives each entrypoint its own package of synthetic rules, and sets up the manifest', async () => {
    const original = bundleFromParts({
      modules: {
        'p.rego':
          'package p\n\na if {\n\tinput.x\n\tnot q\n}\n\nb if {\n\tinput.y\n\tnot r\n}\n\nq if input.z == 1\n\nr if input.z == 2\n',
      },
      manifest: { roots: ['p'], revision: 'r1' },
    })
    const { bundle } = await optimizeBundle(original, { entrypoints: ['p/a', 'p/b'], level: 1 })
    const paths = bundle.modules.map((m) => m.path)
    expect(paths).toEqual(expect.arrayContaining(['optimized/partial.rego', 'optimized/partial/e1.rego']))
    expect(paths.every((p) => p.startsWith('optimized/'))).toBe(true)
    expect(bundle.manifest.roots).toEqual(['p', 'partial'])
    expect(bundle.manifest.revision).toBeUndefined()
    for (const input of [{}, { x: true }, { x: true, z: 1 }, { y: true, z: 2 }, { y: true, z: 1 }]) {
      for (const q of ['data.p.a', 'data.p.b'])
        expect(await decide(bundle, {}, q, input)).toBe(await decide(original, {}, q, input))
    }
  })

  it('refuses an entrypoint that is never defined, and a namespace the bundle uses', async () => {
    const never = bundleFromParts({ modules: { 'n.rego': 'package n\n\np if 1 == 2\n' } })
    await expect(optimizeBundle(never, { entrypoints: ['n/p'], level: 1 })).rejects.toThrow(
      UndefinedEntrypointError,
    )
    const taken = bundleFromParts({ modules: { 't.rego': 'package opt.x\n\np if input.a\n' } })
    await expect(
      optimizeBundle(taken, { entrypoints: ['opt/x/p'], level: 1, partialNamespace: 'opt' }),
    ).rejects.toThrow(NamespaceTakenError)
  })

  it('keeps an entrypoint whose partial evaluation exceeds the work budget as written', async () => {
    const original = bundleFromParts({
      modules: {
        'big.rego': 'package big\n\nallow if {\n\tsome i in numbers.range(1, 5000)\n\tinput.x == i\n}\n',
      },
    })
    const limited = await optimizeBundle(original, {
      entrypoints: ['big/allow'],
      level: 2,
      instructionLimit: 1000,
    })
    expect(limited.outcomes[0]).toMatchObject({ optimized: false, reason: expect.stringContaining('limit') })
    expect(limited.bundle).toBe(original)
  })

  it('keeps entrypoints that call rego.metadata or opa.runtime as written', async () => {
    const original = bundleFromParts({
      modules: {
        'm.rego':
          'package m\n\n# METADATA\n# title: the gate\nallow if rego.metadata.rule().title == input.t\n\nenv if opa.runtime().env.HOME == input.h\n',
      },
    })
    const { outcomes } = await optimizeBundle(original, { entrypoints: ['m/allow', 'm/env'], level: 2 })
    expect(outcomes.map((o) => [o.entrypoint, o.optimized, o.reason?.split(',')[0]])).toEqual([
      ['m/allow', false, 'calls rego.metadata.rule'],
      ['m/env', false, 'calls opa.runtime'],
    ])
  })

  it('keeps a package entrypoint as written and returns the bundle unchanged', async () => {
    const original = bundleFromParts({ modules: { 'k.rego': 'package k\n\np if input.a\n' } })
    const { bundle, outcomes } = await optimizeBundle(original, { entrypoints: ['k'], level: 2 })
    expect(outcomes[0]).toMatchObject({ entrypoint: 'k', optimized: false })
    expect(bundle).toBe(original)
  })
})
