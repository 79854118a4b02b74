/**
 * Compiled policies kept by an evaluation worker between tasks, keyed by the content key the
 * service sends (a system's content version: system-scope-cache.ts). A repeated request over
 * unchanged content skips parsing and compiling the modules and the data, which cost far more
 * than answering the query; the policy also keeps each query text it prepared. A write bumps the
 * version, so a changed system gets a new key and its old entry ages out. Few entries, each with
 * a bounded number of distinct queries: a worker's heap is capped (service.evaluation.max_heap_mb)
 * and each entry holds its data as engine values and its prepared queries.
 */
import type { Policy } from '../../core/rego/index.js'

const MAX_POLICIES = 4
const MAX_QUERIES_PER_POLICY = 256

interface Entry {
  policy: Policy
  queries: Set<string>
}

/** Least recently used first. */
export class CompiledPolicies {
  readonly #entries = new Map<string, Entry>()

  get(key: string): Policy | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.policy
  }

  set(key: string, policy: Policy): void {
    this.#entries.delete(key)
    this.#entries.set(key, { policy, queries: new Set() })
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= MAX_POLICIES) break
      this.#entries.delete(oldest)
    }
  }

  /**
   * Records that `text` was prepared on the policy under `key`; past the limit of distinct
   * queries the entry is dropped (the policy's query cache has no bound of its own).
   */
  noteQuery(key: string, text: string): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    entry.queries.add(text)
    if (entry.queries.size > MAX_QUERIES_PER_POLICY) this.#entries.delete(key)
  }

  get size(): number {
    return this.#entries.size
  }
}
