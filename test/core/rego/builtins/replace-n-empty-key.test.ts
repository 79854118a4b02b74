import { describe, expect, it } from 'vitest'
import { json } from './helpers.js'

/** strings.replace_n is Go's strings.Replacer, where an empty key matches between all characters. */
describe('strings.replace_n with an empty key', () => {
  it('inserts its replacement at every position, both ends included', () => {
    expect(json('strings.replace_n', { '': '.' }, 'xyz')).toBe('".x.y.z."')
    expect(json('strings.replace_n', { '': '.' }, '')).toBe('"."')
  })

  it('lets the other keys match at a position once it has matched there', () => {
    expect(json('strings.replace_n', { '': '|', y: 'Y' }, 'xy')).toBe('"|x|Y|"')
    expect(json('strings.replace_n', { '': '|', ü: 'u' }, 'üz')).toBe('"|u|z|"')
  })
})
