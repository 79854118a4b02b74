/**
 * The store's short-lived caches of hot reads (token by secret hash, bundle revision): a write
 * through the same store is seen at once, also when it commits in a transaction; a write by
 * another store on the same database (another replica) is seen once the TTL has passed; a read
 * that races a write never keeps what it read.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  createdBy,
  READ_CACHE_TTL_MS,
  ReadCache,
  ServiceStore,
  type TokenRow,
} from '../../../store/service/index.js'
import { BACKENDS, type TestDatabase } from '../backends.js'

function token(id: string, hash: string): TokenRow {
  return {
    id,
    description: '',
    secret_hash: hash,
    allow_path_patterns: '[]',
    ttl: '',
    expires_at: '2999-01-01T00:00:00.000Z',
    roles: '[]',
    system_id: null,
    generation: 0,
    ...createdBy({ by: 'tester', through: 'test' }),
  }
}

function bundle(systemId: string, revision: string, contentVersion: number) {
  const bytes = new TextEncoder().encode(revision)
  return {
    system_id: systemId,
    kind: 'policy' as const,
    revision,
    content_version: contentVersion,
    bytes,
    size: bytes.byteLength,
    built_at: new Date().toISOString(),
  }
}

describe('ReadCache', () => {
  afterEach(() => vi.useRealTimers())

  it('does not keep a value whose read began before an invalidation', async () => {
    const cache = new ReadCache<string>(60_000)
    let release!: (value: string) => void
    const slow = cache.get('k', () => new Promise((resolve) => (release = resolve)))
    cache.invalidate()
    release('old')
    expect(await slow).toBe('old')
    let loads = 0
    expect(await cache.get('k', async () => `new-${++loads}`)).toBe('new-1')
    expect(await cache.get('k', async () => `new-${++loads}`)).toBe('new-1')
  })

  it('reads again once the TTL has passed, and never keeps an absent row', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const cache = new ReadCache<string>(1000)
    let loads = 0
    const load = async () => `v${++loads}`
    expect(await cache.get('k', load)).toBe('v1')
    vi.setSystemTime(Date.now() + 999)
    expect(await cache.get('k', load)).toBe('v1')
    vi.setSystemTime(Date.now() + 2)
    expect(await cache.get('k', load)).toBe('v2')
    let misses = 0
    const absent = async () => {
      misses++
      return undefined
    }
    await cache.get('gone', absent)
    await cache.get('gone', absent)
    expect(misses).toBe(2)
  })

  it('stays within its bound, dropping the oldest entry', async () => {
    const cache = new ReadCache<string>(60_000, 2)
    let loads = 0
    const load = async () => `v${++loads}`
    await cache.get('a', load)
    await cache.get('b', load)
    await cache.get('c', load)
    expect(await cache.get('b', load)).toBe('v2')
    expect(await cache.get('a', load)).toBe('v4')
  })
})

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`cached reads on ${backend.name}`, () => {
    let database: TestDatabase
    let here: ServiceStore
    let replica: ServiceStore
    beforeAll(async () => {
      database = await backend.create()
      here = await ServiceStore.open({ url: database.url, schema: database.schema })
      replica = await ServiceStore.open({ url: database.url, schema: database.schema })
    })
    afterAll(async () => {
      await here?.close()
      await replica?.close()
      await database?.cleanup()
    })
    afterEach(() => vi.useRealTimers())

    it('refuses a token deleted or replaced through the same store at once, transactions included', async () => {
      await here.transaction((tx) => tx.tokens.insert(token('t1', 'hash-1')))
      expect((await here.tokens.findByHashCached('hash-1'))?.id).toBe('t1')
      await here.transaction(async (tx) => {
        await tx.tokens.replace({ ...token('t1', 'hash-2'), description: 'regenerated' })
      })
      expect(await here.tokens.findByHashCached('hash-1')).toBeUndefined()
      expect((await here.tokens.findByHashCached('hash-2'))?.description).toBe('regenerated')
      await here.transaction((tx) => tx.tokens.delete('t1'))
      expect(await here.tokens.findByHashCached('hash-2')).toBeUndefined()
    })

    it('keeps no row read while a transaction that removes it is open', async () => {
      await here.tokens.insert(token('t2', 'hash-t2'))
      let during: Promise<unknown> | undefined
      await here.transaction(async (tx) => {
        await tx.tokens.delete('t2')
        // Read from outside the transaction before it commits (PostgreSQL: another connection
        // still sees the row; SQLite: the read waits for the commit).
        during = here.tokens.findByHashCached('hash-t2')
      })
      // Settled before the check (and before the store closes after the suite): whatever that read
      // saw must not be served afterwards.
      await during
      expect(await here.tokens.findByHashCached('hash-t2')).toBeUndefined()
    })

    it('sees a token revoked by another replica once the TTL has passed, not before', async () => {
      await here.tokens.insert(token('t3', 'hash-t3'))
      vi.useFakeTimers({ toFake: ['Date'] })
      expect((await here.tokens.findByHashCached('hash-t3'))?.id).toBe('t3')
      await replica.transaction((tx) => tx.tokens.delete('t3'))
      // The documented bound: this replica may still accept it for up to READ_CACHE_TTL_MS.
      expect((await here.tokens.findByHashCached('hash-t3'))?.id).toBe('t3')
      vi.setSystemTime(Date.now() + READ_CACHE_TTL_MS + 1)
      expect(await here.tokens.findByHashCached('hash-t3')).toBeUndefined()
    })

    it('serves a bundle revision saved through the same store at once, another replica’s after the TTL', async () => {
      expect(await here.bundles.saveIfNewer(bundle('s1', 'r1', 1))).toBe(true)
      expect(await here.bundles.revisionCached('s1', 'policy')).toBe('r1')
      expect(await here.bundles.saveIfNewer(bundle('s1', 'r2', 2))).toBe(true)
      expect(await here.bundles.revisionCached('s1', 'policy')).toBe('r2')
      vi.useFakeTimers({ toFake: ['Date'] })
      expect(await replica.bundles.revisionCached('s1', 'policy')).toBe('r2')
      expect(await here.bundles.saveIfNewer(bundle('s1', 'r3', 3))).toBe(true)
      expect(await here.bundles.revisionCached('s1', 'policy')).toBe('r3')
      expect(await replica.bundles.revisionCached('s1', 'policy')).toBe('r2')
      vi.setSystemTime(Date.now() + READ_CACHE_TTL_MS + 1)
      expect(await replica.bundles.revisionCached('s1', 'policy')).toBe('r3')
      await here.bundles.deleteForSystem('s1')
      expect(await here.bundles.revisionCached('s1', 'policy')).toBeUndefined()
    })
  })
}
