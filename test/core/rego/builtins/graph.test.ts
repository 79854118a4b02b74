import { describe, expect, it } from 'vitest'
import { walkValue } from '../../../../core/rego/builtins/walk.js'
import { toJSONText } from '../../../../core/rego/values/index.js'
import { callAll, expectError, json, val } from './helpers.js'

const S = (...xs: unknown[]) => new Set(xs)

describe('graph.reachable', () => {
  it('follows arrays and sets, ignores nodes outside the graph', () => {
    expect(json('graph.reachable', {}, S('a'))).toBe('[]')
    expect(json('graph.reachable', { a: S('b'), b: S('c'), c: S('a') }, S('a'))).toBe('["a","b","c"]')
    expect(
      json(
        'graph.reachable',
        { a: S('b', 'c'), b: S('d'), c: S('d'), d: S(), e: S('f'), f: S('e'), x: S('x') },
        S('b', 'e'),
      ),
    ).toBe('["b","d","e","f"]')
    expect(json('graph.reachable', { a: ['b'], b: ['c'], c: ['a'] }, ['a'])).toBe('["a","b","c"]')
    expect(json('graph.reachable', { a: null }, ['a'])).toBe('["a"]')
    expectError(
      'eval_type_error',
      'operand 2 must be {array, set} but got string',
      'graph.reachable',
      { a: [] },
      'a',
    )
    expectError('eval_type_error', 'operand 1 must be object but got number', 'graph.reachable', 1, [1])
  })
})

describe('graph.reachable_paths', () => {
  it('lists paths to leaves, cycles and dangling edges', () => {
    expect(json('graph.reachable_paths', { a: S('b'), b: S('c'), c: S('a') }, S('a'))).toBe('[["a","b","c"]]')
    expect(
      json(
        'graph.reachable_paths',
        { a: S('b', 'c'), b: S('d'), c: S('d'), d: S(), e: S('f'), f: S('e'), x: S('x') },
        S('b', 'e'),
      ),
    ).toBe('[["b","d"],["e","f"]]')
    expect(json('graph.reachable_paths', { a: ['b'], b: ['nonexistent'] }, S('a', 'b'))).toBe(
      '[["a","b"],["b"]]',
    )
    const g = {
      one: ['two', 'five'],
      two: ['four'],
      three: [''],
      four: ['three'],
      five: ['seven', 'six'],
      six: ['nine'],
      seven: ['eight'],
      eight: [''],
      nine: [''],
    }
    expect(json('graph.reachable_paths', g, S('one'))).toBe(
      '[["one","five","seven","eight"],["one","five","six","nine"],["one","two","four","three"]]',
    )
    expect(json('graph.reachable_paths', { a: null }, ['a'])).toBe('[["a"]]')
    expect(json('graph.reachable_paths', {}, S('a'))).toBe('[]')
  })
})

describe('walk', () => {
  it('yields every [path, value] pre-order', () => {
    const results = callAll('walk', { a: [1, S('x')], b: null }).map((r) => toJSONText(r))
    expect(results).toEqual([
      '[[],{"a":[1,["x"]],"b":null}]',
      '[["a"],[1,["x"]]]',
      '[["a",0],1]',
      '[["a",1],["x"]]',
      '[["a",1,"x"],"x"]',
      '[["b"],null]',
    ])
    expect(callAll('walk', 5)).toEqual([[[], 5]])
  })

  it('walkValue skips subtrees outside a known path prefix', () => {
    const doc = val({ a: { x: 1 }, b: { x: 2 } })
    expect([...walkValue(doc, ['b'])].map(([p, v]) => toJSONText([p, v]))).toEqual([
      '[["b"],{"x":2}]',
      '[["b","x"],2]',
    ])
  })
})
