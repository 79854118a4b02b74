import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('arrays', () => {
  it('concat, reverse and flatten', () => {
    expect(json('array.concat', [1, 2], [3, [4]])).toBe('[1,2,3,[4]]')
    expect(json('array.reverse', [1, 'a', null])).toBe('[null,"a",1]')
    expect(json('array.flatten', [[1], 2, [[3, 4]], []])).toBe('[1,2,[3,4]]')
    expectError(
      'eval_type_error',
      'array.concat: operand 1 must be array but got object',
      'array.concat',
      {},
      [],
    )
    expectError(
      'eval_type_error',
      'array.concat: operand 2 must be array but got object',
      'array.concat',
      [],
      {},
    )
    expectError(
      'eval_type_error',
      'array.flatten: operand 1 must be array but got number',
      'array.flatten',
      1,
    )
  })

  it('slice clamps indices like OPA', () => {
    expect(json('array.slice', [1, 2, 3, 4, 5], 1, 3)).toBe('[2,3]')
    expect(json('array.slice', [1, 2, 3], 0, 0)).toBe('[]')
    expect(json('array.slice', [1, 2, 3, 4, 5], -4, -1)).toBe('[]')
    expect(json('array.slice', [1, 2, 3, 4, 5], -4, 2)).toBe('[1,2]')
    expect(json('array.slice', [1, 2, 3, 4, 5], 4, 1)).toBe('[]')
    expect(json('array.slice', [1, 2, 3, 4, 5], 3, 6)).toBe('[4,5]')
    expect(json('array.slice', [1, 2, 3], 1000, 2000)).toBe('[]')
    expectError(
      'eval_type_error',
      'operand 2 must be integer number but got floating-point number',
      'array.slice',
      [1],
      0.5,
      1,
    )
  })
})
