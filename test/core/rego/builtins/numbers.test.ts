import { describe, expect, it } from 'vitest'
import { callWith, expectError, json, testContext } from './helpers.js'

const S = (...xs: unknown[]) => new Set(xs)

describe('arithmetic', () => {
  it('computes exactly on integers and as OPA on decimals', () => {
    expect(json('plus', 49649733057, 1)).toBe('49649733058')
    expect(json('plus', 'json:9007199254740993', 1)).toBe('9007199254740994')
    expect(json('mul', 'json:123456789012345678901', 10)).toBe('1234567890123456789010')
    expect(json('div', 7, 2)).toBe('3.5')
    expect(json('div', 1, 3)).toBe('0.33333333333333333334')
    expect(json('rem', 7, 4)).toBe('3')
    // Go's big.Float (64-bit mantissa) gives this, not 0.2, and so does OPA.
    expect(json('minus', 0.3, 0.1)).toBe('0.20000000000000000002')
  })

  it('minus subtracts sets too, with OPA type errors', () => {
    expect(json('minus', S(1, 2, 3), S(2))).toBe('[1,3]')
    expectError('eval_type_error', 'operand 2 must be set but got number', 'minus', S(1), 1)
    expectError('eval_type_error', 'operand 2 must be number but got set', 'minus', 1, S(1))
    expectError('eval_type_error', 'operand 1 must be one of {number, set} but got string', 'minus', 'a', 1)
  })

  it('reports division errors as builtin errors', () => {
    expectError('eval_builtin_error', 'div: divide by zero', 'div', 1, 0)
    expectError('eval_builtin_error', 'modulo on floating-point number', 'rem', 1.1, 1)
    expectError('eval_builtin_error', 'rem: modulo by zero', 'rem', 1, 0)
    expectError('eval_type_error', 'plus: operand 2 must be number but got string', 'plus', 1, '1')
  })

  it('rounds', () => {
    expect(json('abs', -10)).toBe('10')
    expect(json('round', -1.5)).toBe('-2')
    expect(json('round', 1.4)).toBe('1')
    expect(json('ceil', 1.01)).toBe('2')
    expect(json('floor', -1.001)).toBe('-2')
    // Beyond the int32 window OPA floors a 64-bit big.Float, which rounded this integer when
    // it was read (arithUnary in v1/topdown/arithmetic.go; Go's math/big gives this value).
    expect(json('floor', 'json:12345678901234567890123')).toBe('12345678901234567889920')
  })
})

describe('numbers.range and range_step', () => {
  it('counts up or down, inclusively', () => {
    expect(json('numbers.range', 0, 0)).toBe('[0]')
    expect(json('numbers.range', -2, 3)).toBe('[-2,-1,0,1,2,3]')
    expect(json('numbers.range', 2, -3)).toBe('[2,1,0,-1,-2,-3]')
    expect(json('numbers.range_step', 0, -10, 2)).toBe('[0,-2,-4,-6,-8,-10]')
    expect(json('numbers.range_step', 2, 5, 2)).toBe('[2,4]')
    expect(json('numbers.range_step', 0, 10, 'json:99999999999999999999')).toBe('[0]')
    expect(json('numbers.range', 'json:9007199254740993', 'json:9007199254740994')).toBe(
      '[9007199254740993,9007199254740994]',
    )
  })

  it('rejects floats, non-positive steps and absurd lengths', () => {
    expectError(
      'eval_type_error',
      'numbers.range: operand 1 must be integer number but got floating-point number',
      'numbers.range',
      3.14,
      4,
    )
    expectError(
      'eval_type_error',
      'operand 2 must be integer number but got floating-point number',
      'numbers.range',
      3,
      3.14,
    )
    expectError(
      'eval_builtin_error',
      'numbers.range_step: step must be a positive integer',
      'numbers.range_step',
      0,
      10,
      -2,
    )
    expectError('eval_builtin_error', 'range too large', 'numbers.range', 0, 1e12)
  })
})

describe('rand.intn', () => {
  it('is stable within a query and bounded', () => {
    const ctx = testContext()
    const a = callWith(ctx, 'rand.intn', 'seed', 100)
    expect(callWith(ctx, 'rand.intn', 'seed', 100)).toBe(a)
    expect(a).toBeGreaterThanOrEqual(0)
    expect(a).toBeLessThan(100)
    expect(callWith(ctx, 'rand.intn', 'x', 0)).toBe(0)
    expect(callWith(ctx, 'rand.intn', 'y', -5)).toBeLessThan(5)
  })
})
