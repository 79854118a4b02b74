import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('strings.split_n keeps a count of the split parts', () => {
  it('keeps the first n parts, not a remainder as Go SplitN does', () => {
    expect(json('strings.split_n', 'x-y-z', '-', 2)).toBe('["x","y"]')
    expect(json('strings.split_n', 'x-y-z', '-', 7)).toBe('["x","y","z"]')
    expect(json('strings.split_n', 'x-y-z', '-', 0)).toBe('[]')
  })

  it('keeps the last parts for a negative n', () => {
    expect(json('strings.split_n', 'x-y-z', '-', -1)).toBe('["z"]')
    expect(json('strings.split_n', 'x-y-z', '-', -9)).toBe('["x","y","z"]')
    expect(json('strings.split_n', 'xyz', '', -2)).toBe('["y","z"]')
    expect(json('strings.split_n', '', '-', 3)).toBe('[""]')
  })

  it('refuses a fractional count', () => {
    expectError(
      'eval_type_error',
      'strings.split_n: operand 3 must be integer number but got floating-point number',
      'strings.split_n',
      'x-y',
      '-',
      0.5,
    )
  })
})
