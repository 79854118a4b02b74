import { describe, expect, it } from 'vitest'
import { bundleFromParts } from '../../../core/bundle/index.js'
import { packagePath } from '../../../core/bundle/package-path.js'
import { checkRootsDisjoint, rootsContain } from '../../../core/bundle/roots.js'

describe('roots', () => {
  it('contain paths segment-wise', () => {
    expect(rootsContain(['a/b'], 'a/b/c')).toBe(true)
    expect(rootsContain(['a/b'], 'a/bc')).toBe(false)
    expect(rootsContain([''], 'anything')).toBe(true)
  })

  it('must not overlap within a manifest', () => {
    expect(() => checkRootsDisjoint(['a', 'a/b'])).toThrow(/"a" and "a\/b"/)
    expect(() => checkRootsDisjoint(['a', 'ab'])).not.toThrow()
    expect(() => bundleFromParts({ modules: {}, manifest: { roots: ['', 'x'] } })).toThrow(
      /overlapping roots/,
    )
  })

  it('must hold every module package and every data value', () => {
    expect(() =>
      bundleFromParts({
        modules: { 'p.rego': 'package a.b\n' },
        data: { c: 1 },
        manifest: { roots: ['a/b'] },
      }),
    ).toThrow(/do not permit data at path \/c/)
    const ok = bundleFromParts({
      modules: { 'p.rego': '# comment\npackage a.b\n' },
      data: { a: { b: { x: 1 } }, c: { d: 2 } },
      manifest: { roots: ['a/b', 'c/d'] },
    })
    expect(ok.data).toEqual({ a: { b: { x: 1 } }, c: { d: 2 } })
  })
})

describe('packagePath', () => {
  it.each([
    ['package a.b.c\n', 'a/b/c'],
    ['# package wrong\npackage x # trailing\n', 'x'],
    ['package a["b.c"].d\n', 'a/b.c/d'],
    ['package a[`raw`]\n', 'a/raw'],
    ['\n\n  package spaced\nimport rego.v1\n', 'spaced'],
  ])('%j -> %s', (source, want) => {
    expect(packagePath(source, 'm.rego')).toBe(want)
  })

  it('refuses a module without a package, naming it', () => {
    expect(() => packagePath('allow := true\n', 'x/m.rego')).toThrow(/x\/m\.rego has no valid package/)
  })
})
