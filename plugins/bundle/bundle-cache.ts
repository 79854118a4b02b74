/**
 * What the relay serves: for each target the last good bundle (bytes, ETag, revision) and what
 * is known about its upstream (last request, last success, last error). Promotion persists
 * first, then swaps the served copy, then wakes every long-polling agent of that resource:
 * an agent is never woken to a bundle that a restart could lose.
 */
import type { Logger } from 'pino'
import type { BundleDiskStore } from './disk-store.js'
import { sha256Hex } from './disk-store.js'
import type { Target } from './targets.js'
import type { LongPollWaiters } from './waiters.js'

/** A verified bundle as served to agents. */
export interface ServedBundle {
  bytes: Uint8Array
  /** The ETag agents get (the upstream's when it sent one, else a digest of the bytes). */
  etag: string
  /** The upstream's own ETag, for `If-None-Match` upstream. */
  upstreamEtag?: string
  revision: string
  verifiedAt: Date
  /** Where the served copy came from in this process. */
  source: 'disk' | 'upstream'
}

/** The last error of a target, for status and `/v1/relay/status`. */
export interface TargetError {
  code: string
  message: string
  httpStatus?: number
  at: Date
}

/** Everything known about one target. */
export interface TargetState {
  target: Target
  served?: ServedBundle
  lastRequest?: Date
  lastSuccessfulRequest?: Date
  lastSuccessfulDownload?: Date
  lastError?: TargetError
  /** Counts of refused downloads by reason. */
  rejections: Record<string, number>
}

/** Served bundles by resource, with promotion and wake-up. */
export class BundleCache {
  private readonly byResource = new Map<string, TargetState>()
  private readonly aliases = new Map<string, TargetState>()

  constructor(
    readonly waiters: LongPollWaiters,
    private readonly disk: BundleDiskStore | undefined,
    private readonly logger: Logger,
  ) {}

  /** Registers a target; its state starts empty. Returns the existing state if already known. */
  add(target: Target): TargetState {
    const existing = this.byResource.get(target.resource)
    if (existing) return existing
    const state: TargetState = { target, rejections: {} }
    this.byResource.set(target.resource, state)
    return state
  }

  /** The state of the target served at `resource` (no slashes at either end), aliases included. */
  get(resource: string): TargetState | undefined {
    return this.byResource.get(resource) ?? this.aliases.get(resource)
  }

  /**
   * Also serves the target at `resource` at `alias`, unless something else is served there.
   * Returns whether the alias was added.
   */
  alias(alias: string, resource: string): boolean {
    const state = this.byResource.get(resource)
    if (!state || this.byResource.has(alias) || this.aliases.has(alias)) return false
    this.aliases.set(alias, state)
    return true
  }

  /** Every target's state, in registration order. */
  all(): TargetState[] {
    return [...this.byResource.values()]
  }

  /** Serves a copy loaded from disk at start (already re-verified); no wake-up, no write. */
  restore(target: Target, served: ServedBundle): void {
    this.add(target).served = served
  }

  /**
   * Makes a freshly verified download the served copy: written to disk (when persistent), then
   * swapped in, then every waiter of the resource is woken. Returns the number woken.
   */
  async promote(
    target: Target,
    download: { bytes: Uint8Array; upstreamEtag?: string; revision: string },
  ): Promise<number> {
    const state = this.add(target)
    const served: ServedBundle = {
      bytes: download.bytes,
      etag: download.upstreamEtag ?? `"sha256-${sha256Hex(download.bytes)}"`,
      upstreamEtag: download.upstreamEtag,
      revision: download.revision,
      verifiedAt: new Date(),
      source: 'upstream',
    }
    if (this.disk) {
      await this.disk.save(target.kind, target.name, served.bytes, {
        etag: served.etag,
        upstreamEtag: served.upstreamEtag,
        revision: served.revision,
        verifiedAt: served.verifiedAt.toISOString(),
      })
    }
    const previous = state.served
    state.served = served
    state.lastSuccessfulDownload = served.verifiedAt
    const woken = this.waiters.wake(target.resource)
    this.logger.info(
      {
        kind: target.kind,
        bundle: target.name,
        revision: served.revision,
        previous_revision: previous?.revision,
        size: served.bytes.byteLength,
        woken,
      },
      'bundle promoted',
    )
    return woken
  }
}
