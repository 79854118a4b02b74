import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

const S = (...xs: unknown[]) => new Set(xs)

describe('sets', () => {
  it('union and intersection of a set of sets', () => {
    expect(json('union', S(S(1, 2), S(2, 3), S()))).toBe('[1,2,3]')
    expect(json('intersection', S(S(1, 2, 3), S(2, 3, 4), S(3, 2)))).toBe('[2,3]')
    expect(json('intersection', S())).toBe('[]')
    expect(json('union', S())).toBe('[]')
    expectError(
      'eval_type_error',
      'operand 1 must be set of sets but got set containing number',
      'union',
      S(1),
    )
    expectError('eval_type_error', 'intersection: operand 1 must be set but got array', 'intersection', [])
  })

  it('and, or and set_diff', () => {
    expect(json('and', S(1, [2]), S([2], 3))).toBe('[[2]]')
    expect(json('or', S(1), S('a'))).toBe('[1,"a"]')
    expect(json('set_diff', S(1, 2, 3), S(2))).toBe('[1,3]')
    expectError('eval_type_error', 'or: operand 2 must be set but got number', 'or', S(), 1)
  })
})
