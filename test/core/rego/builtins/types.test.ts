import { describe, expect, it } from 'vitest'
import { json } from './helpers.js'

describe('type built-ins', () => {
  it('type_name names every kind', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'null'],
      [true, 'boolean'],
      ['json:1e400', 'number'],
      ['s', 'string'],
      [[], 'array'],
      [{}, 'object'],
      [new Set(), 'set'],
    ]
    for (const [v, name] of cases) expect(json('type_name', v)).toBe(JSON.stringify(name))
  })

  it('is_* answer true or false', () => {
    expect(json('is_number', 'json:28857836529306024611913')).toBe('true')
    expect(json('is_number', null)).toBe('false')
    expect(json('is_string', 'x')).toBe('true')
    expect(json('is_set', [])).toBe('false')
    expect(json('is_array', [])).toBe('true')
    expect(json('is_object', {})).toBe('true')
    expect(json('is_boolean', false)).toBe('true')
    expect(json('is_null', null)).toBe('true')
  })
})
