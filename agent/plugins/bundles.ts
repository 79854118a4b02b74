/**
 * The agent's bundle plugin (OPA's plugins/bundle) on the shared plugins/bundle machinery: one
 * puller per configured bundle (ETag, long poll, backoff, signature verification), the last good
 * download of each `persist: true` bundle kept under `<persistence_directory>/bundles` and
 * activated from there at start (re-verified), before the first download.
 *
 * Every verified download is activated together with the other bundles and the local files the
 * server started with: the new set is compiled first and swapped in whole, so a bundle that does
 * not compile leaves the previous one active and is reported in status. The set of bundles can
 * change while running (discovery).
 */
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { Bundle } from '../../core/bundle/index.js'
import { RegoErrors } from '../../core/rego/index.js'
import { ObjectValue } from '../../core/rego/values/index.js'
import { BundleCache, type TargetState } from '../../plugins/bundle/bundle-cache.js'
import { BundleDiskStore } from '../../plugins/bundle/disk-store.js'
import { PullerPool } from '../../plugins/bundle/puller-pool.js'
import type { Target } from '../../plugins/bundle/targets.js'
import type { VerifiedBundle } from '../../plugins/bundle/verify.js'
import { LongPollWaiters } from '../../plugins/bundle/waiters.js'
import type { PluginMetrics } from '../../plugins/metrics.js'
import type { ServiceClient } from '../../plugins/rest/service-client.js'
import { applyWrite, readPath } from '../data-tree.js'
import { type LoadedState, withBundle } from '../load.js'
import type { ServerState } from '../state.js'

/** What activating a bundle did, for status. */
export interface ActivationRecord {
  lastSuccessfulActivation?: string
  error?: { code: string; message: string; errors?: unknown[] }
}

export interface AgentBundlesOptions {
  clients: ReadonlyMap<string, ServiceClient>
  state: ServerState
  persistenceDir: string
  metrics: PluginMetrics
  logger: Logger
  /** Called after every activation attempt and upstream exchange (status reporting). */
  onChange?: () => void
}

/** One pool and cache per persistence mode: the cache writes to disk only for persisted bundles. */
interface PoolSet {
  cache: BundleCache
  pool: PullerPool
}

/** The downloaded bundles of one agent. */
export class AgentBundles {
  private targets: Target[] = []
  private readonly persisted: PoolSet
  private readonly transient: PoolSet
  private readonly poolOf = new Map<string, PoolSet>()
  private readonly downloaded = new Map<string, Bundle>()
  readonly activations = new Map<string, ActivationRecord>()

  constructor(private readonly options: AgentBundlesOptions) {
    const disk = new BundleDiskStore(join(options.persistenceDir, 'bundles'), options.logger)
    this.persisted = this.poolSet(disk)
    this.transient = this.poolSet(undefined)
  }

  private poolSet(disk: BundleDiskStore | undefined): PoolSet {
    // No agent long-polls this agent: the waiters only satisfy the cache's wake-up on promotion.
    const cache = new BundleCache(new LongPollWaiters(1), disk, this.options.logger)
    const pool = new PullerPool({
      services: this.options.clients,
      cache,
      disk,
      metrics: this.options.metrics,
      logger: this.options.logger,
      onPromote: (target, verified) => this.downloadedBundle(target, verified),
      onContact: () => this.options.onChange?.(),
    })
    return { cache, pool }
  }

  /**
   * Pulls exactly `targets` from now on: new ones are added (persisted copies activated first),
   * ones no longer listed stop being pulled and their bundles are deactivated.
   */
  async setTargets(targets: Target[], persisted: ReadonlySet<string>): Promise<void> {
    const wanted = new Map(targets.map((t) => [t.name, t]))
    const gone = this.targets.filter((t) => wanted.get(t.name)?.resource !== t.resource)
    this.targets = targets
    for (const target of gone) {
      await this.poolOf.get(target.name)?.pool.remove(target.resource)
      this.poolOf.delete(target.name)
      this.activations.delete(target.name)
    }
    const deactivated = gone.filter((t) => this.downloaded.has(t.name)).map((t) => t.name)
    if (deactivated.length > 0) this.rebuild(undefined, deactivated)
    for (const target of targets) {
      if (this.poolOf.has(target.name)) continue
      const set = persisted.has(target.name) ? this.persisted : this.transient
      this.poolOf.set(target.name, set)
      await set.pool.add(target)
    }
  }

