/**
 * Long polling for bundles: a request holds until the bundle's revision moves past the one
 * the agent has, or its wait runs out. Builds in this process wake waiters at once; builds by
 * another replica (shared PostgreSQL) are seen by re-reading the revision every few seconds.
 */
import { EventEmitter } from 'node:events'
import type { BundleKind } from '../store/service/index.js'

/** Options of one wait. */
export interface WaitOptions {
  /** The revision the caller already has. */
  known: string
  timeoutMs: number
  /** Reads the current revision from the database (other replicas' builds). */
  recheck: () => Promise<string | undefined>
  /** How often to recheck. */
  recheckMs?: number
  /** Aborts the wait (client gone). */
  signal?: AbortSignal
}

/** Wakes long polls when a bundle is rebuilt. */
export class BundleWatch {
  private readonly events = new EventEmitter()
  private closed = false

  constructor() {
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
    if (this.closed) return Promise.resolve(undefined)
    const name = key(systemId, kind)
    return new Promise((resolve) => {
      let settled = false
      const finish = (revision: string | undefined) => {
        if (settled) return
        settled = true
        clearTimeout(timeout)
        clearInterval(interval)
        this.events.off(name, onRevision)
        this.events.off('close', onClose)
        options.signal?.removeEventListener('abort', onClose)
        resolve(revision)
      }
      const onRevision = (revision: string) => {
        if (revision !== options.known) finish(revision)
      }
      const onClose = () => finish(undefined)
      const timeout = setTimeout(onClose, options.timeoutMs)
      const interval = setInterval(() => {
        options.recheck().then(
          (revision) => {
            if (revision !== undefined && revision !== options.known) finish(revision)
          },
          () => {}, // a failed recheck is retried on the next tick; the timeout still ends the wait
        )
      }, options.recheckMs ?? 2000)
      this.events.on(name, onRevision)
      this.events.once('close', onClose)
      options.signal?.addEventListener('abort', onClose, { once: true })
    })
  }

  /** Ends every wait (service shutdown) and refuses new ones. */
  close(): void {
    this.closed = true
    this.events.emit('close')
  }
}

function key(systemId: string, kind: BundleKind): string {
  return `${kind}:${systemId}`
}
