import { describe, expect, it } from 'vitest'
import { globMatch } from '../../../core/bundle/glob.js'

describe('globMatch (Go filepath.Match)', () => {
  it.each([
    ['*.json', 'a.json', true],
    ['*.json', 'x/a.json', false],
    ['*/*.json', 'x/a.json', true],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
    ['[a-c]x', 'bx', true],
    ['[^a-c]x', 'bx', false],
    ['[!a-c]x', 'dx', true],
    ['\\*', '*', true],
    ['\\*', 'a', false],
    ['.manifest', '.manifest', true],
    ['a.b', 'aXb', false],
    ['data-[0-9].json', 'data-7.json', true],
    ['[', '[', false],
  ])('%s matches %s: %s', (pattern, name, want) => {
    expect(globMatch(pattern, name)).toBe(want)
  })
})
