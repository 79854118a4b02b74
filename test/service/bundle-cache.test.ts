import { describe, expect, it } from 'vitest'
import { BundleCache } from '../../service/bundle-cache.js'

describe('BundleCache', () => {
  it('returns bytes by system, kind and revision', () => {
    const cache = new BundleCache(100)
    cache.set('s', 'policy', 'r1', new Uint8Array(10))
    expect(cache.get('s', 'policy', 'r1')?.byteLength).toBe(10)
    expect(cache.get('s', 'policy', 'r2')).toBeUndefined()
    expect(cache.get('s', 'discovery', 'r1')).toBeUndefined()
  })

  it('evicts the least recently used past its byte bound and skips huge bundles', () => {
    const cache = new BundleCache(100)
    cache.set('a', 'policy', 'r', new Uint8Array(20))
    cache.set('b', 'policy', 'r', new Uint8Array(20))
    cache.get('a', 'policy', 'r')
    for (const id of ['c', 'd', 'e', 'f']) cache.set(id, 'policy', 'r', new Uint8Array(20))
    expect(cache.size).toBeLessThanOrEqual(100)
    expect(cache.get('a', 'policy', 'r')).toBeDefined()
    expect(cache.get('b', 'policy', 'r')).toBeUndefined()
    cache.set('huge', 'policy', 'r', new Uint8Array(60))
    expect(cache.get('huge', 'policy', 'r')).toBeUndefined()
  })
})
