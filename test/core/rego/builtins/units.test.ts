import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('units.parse', () => {
  // OPA multiplies big.Rats and prints a non-integer with FloatString(10), which stays the
  // number's text (`1126.4000000000`); each value below is what Go's math/big prints.
  it('parses SI and IEC suffixes exactly, non-integers with ten decimals', () => {
    const cases: Array<[string, string]> = [
      ['500m', '0.5000000000'],
      ['1024', '1024'],
      ['1Ki', '1024'],
      ['10KI', '10240'],
      ['1.1Ki', '1126.4000000000'],
      ['100M', '100000000'],
      ['100Pi', '112589990684262400'],
      ['10Ei', '11529215046068469760'],
      ['4E2G', '400000000000'],
      ['7.8E-1', '0.7800000000'],
      ['0.0', '0'],
      ['"100TI"', '109951162777600'],
      ['1m', '0.0010000000'],
    ]
    for (const [input, want] of cases) expect(json('units.parse', input), input).toBe(want)
  })

  // OPA's milli is big.Rat.SetFloat64(0.001), the double just above 1/1000; ten decimals hide
  // it until about 2.4e9 milli. Values as Go's math/big computes them.
  it('takes milli as the float64 0.001, as OPA does', () => {
    expect(json('units.parse', '1000000000000m')).toBe('1000000000.0000000208')
    expect(json('units.parse', '1e15m')).toBe('1000000000000.0000208167')
    expect(json('units.parse', '1000m')).toBe('1.0000000000')
    expect(json('units.parse', '-0.00000000001')).toBe('-0.0000000000')
  })

  it('reports OPA errors', () => {
    expectError('eval_builtin_error', 'units.parse: no amount provided', 'units.parse', 'G')
    expectError(
      'eval_builtin_error',
      'units.parse: could not parse amount to a number',
      'units.parse',
      '0.0.0',
    )
    expectError(
      'eval_builtin_error',
      'units.parse: could not parse amount to a number',
      'units.parse',
      '.5.2',
    )
    expectError(
      'eval_builtin_error',
      'units.parse: spaces not allowed in resource strings',
      'units.parse',
      ' 327Mi ',
    )
    expectError('eval_builtin_error', 'unit Q not recognized', 'units.parse', '1Q')
  })
})

describe('units.parse_bytes', () => {
  it('is case-insensitive and truncates to integers', () => {
    const cases: Array<[string, string]> = [
      ['8gb', '8000000000'],
      ['2MiB', '2097152'],
      ['.5KB', '500'],
      ['100ki', '102400'],
      ['10ei', '11529215046068469760'],
      ['3.2E2MiB', '335544320'],
      ['5e2MiB', '524288000'],
      ['.0', '0'],
      ['1.5', '1'],
    ]
    for (const [input, want] of cases) expect(json('units.parse_bytes', input), input).toBe(want)
  })

  // OPA's parse_bytes.go multiplies Go big.Floats of 64-bit precision (SetString, Mul, Int), not
  // rationals: 2.1 is read as a little less than 2.1, so 2.1g truncates to 2099999999 bytes. Each
  // value below is what Go's math/big gives for that sequence of calls.
  it('rounds like 64-bit big.Floats before truncating, as OPA does', () => {
    const cases: Array<[string, string]> = [
      ['2.1g', '2099999999'],
      ['-2.1g', '-2099999999'],
      ['16.3k', '16299'],
      ['2.7g', '2700000000'],
      ['3.9999999999999999999', '4'],
      ['123456789012345678901234567890', '123456789012345678899921813504'],
      ['10000000000eb', '9999999999999999999731564544'],
    ]
    for (const [input, want] of cases) expect(json('units.parse_bytes', input), input).toBe(want)
  })

  // OPA's parse_bytes.go words its errors differently from units.parse (`byte amount`, `byte unit`).
  it('reports OPA errors in its own wording', () => {
    const bytesError = (message: string, input: string) =>
      expectError('eval_builtin_error', `units.parse_bytes: ${message}`, 'units.parse_bytes', input)
    bytesError('no byte amount provided', 'mb')
    bytesError('byte unit q not recognized', '1Q')
    bytesError('could not parse byte amount to a number', '1.2.3mb')
    bytesError('spaces not allowed in resource strings', '1 mb')
    bytesError('exponent too large', '1e1234567mb')
    expect(json('units.parse_bytes', '1e+000003kb')).toBe('1000000')
  })
})

describe('units.parse: OPA error order and limits', () => {
  it('checks the unit before the amount, as OPA does', () => {
    expectError('eval_builtin_error', 'units.parse: unit Q not recognized', 'units.parse', '1.2.3Q')
  })

  it('rejects an exponent of more than six digits', () => {
    expectError('eval_builtin_error', 'units.parse: exponent too large', 'units.parse', '1e-1234567')
    expectError('eval_builtin_error', 'units.parse: exponent too large', 'units.parse', 'e1234567')
    expect(json('units.parse', '1e-000003K')).toBe('1')
  })
})
