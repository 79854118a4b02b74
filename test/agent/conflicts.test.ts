/** Base data against rules, and writes against bundle roots, as OPA checks them. */
import { describe, expect, it } from 'vitest'
import { dataConflicts, ownershipConflict } from '../../agent/conflicts.js'
import { compile, parseModule } from '../../core/rego/index.js'
import { parseJSON } from '../../core/rego/values/index.js'

const tree = (source: string) =>
  compile(new Map([['p.rego', parseModule(source, { file: 'p.rego' })]])).compiler.ruleTree

describe('dataConflicts', () => {
  const rules = tree('package a\n\np := 1\n\nq.r := 2\n')
  const messages = (json: string) => dataConflicts(rules, parseJSON(json)).map((e) => e.message)

  it('finds data at a rule path, or a non-object above it', () => {
    expect(messages('{"a": {"p": {}}}')).toEqual(['conflicting rule for data path a/p found'])
    expect(messages('{"a": {"q": {"r": 1}}}')).toEqual(['conflicting rule for data path a/q/r found'])
    expect(messages('{"a": {"q": 5}}')).toEqual(['conflicting rule for data path a/q/r found'])
    expect(messages('{"a": 5}')).toEqual([
      'conflicting rule for data path a/p found',
      'conflicting rule for data path a/q/r found',
    ])
  })

  it('allows data beside rules and objects above them', () => {
    expect(messages('{"a": {"other": 1, "q": {"s": 1}}, "b": 1}')).toEqual([])
  })

  it('points at the rule', () => {
    expect(dataConflicts(rules, parseJSON('{"a": {"p": 1}}'))[0]?.location).toMatchObject({
      file: 'p.rego',
      row: 3,
    })
  })
})

describe('ownershipConflict', () => {
  const bundles = [{ name: 'b1', roots: ['x/y'] }]

  it('refuses paths under, and above, a root', () => {
    expect(ownershipConflict(['x', 'y', 'z'], bundles)).toBe('path x/y/z is owned by bundle "b1"')
    expect(ownershipConflict(['x'], bundles)).toBe('path x is owned by bundle "b1"')
    expect(ownershipConflict([], bundles)).toBe("can't write to document root with bundle roots configured")
    expect(ownershipConflict(['x', 'q'], bundles)).toBeUndefined()
  })

  it('refuses everything for a bundle owning the whole tree, nothing without bundles', () => {
    expect(ownershipConflict(['any'], [{ name: 'all', roots: [''] }])).toBe('all paths owned by bundle "all"')
    expect(ownershipConflict([], [])).toBeUndefined()
  })
})
