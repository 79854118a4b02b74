import { describe, expect, it } from 'vitest'
import {
  ArithmeticError,
  abs,
  add,
  canonicalNumber,
  ceil,
  compareNumbers,
  compareValues,
  Decimal,
  divide,
  equalValues,
  floor,
  isFloatForm,
  multiply,
  numberFromDouble,
  numberText,
  parseNumber,
  type RegoNumber,
  remainder,
  round,
  SetValue,
  subtract,
  type Value,
} from '../../../../core/rego/values/index.js'

const n = (s: string): RegoNumber => {
  const x = parseNumber(s)
  if (x === undefined) throw new Error(`bad number ${s}`)
  return x
}
const text = (x: RegoNumber) => numberText(x)

describe('parseNumber', () => {
  it('keeps safe integers and round-tripping decimals as JS numbers', () => {
    expect(n('42')).toBe(42)
    expect(n('-0')).toBe(0)
    expect(Object.is(n('-0'), 0)).toBe(true)
    expect(n('0.1')).toBe(0.1)
    expect(n('1.5')).toBe(1.5)
  })

  it('keeps a fraction written otherwise than its shortest form as written (OPA: json.Number)', () => {
    for (const [s, v] of [
      ['1.50', 1.5],
      ['15e-1', 1.5],
      ['-0.250', -0.25],
      ['0.0000001', 1e-7],
    ] as const) {
      expect(isFloatForm(n(s)), s).toBe(true)
      expect(canonicalNumber(n(s))).toBe(v)
      expect(text(n(s))).toBe(s)
    }
    // It is the number it equals: as a set member, an object key, in order and equality.
    expect(equalValues(n('1.50') as Value, 1.5)).toBe(true)
    expect(equalValues(n('1.50') as Value, n('1.500') as Value)).toBe(true)
    expect(compareValues(n('1.50') as Value, 1.25)).toBe(1)
    expect(SetValue.from([n('1.50') as Value, 1.5]).size).toBe(1)
    // Arithmetic results are canonical, as in OPA.
    expect(add(n('1.50') as RegoNumber, 1)).toBe(2.5)
  })

  it('keeps integers written with a fraction or exponent in float form (OPA: the text decides)', () => {
    for (const [s, v] of [
      ['1e3', 1000],
      ['101.00', 101],
      ['0.0', 0],
      ['-2.0', -2],
    ] as const) {
      expect(isFloatForm(n(s)), s).toBe(true)
      expect(canonicalNumber(n(s))).toBe(v)
      // Printed as written, as OPA prints a json.Number.
      expect(text(n(s))).toBe(s)
    }
    expect(canonicalNumber(n('1e30'))).toBe(10n ** 30n)
    expect(isFloatForm(n('101'))).toBe(false)
    expect(isFloatForm(n('1.5'))).toBe(false)
  })

  it('keeps big integers exact as bigints', () => {
    expect(n('28857836529306024611913')).toBe(28857836529306024611913n)
    expect(n('9007199254740993')).toBe(9007199254740993n)
    expect(n('9007199254740991')).toBe(9007199254740991)
  })

  it('keeps decimals a double cannot hold as Decimal', () => {
    const x = n('0.10000000000000000001')
    expect(x).toBeInstanceOf(Decimal)
    expect(text(x)).toBe('0.10000000000000000001')
    // Trailing zeros stay in the text (OPA's parser and JSON decoder keep json.Number as written).
    const zeros = n('62498494000.0006816130')
    expect(text(zeros)).toBe('62498494000.0006816130')
    expect(equalValues(zeros as Value, n('62498494000.000681613') as Value)).toBe(true)
    expect(text(n('1e-400'))).toBe('1e-400')
    expect(text(n('-1.5e+400'))).toBe('-1.5e+400')
    expect(text(canonicalNumber(n('-1.5e+400'))).length).toBe(402)
  })

  it('rejects non-numbers', () => {
    for (const s of ['', 'abc', '1.', '.5', '1e', '--1', 'NaN', 'Infinity', '0x10'])
      expect(parseNumber(s)).toBeUndefined()
  })

  it('refuses NaN and infinities from doubles', () => {
    expect(() => numberFromDouble(Number.NaN)).toThrow(RangeError)
    expect(() => numberFromDouble(Number.POSITIVE_INFINITY)).toThrow(RangeError)
    // Past 2^53 a double is the integer of its shortest decimal form (as Go prints a float64);
    // from 1e21 on it keeps a float64's exponent form.
    expect(numberFromDouble(2 ** 60)).toBe(1152921504606847000n)
    expect(numberFromDouble(1e20)).toBe(100000000000000000000n)
    const big = numberFromDouble(1e21)
    expect(String(big)).toBe('1e+21')
    expect(equalValues(big, 1000000000000000000000n)).toBe(true)
    expect(canonicalNumber(big)).toBe(1000000000000000000000n)
  })
})

