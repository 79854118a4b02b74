import { describe, expect, it } from 'vitest'
import { jsonDepthExceeded } from '../../core/json-depth.js'

describe('jsonDepthExceeded', () => {
  it('finds where nesting first passes the limit', () => {
    expect(jsonDepthExceeded('{"a":[[1]]}', 3)).toBe(-1)
    expect(jsonDepthExceeded('{"a":[[1]]}', 2)).toBe(6)
    expect(jsonDepthExceeded('[]', 0)).toBe(0)
    expect(jsonDepthExceeded('1', 0)).toBe(-1)
  })

  it('counts siblings at their own depth, not in total', () => {
    expect(jsonDepthExceeded(`[${'[],'.repeat(10_000)}[]]`, 2)).toBe(-1)
  })

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeded(`{"a":"${'['.repeat(5000)}"}`, 1)).toBe(-1)
    expect(jsonDepthExceeded('{"a":"x\\"[[[","b":"\\\\"}', 1)).toBe(-1)
    expect(jsonDepthExceeded('{"a":"\\\\",  "b":[[]]}', 2)).toBe(17)
  })

  it('walks 100,000 levels without recursion', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    expect(jsonDepthExceeded(deep, 1000)).toBe(1000)
    expect(jsonDepthExceeded(deep, 100_000)).toBe(-1)
  })
})
