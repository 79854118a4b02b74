import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('bits', () => {
  it('operates on integers of any size', () => {
    expect(json('bits.and', 7, 12)).toBe('4')
    expect(json('bits.or', 5, 2)).toBe('7')
    expect(json('bits.xor', 5, 3)).toBe('6')
    expect(json('bits.negate', 42)).toBe('-43')
    expect(json('bits.lsh', 1, 3)).toBe('8')
    expect(json('bits.lsh', 'json:9223372036854775807', 1)).toBe('18446744073709551614')
    expect(json('bits.rsh', -8, 1)).toBe('-4')
    expect(json('bits.rsh', 'json:18446744073709551614', 1)).toBe('9223372036854775807')
  })

  it('rejects floats and negative shifts with OPA messages', () => {
    expectError(
      'eval_type_error',
      'bits.and: operand 1 must be integer number but got floating-point number',
      'bits.and',
      1.5,
      1,
    )
    expectError(
      'eval_type_error',
      'bits.negate: operand 1 must be integer number but got floating-point number',
      'bits.negate',
      1.5,
    )
    expectError(
      'eval_type_error',
      'bits.lsh: operand 2 must be an unsigned integer number but got a negative integer',
      'bits.lsh',
      7,
      -1,
    )
    expectError(
      'eval_type_error',
      'bits.rsh: operand 2 must be an unsigned integer number but got a negative integer',
      'bits.rsh',
      7,
      -1,
    )
    expectError('eval_type_error', 'bits.or: operand 2 must be integer but got string', 'bits.or', 1, 'a')
  })
})
