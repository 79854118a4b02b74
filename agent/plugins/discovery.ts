/**
 * The agent's discovery plugin (OPA's plugins/discovery): the discovery bundle is downloaded and
 * verified like any bundle (`discovery.signing`, `discovery.persist`), then evaluated with
 * regent's engine at `data.<discovery.decision>` (default: the discovery name), so a discovery
 * bundle that computes its configuration with policies works as well as one that holds it as
 * data. The result is merged under the boot configuration (the boot config wins on conflicts;
 * `services` and `keys` are added to; `labels` can only be added; `discovery` is ignored), then
 * validated as a whole and applied. A discovered configuration that does not validate is
 * reported in status and the previous one stays in force.
 */

import { join } from 'node:path'
import type { Logger } from 'pino'
import { ConfigError } from '../../core/config.js'
import { ObjectValue } from '../../core/rego/values/index.js'
import { BundleCache, type TargetState } from '../../plugins/bundle/bundle-cache.js'
import { BundleDiskStore } from '../../plugins/bundle/disk-store.js'
import { PullerPool } from '../../plugins/bundle/puller-pool.js'
import type { Target } from '../../plugins/bundle/targets.js'
import type { VerifiedBundle } from '../../plugins/bundle/verify.js'
import { LongPollWaiters } from '../../plugins/bundle/waiters.js'
import type { PluginMetrics } from '../../plugins/metrics.js'
import type { ServiceClient } from '../../plugins/rest/service-client.js'
import { refusedSettings } from '../config/refusals.js'
import { type AgentConfig, agentConfigSchema } from '../config/schema.js'
import { jsonText } from '../http-io.js'
import { withBundle } from '../load.js'
import { refQueryText } from '../paths.js'
import { ServerState } from '../state.js'
import type { ActivationRecord } from './bundles.js'

export interface AgentDiscoveryOptions {
  boot: AgentConfig
  target: Target
  clients: ReadonlyMap<string, ServiceClient>
  persistenceDir: string
  metrics: PluginMetrics
  logger: Logger
  /** Applies a merged, validated configuration. */
  apply: (config: AgentConfig) => Promise<void>
  onChange?: () => void
}

/** Downloads, evaluates and applies the discovery bundle. */
export class AgentDiscovery {
  readonly activation: ActivationRecord = {}
  private readonly cache: BundleCache
  private readonly pool: PullerPool
  /** Discovery applies one configuration at a time, in download order. */
  private applying: Promise<void> = Promise.resolve()

  constructor(private readonly options: AgentDiscoveryOptions) {
    const disk = options.boot.discovery?.persist
      ? new BundleDiskStore(join(options.persistenceDir, 'bundles'), options.logger)
      : undefined
    this.cache = new BundleCache(new LongPollWaiters(1), disk, options.logger)
    this.pool = new PullerPool({
      services: options.clients,
      cache: this.cache,
      disk,
      metrics: options.metrics,
      logger: options.logger,
      onPromote: (_target, verified) => {
        this.applying = this.applying.then(() => this.discovered(verified))
        return this.applying
      },
      onContact: () => options.onChange?.(),
    })
  }

  /** Activates a persisted discovery bundle (if any), then starts downloading. */
  async start(): Promise<void> {
    await this.pool.add(this.options.target)
    this.pool.start()
  }

  async stop(): Promise<void> {
    await this.pool.stop()
  }

  state(): TargetState | undefined {
    return this.cache.get(this.options.target.resource)
  }

  /** The path evaluated in the discovery bundle (OPA: `discovery.decision`, else the name). */
  decisionPath(): string[] {
    const discovery = this.options.boot.discovery
    const decision = discovery?.decision ?? discovery?.name ?? 'discovery'
    return decision.split(/[/.]/).filter(Boolean)
  }

  private async discovered(verified: VerifiedBundle): Promise<void> {
    const { logger } = this.options
    try {
      const raw = this.evaluate(verified)
      const merged = mergeUnderBoot(this.options.boot, raw)
      const parsed = agentConfigSchema.safeParse(merged)
      if (!parsed.success) {
        throw new ConfigError(
          parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`),
        )
      }
      const refused = refusedSettings({ ...parsed.data, discovery: undefined })
      if (refused.length > 0) throw new ConfigError(refused)
      await this.options.apply(parsed.data)
      this.activation.lastSuccessfulActivation = new Date().toISOString()
      this.activation.error = undefined
      logger.info({ revision: verified.revision }, 'discovered configuration applied')
    } catch (err) {
      const message = err instanceof ConfigError ? err.problems.join('; ') : (err as Error).message
      this.activation.error = { code: 'bundle_error', message }
      logger.error({ err: message }, 'discovered configuration not applied; previous kept')
    }
    this.options.onChange?.()
  }

  /** The discovered configuration as plain JSON. */
  private evaluate(verified: VerifiedBundle): Record<string, unknown> {
    const empty = { policies: [], data: new ObjectValue(), bundles: [] }
    const loaded = withBundle(empty, this.options.target.name, verified.bundle, 'v1')
    const state = new ServerState(loaded, { regoVersion: 'v1' })
    const run = state.policy.prepare(`x = ${refQueryText(this.decisionPath())}`).evalSync({})
    const value = run.results[0]?.bindings.get('x')
    if (value === undefined)
      throw new Error(`data.${this.decisionPath().join('.')} is undefined in the discovery bundle`)
    const config = JSON.parse(jsonText(value, false)) as unknown
    if (config === null || typeof config !== 'object' || Array.isArray(config)) {
      throw new Error(`data.${this.decisionPath().join('.')} is not an object`)
    }
    return config as Record<string, unknown>
  }
}

/**
 * The discovered config with the boot config over it: whole sections of the boot config win;
 * `services`, `keys` and `bundles` are merged by name (boot entries win); `labels` are merged with
 * the boot's winning; `discovery` always comes from the boot config.
 */
export function mergeUnderBoot(
  boot: AgentConfig,
  discovered: Record<string, unknown>,
): Record<string, unknown> {
  const obj = (v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  const merged: Record<string, unknown> = { ...discovered }
  for (const [key, value] of Object.entries(boot)) {
    if (value === undefined) continue
    if (['services', 'keys', 'bundles', 'labels'].includes(key)) {
      merged[key] = { ...obj(discovered[key]), ...(value as Record<string, unknown>) }
    } else if (
      !['default_decision', 'default_authorization_decision'].includes(key) ||
      !(key in discovered)
    ) {
      merged[key] = value
    }
  }
  // Discovered services may come as a list; the boot ones are already a map.
  if (Array.isArray(discovered.services)) {
    const byName = Object.fromEntries(
      discovered.services.map((s) => [String((s as { name?: unknown }).name ?? ''), s]),
    )
    merged.services = { ...byName, ...boot.services }
  }
  return merged
}
