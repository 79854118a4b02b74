/**
 * The set of pullers, one per target. Adding a target first restores its last good bundle from
 * disk, re-verified under the current config (as OPA re-verifies persisted bundles), so agents
 * are served before the first upstream call and while the upstream is down. Targets can be
 * added and removed while running (bundles learned from a discovery bundle).
 */
import type { Logger } from 'pino'
import type { PluginMetrics } from '../metrics.js'
import type { ServiceClient } from '../rest/service-client.js'
import type { BundleCache } from './bundle-cache.js'
import type { BundleDiskStore } from './disk-store.js'
import { BundlePuller, type PromotionListener } from './puller.js'
import type { Target } from './targets.js'
import { verifyDownload } from './verify.js'

export interface PullerPoolOptions {
  services: ReadonlyMap<string, ServiceClient>
  cache: BundleCache
  disk?: BundleDiskStore
  metrics: PluginMetrics
  logger: Logger
  onPromote?: PromotionListener
  onContact?: (at: Date, ok: boolean) => void
}

/** Pullers by resource. */
export class PullerPool {
  private readonly pullers = new Map<string, BundlePuller>()
  private started = false

  constructor(private readonly options: PullerPoolOptions) {}

  /** Whether a target is pulled at `resource`. */
  has(resource: string): boolean {
    return this.pullers.has(resource)
  }

  /** Restores the target's stored bundle, then pulls it (at once if the pool runs). */
  async add(target: Target): Promise<void> {
    if (this.pullers.has(target.resource)) return
    const client = this.options.services.get(target.service)
    if (!client) throw new Error(`no client for service ${target.service}`)
    const puller = new BundlePuller({ ...this.options, target, client })
    this.pullers.set(target.resource, puller)
    await this.restore(target)
    if (this.started) puller.start()
  }

  /** Stops pulling `resource`; the copy already served stays. */
  async remove(resource: string): Promise<void> {
    const puller = this.pullers.get(resource)
    this.pullers.delete(resource)
    await puller?.stop()
  }

  start(): void {
    this.started = true
    for (const puller of this.pullers.values()) puller.start()
  }

  async stop(): Promise<void> {
    this.started = false
    await Promise.all([...this.pullers.values()].map((p) => p.stop()))
  }

  private async restore(target: Target): Promise<void> {
    const { disk, cache, logger } = this.options
    if (!disk) return
    const stored = await disk.load(target.kind, target.name)
    if (!stored) return
    const log = logger.child({ kind: target.kind, bundle: target.name })
    try {
      const verified = await verifyDownload(stored.bytes, target)
      cache.restore(target, {
        bytes: stored.bytes,
        etag: stored.meta.etag,
        upstreamEtag: stored.meta.upstreamEtag,
        revision: stored.meta.revision,
        verifiedAt: new Date(stored.meta.verifiedAt),
        source: 'disk',
      })
      log.info(
        { revision: stored.meta.revision, verified_at: stored.meta.verifiedAt },
        'stored bundle restored',
      )
      await this.options.onPromote?.(target, verified)
    } catch (err) {
      log.warn(
        { err: (err as Error).message },
        'stored bundle fails verification under the current config; not served',
      )
    }
  }
}
