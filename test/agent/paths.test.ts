/** URL paths as OPA's REST API reads them: data refs, storage paths and JSON Patch pointers. */
import { describe, expect, it } from 'vitest'
import {
  patchPath,
  rawPathAfter,
  refDisplay,
  refFromUrlPath,
  refQueryText,
  storagePathFromUrl,
} from '../../agent/paths.js'

describe('data refs from URLs', () => {
  it('unescapes segments, skips empty ones and reads integers as numbers', () => {
    expect(refFromUrlPath('a//b%2Fc/0/-1/x%20y/')).toEqual(['a', 'b/c', 0, -1, 'x y'])
    expect(refFromUrlPath('')).toEqual([])
    expect(refFromUrlPath('n/99999999999999999999')).toEqual(['n', '99999999999999999999'])
  })

  it('refuses a quote in a segment', () => {
    expect(() => refFromUrlPath('a/b%22c')).toThrow("invalid path: invalid ref term 'b\"c'")
  })

  it('writes query text with every key quoted and display text as OPA prints refs', () => {
    const ref = ['authz', 'x-y', 0, 'ok']
    expect(refQueryText(ref)).toBe('data["authz"]["x-y"][0]["ok"]')
    expect(refDisplay(ref)).toBe('data.authz["x-y"][0].ok')
    expect(refDisplay([])).toBe('data')
  })

  it('keeps the raw path after a prefix', () => {
    expect(rawPathAfter('http://h/v1/data/a%2Fb/c?x=1', '/v1/data')).toBe('a%2Fb/c')
    expect(rawPathAfter('http://h/v1/data', '/v1/data')).toBe('')
  })
})

describe('storage paths', () => {
  it('trims slashes and keeps every segment a string', () => {
    expect(storagePathFromUrl('/a/0/b%2Fc/')).toEqual(['a', '0', 'b/c'])
    expect(storagePathFromUrl('')).toEqual([])
    expect(() => storagePathFromUrl('a/%zz')).toThrow('bad path: a/%zz')
  })

  it('places JSON Patch pointers below the URL root with ~0 and ~1 unescaped', () => {
    expect(patchPath(['roles'], '/dev/0')).toEqual(['roles', 'dev', '0'])
    expect(patchPath(['roles'], '/a~1b/c~0d')).toEqual(['roles', 'a/b', 'c~d'])
    expect(patchPath(['roles'], '')).toEqual(['roles'])
    expect(patchPath([], '/x')).toEqual(['x'])
  })
})
