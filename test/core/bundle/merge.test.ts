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

  it('combines data files at the same path without losing number lexemes', () => {
    const encoder = new TextEncoder()
    const one = {
      ...a,
      dataFiles: [
        {
          path: 'data.json',
          raw: encoder.encode('{"a": {"price": 2.50, "id": 123456789012345678901234567890}}'),
        },
      ],
    }
    const two = { ...b, dataFiles: [{ path: 'data.json', raw: encoder.encode('{"b": {"y": 1e3}}') }] }
    const merged = mergeBundles([
      { name: 'one', bundle: one },
      { name: 'two', bundle: two },
    ])
    expect(merged.dataFiles.map((f) => [f.path, new TextDecoder().decode(f.raw)])).toEqual([
      ['data.json', '{"a":{"price":2.50,"id":123456789012345678901234567890},"b":{"y":1e3}}'],
    ])
    expect(merged.data).toEqual({ a: { price: 2.5, id: 1.2345678901234568e29 }, b: { y: 1000 } })
  })

  it('names both sources when merged data clashes', () => {
    const encoder = new TextEncoder()
    const one = {
      ...a,
      manifest: { roots: ['a/x'] },
      dataFiles: [{ path: 'data.json', raw: encoder.encode('{"a": {"v": 1}}') }],
    }
    const two = {
      ...a,
      manifest: { roots: ['a/v'] },
      modules: [],
      dataFiles: [{ path: 'data.json', raw: encoder.encode('{"a": {"v": 2}}') }],
    }
    expect(() =>
      mergeBundles([
        { name: 'one', bundle: one },
        { name: 'two', bundle: two },
      ]),
    ).toThrow(/bundle two: data\.json conflicts with bundle one: data\.json at data\.a\.v/)
  })
})
