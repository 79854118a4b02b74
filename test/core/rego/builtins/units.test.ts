import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('units.parse', () => {
  it('parses SI and IEC suffixes exactly', () => {
    const cases: Array<[string, string]> = [
      ['500m', '0.5'],
      ['1024', '1024'],
      ['1Ki', '1024'],
      ['10KI', '10240'],
      ['1.1Ki', '1126.4'],
      ['100M', '100000000'],
      ['100Pi', '112589990684262400'],
      ['10Ei', '11529215046068469760'],
      ['4E2G', '400000000000'],
      ['7.8E-1', '0.78'],
      ['0.0', '0'],
      ['"100TI"', '109951162777600'],
      ['1m', '0.001'],
    ]
    for (const [input, want] of cases) expect(json('units.parse', input), input).toBe(want)
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
    expectError('eval_builtin_error', 'units.parse_bytes: no amount provided', 'units.parse_bytes', 'mb')
  })
})