  start(): void {
    this.persisted.pool.start()
    this.transient.pool.start()
  }

  async stop(): Promise<void> {
    await Promise.all([this.persisted.pool.stop(), this.transient.pool.stop()])
  }

  /** Each bundle's download state, in configuration order. */
  states(): TargetState[] {
    return this.targets.flatMap((t) => this.poolOf.get(t.name)?.cache.get(t.resource) ?? [])
  }

  /** Whether every configured bundle has been activated once (OPA's bundle readiness). */
  allActivated(): boolean {
    return this.targets.every((t) => this.activations.get(t.name)?.lastSuccessfulActivation !== undefined)
  }

  private downloadedBundle(target: Target, verified: VerifiedBundle): void {
    if (!this.targets.some((t) => t.name === target.name)) return
    const record = this.activations.get(target.name) ?? {}
    this.activations.set(target.name, record)
    const now = new Date().toISOString()
    try {
      this.rebuild({ name: target.name, bundle: verified.bundle, at: now })
      record.lastSuccessfulActivation = now
      record.error = undefined
      this.options.logger.info({ bundle: target.name, revision: verified.revision }, 'bundle activated')
    } catch (err) {
      record.error =
        err instanceof RegoErrors
          ? { code: 'bundle_error', message: 'compile errors', errors: err.errors.map((e) => e.toJSON()) }
          : { code: 'bundle_error', message: (err as Error).message }
      this.options.logger.error(
        { bundle: target.name, err: record.error.message },
        'bundle activation failed; previous kept',
      )
    }
    this.options.onChange?.()
  }

  /**
   * Activates every downloaded bundle (with `next` replacing its namesake) over what is not theirs:
   * the local files and whatever was written through the API (policies and data outside the
   * downloaded bundles' roots stay, as OPA keeps them across activations).
   */
  private rebuild(
    next: { name: string; bundle: Bundle; at: string } | undefined,
    removed: string[] = [],
  ): void {
    const { state } = this.options
    const candidate = new Map(this.downloaded)
    for (const name of removed) candidate.delete(name)
    if (next) candidate.set(next.name, next.bundle)
    let loaded = this.notDownloaded()
    for (const t of this.targets) {
      const bundle = candidate.get(t.name)
      if (!bundle) continue
      const previous = state.bundles.find((b) => b.name === t.name)
      const activatedAt =
        t.name === next?.name ? next.at : (previous?.activatedAt ?? new Date().toISOString())
      loaded = withBundle(loaded, t.name, bundle, state.options.regoVersion, activatedAt)
    }
    state.activate(loaded)
    if (next) this.downloaded.set(next.name, next.bundle)
    for (const name of removed) this.downloaded.delete(name)
    this.downloadedPolicyIds = new Set(
      loaded.policies.filter((p) => candidate.has(bundleOfPolicy(p.id, candidate))).map((p) => p.id),
    )
  }

  /** Ids of the policies the downloaded bundles brought (`<bundle name>/<path>`). */
  private downloadedPolicyIds = new Set<string>()

  /** The server's state without the downloaded bundles: their policies, data roots and entries. */
  private notDownloaded(): LoadedState {
    const { state } = this.options
    const ours = state.bundles.filter((b) => this.downloaded.has(b.name))
    let data = state.data
    for (const root of ours.flatMap((b) => b.roots)) {
      const path = root === '' ? [] : root.split('/')
      if (path.length === 0) data = new ObjectValue()
      else if (readPath(data, path) !== undefined) data = applyWrite(data, { op: 'remove', path })
    }
    return {
      policies: state.listPolicies().filter((p) => !this.downloadedPolicyIds.has(p.id)),
      data,
      bundles: state.bundles.filter((b) => !this.downloaded.has(b.name)),
    }
  }
}

/** The bundle a policy id belongs to: the longest bundle name that prefixes it. */
function bundleOfPolicy(id: string, bundles: ReadonlyMap<string, unknown>): string {
  let best = ''
  for (const name of bundles.keys()) {
    if (id.startsWith(`${name}/`) && name.length > best.length) best = name
  }
  return best
}
