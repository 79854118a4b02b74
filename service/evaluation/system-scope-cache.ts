/**
 * The content a data evaluation of `systems/{id}/…` reads (its modules and its data as JSON
 * text), kept per system and keyed by the system's `content_version`, which every write of its
 * policies, data, datasource data, configuration or git sync bumps in the database. Reading the
 * version is one row; loading, placing and stringifying the content is the cost this saves on
 * every repeated request. With several replicas on one database the version is shared, so a
 * write through any replica invalidates every replica's entry at its next request.
 *
 * Bounded by entry count and by the total size of the kept data text; content larger than the
 * budget is loaded for each request as before rather than held.
 */
import { notFound } from '../../core/http/index.js'
import type { SystemRow } from '../../store/service/index.js'
import { originFieldsOf } from '../git-origin/origin.js'
import type { ServiceDeps } from '../types.js'
import { jsonText } from './data-request.js'
import { loadStoredScope } from './stored-scope.js'
import { loadSystemContent } from './system-content.js'

const MAX_ENTRIES = 16
/** Characters of data text kept over all entries (about 2 bytes each in memory at most). */
const MAX_TEXT_CHARS = 64 * 1024 * 1024

/** A system's evaluation content at one content version. */
export interface SystemScope {
  /** Names this exact content: system, creation time and content version. */
  key: string
  version: number
  modules: Record<string, string>
  /** The data tree's JSON text (only the text is kept: the tree would be several times larger). */
  dataText: string
}

/** The content of the version the row names: from the store, or the followed commit's files. */
async function loadScope(deps: ServiceDeps, system: SystemRow, key: string): Promise<SystemScope> {
  const content = originFieldsOf(system)
    ? await loadSystemContent(deps, system.id)
    : await loadStoredScope(deps.store, `systems/${system.id}`, false)
  return {
    key,
    version: system.content_version,
    modules: content.modules,
    dataText: jsonText(content.data),
  }
}

/** Least recently used first; one instance per store. */
export class SystemScopeCache {
  readonly #entries = new Map<string, SystemScope>()
  #textChars = 0
  /** Loads by key in flight, so a burst of requests after a write loads once. */
  readonly #loading = new Map<string, Promise<SystemScope>>()

  /** The content of `systemId` at its current version; 404 for a system that does not exist. */
  async get(deps: ServiceDeps, systemId: string): Promise<SystemScope> {
    const system = await deps.store.systems.get(systemId)
    if (!system) throw notFound(`system ${systemId} not found`)
    // The creation time tells apart a system deleted and created again under the same id.
    const key = `${system.id}@${system.created_at}#${system.content_version}`
    const hit = this.#entries.get(system.id)
    if (hit?.key === key) {
      this.#entries.delete(system.id)
      this.#entries.set(system.id, hit)
      return hit
    }
    let loading = this.#loading.get(key)
    if (!loading) {
      loading = loadScope(deps, system, key).finally(() => this.#loading.delete(key))
      this.#loading.set(key, loading)
    }
    const scope = await loading
    this.#remember(system.id, scope)
    return scope
  }

  #remember(systemId: string, scope: SystemScope): void {
    const old = this.#entries.get(systemId)
    // A slower load of an older version never replaces a newer one.
    if (old && old.key !== scope.key && old.version > scope.version) return
    if (old) {
      this.#entries.delete(systemId)
      this.#textChars -= old.dataText.length
    }
    if (scope.dataText.length > MAX_TEXT_CHARS) return
    this.#entries.set(systemId, scope)
    this.#textChars += scope.dataText.length
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= MAX_ENTRIES && this.#textChars <= MAX_TEXT_CHARS) break
      this.#entries.delete(id)
      this.#textChars -= entry.dataText.length
    }
  }
}

const caches = new WeakMap<object, SystemScopeCache>()

/** The cache of `deps`' store (one per running service). */
export function systemScopeCache(deps: ServiceDeps): SystemScopeCache {
  let cache = caches.get(deps.store)
  if (!cache) {
    cache = new SystemScopeCache()
    caches.set(deps.store, cache)
  }
  return cache
}
