/**
 * Long polling for bundles: a request holds until the bundle's revision moves past the one
 * the agent has, or its wait runs out. Builds in this process wake waiters at once. Builds by
 * another replica (several services on one PostgreSQL) are found by one shared re-read per
 * watched bundle every few seconds, however many agents wait on it.
 */
import { EventEmitter } from 'node:events'
import type { BundleKind } from '../store/service/index.js'

export interface BundleWatchOptions {
  /** Reads a bundle's current revision from the database. */
  readRevision: (systemId: string, kind: BundleKind) => Promise<string | undefined>
  /** How often to re-read watched bundles; null when no other process can build (SQLite). */
  recheckMs: number | null
}

/** Options of one wait. */
export interface WaitOptions {
  /** The revision the caller already has. */
  known: string
  timeoutMs: number
  /** Aborts the wait (client gone). */
  signal?: AbortSignal
}

interface Watched {
  waiters: number
  timer?: NodeJS.Timeout
}

/** Wakes long polls when a bundle is rebuilt. */
export class BundleWatch {
  private readonly events = new EventEmitter()
  private readonly watched = new Map<string, Watched>()
  private closed = false

  constructor(private readonly options: BundleWatchOptions) {
    this.events.setMaxListeners(0)
  }

  /** Announces a new revision of a system's bundle. */
  notify(systemId: string, kind: BundleKind, revision: string): void {
    this.events.emit(key(systemId, kind), revision)
  }

  /**
   * Resolves to the new revision once it differs from `known`, or undefined when the wait ends
   * without a change (timeout, abort, or the watch closing for shutdown).
   */
  waitForChange(systemId: string, kind: BundleKind, options: WaitOptions): Promise<string | undefined> {
    if (this.closed || options.signal?.aborted) return Promise.resolve(undefined)
    const name = key(systemId, kind)
    this.watch(name, systemId, kind)
    return new Promise((resolve) => {
      let settled = false
      const finish = (revision: string | undefined) => {
        if (settled) return
        settled = true
        clearTimeout(timeout)
        this.events.off(name, onRevision)
        this.events.off('close', onClose)
        options.signal?.removeEventListener('abort', onClose)
        this.unwatch(name)
        resolve(revision)
      }
      const onRevision = (revision: string) => {
        if (revision !== options.known) finish(revision)
      }
      const onClose = () => finish(undefined)
      const timeout = setTimeout(onClose, options.timeoutMs)
      this.events.on(name, onRevision)
      this.events.once('close', onClose)
      options.signal?.addEventListener('abort', onClose, { once: true })
      // A build that finished between the caller's revision check and this subscription.
      this.options.readRevision(systemId, kind).then(
        (revision) => {
          if (revision !== undefined) onRevision(revision)
        },
        () => {},
      )
    })
  }

  /** Number of requests waiting now (for tests and metrics). */
  get waiting(): number {
    let n = 0
    for (const w of this.watched.values()) n += w.waiters
    return n
  }

  /** Ends every wait (service shutdown) and refuses new ones. */
  close(): void {
    this.closed = true
    this.events.emit('close')
  }

  private watch(name: string, systemId: string, kind: BundleKind): void {
    const entry = this.watched.get(name) ?? { waiters: 0 }
    entry.waiters++
    if (!entry.timer && this.options.recheckMs !== null) {
      entry.timer = setInterval(() => {
        this.options.readRevision(systemId, kind).then(
          (revision) => {
            if (revision !== undefined) this.notify(systemId, kind, revision)
          },
          () => {}, // retried on the next tick; each wait still ends at its timeout
        )
      }, this.options.recheckMs)
      entry.timer.unref()
    }
    this.watched.set(name, entry)
  }

  private unwatch(name: string): void {
    const entry = this.watched.get(name)
    if (!entry) return
    entry.waiters--
    if (entry.waiters <= 0) {
      clearInterval(entry.timer)
      this.watched.delete(name)
    }
  }
}

function key(systemId: string, kind: BundleKind): string {
  return `${kind}:${systemId}`
}
