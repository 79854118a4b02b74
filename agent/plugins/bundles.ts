/**
 * The agent's bundle plugin (OPA's plugins/bundle) on the shared plugins/bundle machinery: one
 * puller per configured bundle (ETag, long poll, backoff, signature verification), the last good
 * download of each `persist: true` bundle kept under `<persistence_directory>/bundles` and
 * activated from there at start (re-verified), before the first download.
 *
 * Every verified download is activated together with the other bundles and the local files the
 * server started with: the new set is compiled first and swapped in whole, so a bundle that does
 * not compile leaves the previous one active and is reported in status.
 */
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { Bundle } from '../../core/bundle/index.js'
import { ConfigError } from '../../core/config.js'
import { RegoErrors } from '../../core/rego/index.js'
import { BundleCache, type TargetState } from '../../plugins/bundle/bundle-cache.js'
import { BundleDiskStore } from '../../plugins/bundle/disk-store.js'
import { PullerPool } from '../../plugins/bundle/puller-pool.js'
import { resolveTargets, type Target, TargetError } from '../../plugins/bundle/targets.js'
import type { VerifiedBundle } from '../../plugins/bundle/verify.js'
import { LongPollWaiters } from '../../plugins/bundle/waiters.js'
import type { PluginMetrics } from '../../plugins/metrics.js'
import type { ServiceClient } from '../../plugins/rest/service-client.js'
import type { AgentConfig } from '../config/schema.js'
import { type LoadedState, withBundle } from '../load.js'
import type { ServerState } from '../state.js'

/** What activating a bundle did, for status. */
export interface ActivationRecord {
  lastSuccessfulActivation?: string
  error?: { code: string; message: string; errors?: unknown[] }
}

export interface AgentBundlesOptions {
  config: AgentConfig
  clients: ReadonlyMap<string, ServiceClient>
  state: ServerState
  /** What the server loaded from its own files and `-b` bundles; downloads are activated on top. */
  base: LoadedState
  persistenceDir: string
  metrics: PluginMetrics
  logger: Logger
  /** `--skip-verify`: downloaded bundles are activated without checking signatures. */
  skipVerification?: boolean
  /** Called after every activation attempt and upstream exchange (status reporting). */
  onChange?: () => void
}

/** The downloaded bundles of one agent. */
export class AgentBundles {
  readonly targets: Target[]
  private readonly caches: BundleCache[] = []
  private readonly pools: PullerPool[] = []
  private readonly planned: Array<{ pool: PullerPool; targets: Target[] }> = []
  private readonly downloaded = new Map<string, Bundle>()
  readonly activations = new Map<string, ActivationRecord>()

  constructor(private readonly options: AgentBundlesOptions) {
    const { config, logger } = options
    try {
      this.targets = resolveTargets({ ...config, discovery: undefined }).map((t) =>
        options.skipVerification ? { ...t, skipVerification: true } : t,
      )
    } catch (err) {
      if (err instanceof TargetError) throw new ConfigError([err.message])
      throw err
    }
    const disk = new BundleDiskStore(join(options.persistenceDir, 'bundles'), logger)
    for (const persisted of [true, false]) {
      const targets = this.targets.filter((t) => (config.bundles[t.name]?.persist ?? false) === persisted)
      if (targets.length === 0) continue
      // No agent long-polls this agent: the waiters only satisfy the cache's wake-up on promotion.
      const cache = new BundleCache(new LongPollWaiters(1), persisted ? disk : undefined, logger)
      const pool = new PullerPool({
        services: options.clients,
        cache,
        disk: persisted ? disk : undefined,
        metrics: options.metrics,
        logger,
        onPromote: (target, verified) => this.activate(target, verified),
        onContact: () => options.onChange?.(),
      })
      this.caches.push(cache)
      this.pools.push(pool)
      this.planned.push({ pool, targets })
    }
  }

  /** Activates persisted bundles (best effort), then starts downloading. */
  async start(): Promise<void> {
    for (const { pool, targets } of this.planned) {
      for (const target of targets) await pool.add(target)
    }
    for (const pool of this.pools) pool.start()
  }

  async stop(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.stop()))
  }

  /** Each bundle's download state, in configuration order. */
  states(): TargetState[] {
    return this.caches.flatMap((c) => c.all())
  }

  /** Whether every configured bundle has been activated once (OPA's bundle readiness). */
  allActivated(): boolean {
    return this.targets.every((t) => this.activations.get(t.name)?.lastSuccessfulActivation !== undefined)
  }

  private activate(target: Target, verified: VerifiedBundle): void {
    const { state, base, logger } = this.options
    const record = this.activations.get(target.name) ?? {}
    this.activations.set(target.name, record)
    const candidate = new Map(this.downloaded)
    candidate.set(target.name, verified.bundle)
    const now = new Date().toISOString()
    try {
      let next = base
      for (const t of this.targets) {
        const bundle = candidate.get(t.name)
        if (!bundle) continue
        const previous = state.bundles.find((b) => b.name === t.name)
        const activatedAt = t.name === target.name ? now : (previous?.activatedAt ?? now)
        next = withBundle(next, t.name, bundle, state.options.regoVersion, activatedAt)
      }
      state.activate(next)
      this.downloaded.set(target.name, verified.bundle)
      record.lastSuccessfulActivation = now
      record.error = undefined
      logger.info({ bundle: target.name, revision: verified.revision }, 'bundle activated')
    } catch (err) {
      record.error =
        err instanceof RegoErrors
          ? { code: 'bundle_error', message: 'compile errors', errors: err.errors.map((e) => e.toJSON()) }
          : { code: 'bundle_error', message: (err as Error).message }
      logger.error(
        { bundle: target.name, err: record.error.message },
        'bundle activation failed; previous kept',
      )
    }
    this.options.onChange?.()
  }
}
