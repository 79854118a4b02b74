import { describe, expect, it } from 'vitest'
import { Value } from '../../../../core/rego/values/index.js'
import { expectError, json } from './helpers.js'

describe('object.get', () => {
  it('looks up keys and paths with a default', () => {
    expect(json('object.get', { a: 'b' }, 'a', 'c')).toBe('"b"')
    expect(json('object.get', { a: 'b' }, 'z', 'c')).toBe('"c"')
    expect(json('object.get', { a: 1 }, [], 2)).toBe('{"a":1}')
    expect(json('object.get', { a: { b: [{ c: 1 }] } }, ['a', 'b', 0, 'c'], 2)).toBe('1')
    expect(json('object.get', { a: { b: [1, 2] } }, ['a', 'b', 'a'], 2)).toBe('2')
    const nonString = Value.object([[1, Value.object([['b', Value.object([[[1, 2, 3], 1]])]])]])
    expect(json('object.get', nonString, [1, 'b', [1, 2, 3]], 2)).toBe('1')
    expectError(
      'eval_type_error',
      'object.get: operand 1 must be object but got string',
      'object.get',
      'x',
      ['a'],
      2,
    )
  })

  it('returns a present null value, not the default (OPA: key found)', () => {
    expect(json('object.get', { a: null }, 'a', 1)).toBe('null')
    expect(json('object.get', { a: { b: null } }, ['a', 'b'], 1)).toBe('null')
    expect(json('object.get', { a: null }, 'z', 1)).toBe('1')
  })
})

describe('object.keys, remove, filter', () => {
  it('works with sets, arrays or objects of keys', () => {
    expect(json('object.keys', { b: 1, a: 2 })).toBe('["a","b"]')
    expect(json('object.remove', { a: 1, b: 2, d: 4 }, ['d', 'b'])).toBe('{"a":1}')
    expect(json('object.remove', { a: 1, b: 2, d: 4 }, { b: 1, d: '' })).toBe('{"a":1}')
    expect(json('object.remove', { a: 1 }, new Set(['z']))).toBe('{"a":1}')
    expect(json('object.filter', { a: 1, b: 2, e: 9 }, ['a', 'e'])).toBe('{"a":1,"e":9}')
    expect(json('object.filter', { a: 7 }, new Set())).toBe('{}')
    const obj = Value.object([
      ['a', 1],
      [[[7]], 2],
    ])
    expect(json('object.filter', obj, Value.set([[[7]]]))).toBe('{"[[7]]":2}')
  })

  it('reports type errors in OPA order', () => {
    expectError(
      'eval_type_error',
      'object.remove: operand 1 must be object but got array',
      'object.remove',
      [],
      ['a'],
    )
    expectError(
      'eval_type_error',
      'object.remove: operand 2 must be one of {object, set, array} but got string',
      'object.remove',
      {},
      'a',
    )
    expectError(
      'eval_type_error',
      'object.filter: operand 2 must be one of {object, set, array} but got null',
      'object.filter',
      {},
      null,
    )
    expectError('eval_type_error', 'object.keys: operand 1 must be object but got string', 'object.keys', 'x')
  })
})

describe('object.union and union_n', () => {
  it('merges recursively, right wins', () => {
    expect(
      json('object.union', { a: { b: { c: 1 } }, e: 1 }, { a: { b: 'foo', b1: 'bar' }, d: 7, e: 17 }),
    ).toBe('{"a":{"b":"foo","b1":"bar"},"d":7,"e":17}')
    expect(json('object.union', { a: { x: 1 } }, { a: { y: 2 } })).toBe('{"a":{"x":1,"y":2}}')
    expect(json('object.union_n', [{ a: 1, b: 2 }, { a: 'a', d: 4 }, { a: 'final' }])).toBe(
      '{"a":"final","b":2,"d":4}',
    )
    expect(json('object.union_n', [])).toBe('{}')
    expectError(
      'eval_type_error',
      'object.union: operand 2 must be object but got array',
      'object.union',
      {},
      [],
    )
    expectError(
      'eval_type_error',
      'object.union_n: operand 1 must be array but got object',
      'object.union_n',
      {},
    )
    expectError(
      'eval_type_error',
      'operand 1 must be array of objects but got array containing number',
      'object.union_n',
      [1],
    )
  })
})

describe('object.subset', () => {
  it('recurses into objects; sets, arrays and array/set mixes as OPA', () => {
    expect(
      json(
        'object.subset',
        { a: 5, n: { x: 1, s: new Set([1, 2, 3]), l: [6, 7, 8] } },
        { n: { s: new Set([1]), l: [7, 8] } },
      ),
    ).toBe('true')
    expect(json('object.subset', { a: 5, b: 7 }, { a: 5, b: 10 })).toBe('false')
    expect(json('object.subset', [1, 2, 3, 4], [2, 3])).toBe('true')
    expect(json('object.subset', [1, 2, 3, 4], [2, 4])).toBe('false')
    expect(json('object.subset', [1, 2, 3], new Set([3, 1]))).toBe('true')
    expect(json('object.subset', new Set([1, 2, new Set(['a', 'b'])]), new Set([new Set(['a'])]))).toBe(
      'false',
    )
    expectError(
      'eval_type_error',
      'object.subset: both arguments object.subset must be of the same type or array and set',
      'object.subset',
      new Set([1]),
      [1],
    )
  })
})
