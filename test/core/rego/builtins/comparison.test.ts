import { describe, expect, it } from 'vitest'
import { json } from './helpers.js'

describe('comparison', () => {
  it('equality treats 1 and 1.0 as equal and big integers exactly', () => {
    expect(json('equal', 1, 'json:1.0')).toBe('true')
    expect(json('neq', 'json:28857836529306024611913', 'json:28857836529306024611912')).toBe('true')
    expect(json('equal', { a: [1, new Set([2])] }, { a: [1, new Set([2])] })).toBe('true')
  })

  it('orders across types (null < boolean < number < string < array < object < set)', () => {
    expect(json('lt', null, false)).toBe('true')
    expect(json('lt', 'z', [])).toBe('true')
    expect(json('gt', new Set(), {})).toBe('true')
    expect(json('lte', 'a', 'a')).toBe('true')
    expect(json('gte', '\uffff', '😀')).toBe('false')
  })

  it('membership (in) over arrays, sets and object values', () => {
    expect(json('internal.member_2', 2, [1, 2])).toBe('true')
    expect(json('internal.member_2', 'b', { a: 'b' })).toBe('true')
    expect(json('internal.member_2', 'a', { a: 'b' })).toBe('false')
    expect(json('internal.member_2', 1, 'abc')).toBe('false')
    expect(json('internal.member_3', 'a', 'b', { a: 'b' })).toBe('true')
    expect(json('internal.member_3', 1, 'y', ['x', 'y'])).toBe('true')
    expect(json('internal.member_3', 2, 'y', ['x', 'y'])).toBe('false')
  })
})
