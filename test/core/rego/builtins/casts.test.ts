import { describe, expect, it } from 'vitest'
import { expectError, failure, json } from './helpers.js'

describe('to_number', () => {
  it('converts strings, booleans and null', () => {
    expect(json('to_number', '-42.0')).toBe('-42.0') // OPA returns the string's number as written
    expect(json('to_number', false)).toBe('0')
    expect(json('to_number', true)).toBe('1')
    expect(json('to_number', null)).toBe('0')
    expect(json('to_number', 100.1)).toBe('100.1')
    expect(json('to_number', '+5')).toBe('5')
    expect(json('to_number', '.5')).toBe('0.5')
    expect(json('to_number', '123456789012345678901234567890')).toBe('123456789012345678901234567890')
  })

  it('fails like Go strconv, and refuses NaN and infinities as type errors', () => {
    expectError('eval_builtin_error', 'invalid syntax', 'to_number', 'broken')
    expectError('eval_builtin_error', 'value out of range', 'to_number', '1e400')
    for (const s of ['nan', 'Infinity', '-Infinity', '+inf'])
      expect(failure('to_number', s).code).toBe('eval_type_error')
    expectError(
      'eval_type_error',
      'operand 1 must be one of {null, boolean, number, string} but got array',
      'to_number',
      [],
    )
  })

  it('deprecated casts check types', () => {
    expect(json('cast_array', new Set([2, 1]))).toBe('[1,2]')
    expect(json('cast_set', [1, 1, 2])).toBe('[1,2]')
    expect(json('cast_string', 'x')).toBe('"x"')
    expectError('eval_type_error', 'operand 1 must be boolean but got string', 'cast_boolean', 'true')
    expectError('eval_type_error', 'operand 1 must be null but got number', 'cast_null', 0)
    expectError('eval_type_error', 'operand 1 must be object but got array', 'cast_object', [])
  })
})
