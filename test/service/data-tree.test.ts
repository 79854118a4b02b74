import { describe, expect, it } from 'vitest'
import { DataConflictError, overlay, placeAt, valueAt } from '../../service/data-tree.js'

describe('data tree', () => {
  it('places documents at paths and merges objects', () => {
    const tree: Record<string, unknown> = {}
    placeAt(tree, ['a', 'b'], { x: 1 }, 'one')
    placeAt(tree, ['a', 'b'], { y: 2 }, 'two')
    placeAt(tree, ['a', 'c'], [1, 2], 'three')
    placeAt(tree, [], { top: true }, 'root')
    expect(tree).toEqual({ a: { b: { x: 1, y: 2 }, c: [1, 2] }, top: true })
  })

  it('names the document that conflicts', () => {
    const tree: Record<string, unknown> = {}
    placeAt(tree, ['a'], 5, 'first')
    expect(() => placeAt(tree, ['a', 'b'], 1, 'second')).toThrow(DataConflictError)
    expect(() => placeAt(tree, ['a', 'b'], 1, 'second')).toThrow(/second/)
    expect(() => placeAt({}, [], 3, 'root doc')).toThrow(/root must be an object/)
  })

  it('reads values inside documents', () => {
    expect(valueAt({ a: [{ b: 'x' }] }, ['a', '0', 'b'])).toBe('x')
    expect(valueAt({ a: 1 }, ['a', 'b'])).toBeUndefined()
    expect(valueAt({}, ['toString'])).toBeUndefined()
  })

  it('overlays user settings over generated ones', () => {
    expect(overlay({ a: { b: 1, c: 2 }, d: 1 }, { a: { c: 3 }, e: 4 })).toEqual({
      a: { b: 1, c: 3 },
      d: 1,
      e: 4,
    })
  })
})
