import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('semver', () => {
  it('validates SemVer 2.0.0', () => {
    for (const v of ['1.0.0', '0.1.2-alpha.1+build.5', '10.20.30-rc.1.x-y'])
      expect(json('semver.is_valid', v), v).toBe('true')
    for (const v of ['1', '1.0', 'v1.0.0', '01.0.0', '1.0.0-01', 1, null])
      expect(json('semver.is_valid', v), String(v)).toBe('false')
  })

  it('compares by precedence (build metadata ignored)', () => {
    expect(json('semver.compare', '1.0.0', '1.0.0')).toBe('0')
    expect(json('semver.compare', '1.0.0-alpha', '1.0.0')).toBe('-1')
    expect(json('semver.compare', '1.0.0-alpha.10', '1.0.0-alpha.2')).toBe('1')
    expect(json('semver.compare', '1.0.0-alpha', '1.0.0-alpha.1')).toBe('-1')
    expect(json('semver.compare', '1.0.0-1', '1.0.0-a')).toBe('-1')
    expect(json('semver.compare', '2.0.0+b1', '2.0.0+b2')).toBe('0')
    expect(json('semver.compare', '99999999999999999999.0.0', '1.0.0')).toBe('1')
    expectError(
      'eval_builtin_error',
      'semver.compare: operand 1: string "1" is not a valid SemVer',
      'semver.compare',
      '1',
      '1.0.0',
    )
    expectError(
      'eval_builtin_error',
      'semver.compare: operand 2: string "1" is not a valid SemVer',
      'semver.compare',
      '1.0.0',
      '1',
    )
  })
})
