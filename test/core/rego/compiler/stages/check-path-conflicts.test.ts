/** CheckPathConflicts: compiling with data refuses rules defined where the data holds a value. */
import { describe, expect, it } from 'vitest'
import { compile, parseModule, RegoErrors } from '../../../../../core/rego/index.js'

const modules = new Map([
  ['p.rego', parseModule('package a\n\np := 1\n\nq.r := 2\n\ns[x] := 3 if x := "k"\n', { file: 'p.rego' })],
])

function errorsOf(data: unknown): string[] {
  try {
    compile(modules, data)
    return []
  } catch (err) {
    if (err instanceof RegoErrors) return err.errors.map((e) => `${e.location?.row}: ${e.message}`)
    throw err
  }
}

describe('CheckPathConflicts', () => {
  it('refuses data at a rule path, even an empty object, or a non-object above one', () => {
    expect(errorsOf({ a: { p: {} } })).toEqual(['3: conflicting rule for data path a/p found'])
    expect(errorsOf({ a: { q: 5 } })).toEqual(['5: conflicting rule for data path a/q/r found'])
    // A rule with a variable key sits at its ground prefix, as in OPA's rule tree.
    expect(errorsOf({ a: { s: { k: 1 } } })).toEqual(['7: conflicting rule for data path a/s found'])
  })

  it('accepts data beside rules and objects above them', () => {
    expect(errorsOf({ a: { other: 1, q: { t: 1 } }, b: 1 })).toEqual([])
  })
})
