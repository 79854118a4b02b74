import { describe, expect, it } from 'vitest'
import { bundleFromParts, mergeBundles } from '../../../core/bundle/index.js'

const a = bundleFromParts({
  modules: { 'a/p.rego': 'package a\n' },
  data: { a: { x: 1 } },
  manifest: { roots: ['a'], revision: 'r' },
})
const b = bundleFromParts({
  modules: { 'b/p.rego': 'package b\n' },
  data: { b: { y: 2 } },
  manifest: { roots: ['b'], revision: 'r' },
})

describe('mergeBundles', () => {
  it('combines modules, data and roots', () => {
    const merged = mergeBundles([
      { name: 'one', bundle: a },
      {
        name: 'two',
        bundle: { ...b, dataFiles: [{ path: 'b/data.json', raw: new TextEncoder().encode('{"y": 2}') }] },
      },
    ])
    expect(merged.manifest).toEqual({ roots: ['a', 'b'], revision: 'r' })
    expect(merged.modules.map((m) => m.path)).toEqual(['a/p.rego', 'b/p.rego'])
    expect(merged.data).toEqual({ a: { x: 1 }, b: { y: 2 } })
  })

  it('fails on overlapping roots, naming both bundles', () => {
    const c = bundleFromParts({ modules: { 'c.rego': 'package a.c\n' }, manifest: { roots: ['a/c'] } })
    expect(() =>
      mergeBundles([
        { name: 'one', bundle: a },
        { name: 'three', bundle: c },
      ]),
    ).toThrow(/bundles one and three have overlapping roots "a" and "a\/c"/)
    const all = bundleFromParts({ modules: {} })
    expect(() =>
      mergeBundles([
        { name: 'x', bundle: all },
        { name: 'y', bundle: all },
      ]),
    ).toThrow(/x and y/)
  })
})
