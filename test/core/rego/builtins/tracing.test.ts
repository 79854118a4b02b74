import { describe, expect, it } from 'vitest'
import { callWith, testContext } from './helpers.js'

const S = (...xs: unknown[]) => new Set(xs)

describe('print and trace', () => {
  it('internal.print prints the cross product, strings raw, undefined marked', () => {
    const lines: string[] = []
    const ctx = testContext({ print: (m) => lines.push(m) })
    expect(callWith(ctx, 'internal.print', [S('x'), S(1, 2), S(), S({ a: [1] })])).toBe(true)
    expect(lines).toEqual(['x 1 <undefined> {"a": [1]}', 'x 2 <undefined> {"a": [1]}'])
  })

  it('print (variadic) and trace notes', () => {
    const lines: string[] = []
    const notes: string[] = []
    const ctx = testContext({ print: (m) => lines.push(m), trace: (m) => notes.push(m) })
    expect(callWith(ctx, 'print', 'a', 1, S())).toBe(true)
    expect(callWith(ctx, 'trace', 'hello')).toBe(true)
    expect(lines).toEqual(['a 1 set()'])
    expect(notes).toEqual(['hello'])
  })
})
