/**
 * Short-lived copies of the rows every agent request reads (a token by the hash of its secret,
 * a bundle's current revision), so a poll is not a database round trip. Correctness rules:
 *
 * - A write through this process drops every copy at once, and once more when its transaction
 *   ends (store.ts): a copy read before the commit never outlives it.
 * - A read that began before a drop does not store what it read (the generation moved on).
 * - Copies expire after `ttlMs`: the bound within which a write by another process sharing the
 *   database (replicas on one PostgreSQL) is seen here. Nothing else can notify this process.
 * - Absent rows are never kept: a token created elsewhere works at once, and unknown secrets
 *   cannot fill the cache.
 */

import type { TokenRow } from './tokens.js'

/** A bounded map of loaded values with a time to live and a write generation. */
export class ReadCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>()
  private generation = 0

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** How many drops so far (a transaction compares it before and after). */
  get version(): number {
    return this.generation
  }

  /** The value under `key`, from the cache while fresh, else from `load` (kept when found). */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.entries.get(key)
    const now = Date.now()
    if (hit !== undefined) {
      if (hit.until > now) return hit.value
      this.entries.delete(key)
    }
    if (this.ttlMs <= 0) return load()
    const generation = this.generation
    const value = await load()
    if (value !== undefined && generation === this.generation) {
      // Oldest first: Map keeps insertion order, so one step drops the entry nearest its expiry.
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next()
        if (!oldest.done) this.entries.delete(oldest.value)
      }
      this.entries.set(key, { value, until: now + this.ttlMs })
    }
    return value
  }

  /**
   * The value under `key` only when a fresh copy is held, without loading: for callers that
   * cannot wait (the service's bundle fast path), which take the slow path on undefined.
   */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key)
    return hit !== undefined && hit.until > Date.now() ? hit.value : undefined
  }

  /** Drops every copy; reads in flight will not store theirs. */
  invalidate(): void {
    this.generation++
    this.entries.clear()
  }
}

/** The caches one store shares between its repositories and their transactions. */
export class ServiceReadCaches {
  constructor(
    /** Token rows by secret hash. */
    readonly tokens: ReadCache<TokenRow>,
    /** Bundle revisions by kind and system. */
    readonly revisions: ReadCache<string>,
  ) {}

  static create(ttlMs: number): ServiceReadCaches {
    return new ServiceReadCaches(new ReadCache(ttlMs), new ReadCache(ttlMs))
  }

  /** Sum of the caches' versions: moved when anything was dropped. */
  get version(): number {
    return this.tokens.version + this.revisions.version
  }

  invalidateAll(): void {
    this.tokens.invalidate()
    this.revisions.invalidate()
  }
}
