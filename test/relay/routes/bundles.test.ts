import { describe, expect, it } from 'vitest'
import { matchesEtag, parseWaitSeconds } from '../../../relay/routes/bundles.js'

describe('Prefer wait parsing', () => {
  it('finds wait=N in the forms agents and proxies send', () => {
    expect(parseWaitSeconds('modes=snapshot,delta;wait=30')).toBe(30)
    expect(parseWaitSeconds('wait=5')).toBe(5)
    expect(parseWaitSeconds('respond-async, wait=10')).toBe(10)
    expect(parseWaitSeconds('modes=snapshot; WAIT = "7"')).toBe(7)
  })

  it('ignores absent, zero and malformed values', () => {
    expect(parseWaitSeconds(undefined)).toBeUndefined()
    expect(parseWaitSeconds('modes=snapshot,delta')).toBeUndefined()
    expect(parseWaitSeconds('wait=0')).toBeUndefined()
    expect(parseWaitSeconds('wait=abc')).toBeUndefined()
    expect(parseWaitSeconds('nowait=5')).toBeUndefined()
  })
})

describe('If-None-Match', () => {
  it('matches the raw ETag, lists, weak tags and *', () => {
    expect(matchesEtag('"abc"', '"abc"')).toBe(true)
    expect(matchesEtag('"x", "abc"', '"abc"')).toBe(true)
    expect(matchesEtag('W/"abc"', '"abc"')).toBe(true)
    expect(matchesEtag('*', '"abc"')).toBe(true)
    expect(matchesEtag('abc', 'abc')).toBe(true)
  })

  it('does not match other or missing tags', () => {
    expect(matchesEtag(undefined, '"abc"')).toBe(false)
    expect(matchesEtag('', '"abc"')).toBe(false)
    expect(matchesEtag('"abcd"', '"abc"')).toBe(false)
    expect(matchesEtag('"a,b"', '"a"')).toBe(false)
  })
})
