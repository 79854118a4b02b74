/**
 * The bytes of recently served bundles, keyed by system, kind and revision, so agents polling
 * the same bundle do not read the same blob from the database on every 200. Bounded by total
 * bytes; the least recently used entries go first. A revision is immutable content, so an entry
 * is never stale: a new build has a new revision.
 */
import type { BundleKind } from '../store/service/index.js'

/** An LRU of bundle bytes by (system, kind, revision). */
export class BundleCache {
  private readonly entries = new Map<string, Uint8Array>()
  private bytes = 0

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(systemId: string, kind: BundleKind, revision: string): Uint8Array | undefined {
    const key = `${kind}:${systemId}:${revision}`
    const hit = this.entries.get(key)
    if (hit) {
      // Re-insert to mark it most recently used (Map keeps insertion order).
      this.entries.delete(key)
      this.entries.set(key, hit)
    }
    return hit
  }

  set(systemId: string, kind: BundleKind, revision: string, bytes: Uint8Array): void {
    if (bytes.byteLength > this.maxBytes / 4) return // huge bundles are read from the database each time
    const key = `${kind}:${systemId}:${revision}`
    if (this.entries.has(key)) return
    this.entries.set(key, bytes)
    this.bytes += bytes.byteLength
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.bytes -= value.byteLength
    }
  }

  /** Bytes held now. */
  get size(): number {
    return this.bytes
  }
}
