import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('aggregates', () => {
  it('count counts elements, pairs and code points', () => {
    expect(json('count', [1, 2, 3])).toBe('3')
    expect(json('count', { a: 1, b: 2 })).toBe('2')
    expect(json('count', new Set([1, 1, 2]))).toBe('2')
    expect(json('count', 'héllo😀')).toBe('6')
    expect(json('count', '')).toBe('0')
    expectError(
      'eval_type_error',
      'count: operand 1 must be one of {array, object, set, string} but got null',
      'count',
      null,
    )
    expectError(
      'eval_type_error',
      'operand 1 must be one of {array, object, set, string} but got number',
      'count',
      1,
    )
  })

  it('sum and product are exact on big integers', () => {
    expect(json('sum', [1, 2, 3, 4])).toBe('10')
    expect(json('sum', [49649733057, 1])).toBe('49649733058')
    expect(json('sum', 'json:[28857836529306024611913, 1]')).toBe('28857836529306024611914')
    expect(json('sum', [0.1, 0.2])).toBe('0.3')
    expect(json('sum', [])).toBe('0')
    expect(json('product', new Set([1, 2, 3, 4]))).toBe('24')
    expect(json('product', [])).toBe('1')
    expectError(
      'eval_type_error',
      'operand 1 must be array of numbers but got array containing string',
      'sum',
      [1, 'a'],
    )
    expectError('eval_type_error', 'operand 1 must be one of {set, array} but got object', 'product', {})
  })

  it('max, min and sort use the total order across types', () => {
    expect(json('max', [1, 'a', null, [0]])).toBe('[0]')
    expect(json('min', [3, 2, 1, 4, 6, -7, 10])).toBe('-7')
    expect(json('min', [])).toBe('undefined')
    expect(json('sort', [3, 'b', 1, null, 'a'])).toBe('[null,1,3,"a","b"]')
    expect(json('sort', new Set([2, 1]))).toBe('[1,2]')
    expectError('eval_type_error', 'operand 1 must be one of {array, set} but got string', 'sort', 'abc')
  })

  it('all and any (deprecated) test for true', () => {
    expect(json('all', [true, true])).toBe('true')
    expect(json('all', [true, 1])).toBe('false')
    expect(json('any', new Set([false, true]))).toBe('true')
    expect(json('any', [])).toBe('false')
  })
})
