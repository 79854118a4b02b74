/**
 * Caches of annotation look-ups, keyed by the request path, as the reference keeps them: bounded LRU
 * maps (500 entries) that remember "nothing found" too, purged whenever the policies change (the
 * backend hands out a new modules array), never on data changes.
 */
import type { Module } from '../core/rego/syntax/ast.js'

/** Hit and miss counts, for tests and metrics. */
export interface CacheStats {
  hits: number
  misses: number
}

/** One LRU cache of look-up results tied to a set of policy modules. */
export class AnnotationCache<V> {
  readonly #capacity: number
  #entries = new Map<string, V>()
  #modules: readonly Module[] | undefined
  readonly stats: CacheStats = { hits: 0, misses: 0 }

  constructor(capacity = 500) {
    this.#capacity = capacity
  }

  /**
   * The cached value for `key` under `modules`, else `compute()` stored (unless it says not to store,
   * which errors do: a broken annotation is reported on every request until fixed).
   */
  get(
    modules: readonly Module[],
    key: string,
    compute: () => { value: V; store: boolean },
  ): { value: V; hit: boolean } {
    if (modules !== this.#modules) {
      this.purge()
      this.#modules = modules
    }
    if (this.#entries.has(key)) {
      const value = this.#entries.get(key) as V
      // Re-insert to mark it most recently used.
      this.#entries.delete(key)
      this.#entries.set(key, value)
      this.stats.hits++
      return { value, hit: true }
    }
    this.stats.misses++
    const { value, store } = compute()
    if (store) {
      this.#entries.set(key, value)
      if (this.#entries.size > this.#capacity)
        this.#entries.delete(this.#entries.keys().next().value as string)
    }
    return { value, hit: false }
  }

  /** Forgets everything (policies changed). */
  purge(): void {
    this.#entries.clear()
  }

  /** Number of cached entries. */
  get size(): number {
    return this.#entries.size
  }
}