describe('arithmetic', () => {
  it('is exact on integers of any size', () => {
    expect(add(49649733057, 1)).toBe(49649733058)
    expect(add(Number.MAX_SAFE_INTEGER, 2)).toBe(9007199254740993n)
    expect(subtract(n('9007199254740993'), 2)).toBe(9007199254740991)
    expect(multiply(n('123456789012345678901'), n('1000000000000000000000'))).toBe(
      123456789012345678901000000000000000000000n,
    )
    expect(remainder(n('100000000000000000000001'), 10)).toBe(1)
  })

  it('rounds non-integer arithmetic as Go big.Float with a 64-bit mantissa, as OPA does', () => {
    expect(add(0.1, 0.2)).toBe(0.3)
    expect(text(divide(1, 3))).toBe('0.33333333333333333334')
    expect(multiply(divide(1, 3), 3)).toBe(1)
    expect(divide(7, 2)).toBe(3.5)
    expect(multiply(1.1, 1.1)).toBe(1.21)
    expect(divide(10, 0.1)).toBe(100)
    expect(add(n('1e-400'), 1)).toBe(1)
  })

  it('divides integers exactly when the divisor divides the dividend', () => {
    expect(divide(12, 4)).toBe(3)
    expect(divide(n('100000000000000000000000'), n('100000000000000000000'))).toBe(1000)
    expect(divide(-7, 7)).toBe(-1)
  })

  it('reports OPA errors for division and modulo', () => {
    expect(() => divide(1, 0)).toThrow(new ArithmeticError('divide by zero'))
    expect(() => divide(1, n('0.0'))).toThrow('divide by zero')
    expect(() => remainder(1.1, 1)).toThrow('modulo on floating-point number')
    expect(() => remainder(5, 0)).toThrow('modulo by zero')
    expect(remainder(-7, 4)).toBe(-3)
  })

  // OPA's arithUnary (v1/topdown/arithmetic.go) keeps ints of the int32 window exact and runs
  // anything else through a 64-bit big.Float: round adds or subtracts one half and truncates,
  // floor and ceil truncate and then correct by one unless the truncation is negative (resp.
  // non-negative) or exact. A truncation to zero has no sign, so floor(-0.5) is 0 and ceil(-0.5)
  // is 1 in OPA. Expected values are what that Go code prints (checked with Go's math/big).
  it('rounds half away from zero, floor and ceil as OPA does, through 64-bit floats', () => {
    expect(round(-1.5)).toBe(-2)
    expect(round(2.5)).toBe(3)
    expect(round(0.49999999999999994)).toBe(0)
    expect(round(n('2.4999999999999999999'))).toBe(3)
    expect(floor(-1.001)).toBe(-2)
    expect(ceil(1.01)).toBe(2)
    expect(ceil(-1.5)).toBe(-1)
    expect(ceil(-0.5)).toBe(1)
    expect(floor(-0.5)).toBe(0)
    expect(floor(n('-0.10000000000000000001'))).toBe(0)
    expect(floor(n('2.9999999999999999999'))).toBe(3)
    expect(round(n('2.50000000000000000001'))).toBe(3)
    expect(round(n('-28857836529306024611913'))).toBe(-28857836529306024611840n)
    expect(abs(n('-28857836529306024611913'))).toBe(28857836529306024612000n)
    expect(abs(-(2 ** 31))).toBe(2 ** 31)
  })
})

describe('compareNumbers', () => {
  it('orders across representations exactly', () => {
    expect(compareNumbers(n('28857836529306024611913'), n('28857836529306024611912'))).toBe(1)
    expect(compareNumbers(0.1, n('0.10000000000000000001'))).toBe(-1)
    expect(compareNumbers(n('-1e400'), -5)).toBe(-1)
    expect(compareNumbers(5, n('9007199254740993'))).toBe(-1)
    expect(compareNumbers(5, n('-9007199254740993'))).toBe(1)
    expect(compareNumbers(n('1.0'), 1)).toBe(0)
  })
})
