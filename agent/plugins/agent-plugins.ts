/**
 * The plugins of `regent run -s -c`: discovery, bundles, decision logs and status, started from
 * one agent configuration over the server's state, and stopped together (status last, so the
 * final report tells the truth about the others). With `discovery`, the boot configuration is
 * applied first and each discovered configuration after it: bundles follow every change;
 * decision logs and status start with the first configuration that has them (a later change to
 * them needs a restart, and is logged as such).
 */
import type { Logger } from 'pino'
import { Registry } from 'prom-client'
import { ConfigError } from '../../core/config.js'
import { defaultDataDir } from '../../core/runtime-defaults.js'
import { resolveTargets, type Target, TargetError } from '../../plugins/bundle/targets.js'
import type { ServiceClient } from '../../plugins/rest/service-client.js'
import type { AgentConfig } from '../config/schema.js'
import type { DecisionLogSink } from '../decision-logging.js'
import type { ServerState } from '../state.js'
import { AgentBundles } from './bundles.js'
import { AgentDecisionLogs } from './decision-logs.js'
import { AgentDiscovery } from './discovery.js'
import { createAgentPluginMetrics } from './metrics.js'
import { addServiceClients } from './services.js'
import { AgentStatus, type StatusSources, statusReport } from './status.js'

export interface AgentPluginsOptions {
  config: AgentConfig
  state: ServerState
  /** The server's id (OPA's `labels.id`), also shown by `/v1/config`. */
  instanceId: string
  version: string
  logger: Logger
  /** `--skip-verify`. */
  skipVerification?: boolean
}

/** The running plugins. */
export interface AgentPlugins {
  labels: Record<string, string>
  /** Decision logging; events are dropped until a configuration enables it. */
  decisionLog: DecisionLogSink
  /** Prometheus registry of the plugins' metrics. */
  registry: Registry
  /** Whether discovery (if configured) and every configured bundle have been activated. */
  bundlesReady(): boolean
  /** The current status report (OPA's UpdateRequestV1), for `GET /v1/status`. */
  statusReport(): Record<string, unknown>
  stop(): Promise<void>
}

/** The folder persisted bundles and the decision-log buffer live in. */
export function persistenceDirOf(config: AgentConfig): string {
  return config.persistence_directory ?? defaultDataDir('agent')
}

/**
 * Starts the plugins the configuration asks for; persisted bundles are activated before it
 * resolves. @throws ConfigError for services or bundles that cannot be used as configured.
 */
export async function startAgentPlugins(options: AgentPluginsOptions): Promise<AgentPlugins> {
  const { config: boot, logger } = options
  const persistenceDir = persistenceDirOf(boot)
  const labels: Record<string, string> = { ...boot.labels, id: options.instanceId, version: options.version }
  const userAgent = `regent/${options.version} (${process.platform}, ${process.arch})`
  const clients = new Map<string, ServiceClient>()
  addServiceClients(clients, boot, userAgent)
  const metrics = createAgentPluginMetrics(new Registry())
  let logs: AgentDecisionLogs | undefined
  let status: AgentStatus | undefined
  let discovery: AgentDiscovery | undefined
  const changed = () => status?.changed()
  const bundles = new AgentBundles({
    clients,
    state: options.state,
    persistenceDir,
    metrics,
    logger: logger.child({ plugin: 'bundle' }),
    onChange: changed,
  })
  const sources: StatusSources = {
    labels,
    bundles: () =>
      bundles.states().map((state) => ({ state, activation: bundles.activations.get(state.target.name) })),
    decisionLogs: () => (logs ? { ...logs.status() } : undefined),
    discovery: () => {
      const state = discovery?.state()
      return state && discovery ? { state, activation: discovery.activation } : undefined
    },
  }

  const apply = async (config: AgentConfig) => {
    addServiceClients(clients, config, userAgent)
    for (const [key, value] of Object.entries(config.labels)) if (!(key in labels)) labels[key] = value
    await bundles.setTargets(
      bundleTargets(config, options.skipVerification),
      new Set(Object.entries(config.bundles).flatMap(([name, b]) => (b.persist ? [name] : []))),
    )
    if (config.decision_logs && !logs) {
      logs = new AgentDecisionLogs({
        config: config.decision_logs,
        clients,
        persistenceDir,
        labels,
        registry: metrics.registry,
        logger: logger.child({ plugin: 'decision_logs' }),
        onChange: changed,
      })
      logs.start()
    }
    if (config.status && !status) {
      status = new AgentStatus(config.status, clients, sources, metrics, logger.child({ plugin: 'status' }))
      status.start()
    }
  }

  await apply(boot)
  bundles.start()
  if (boot.discovery) {
    discovery = new AgentDiscovery({
      boot,
      target: discoveryTarget(boot, options.skipVerification),
      clients,
      persistenceDir,
      metrics,
      logger: logger.child({ plugin: 'discovery' }),
      apply,
      onChange: changed,
    })
    await discovery.start()
  }
  return {
    labels,
    decisionLog: { labels, record: (text) => logs?.record(text) ?? Promise.resolve() },
    registry: metrics.registry,
    bundlesReady: () =>
      bundles.allActivated() &&
      (discovery === undefined || discovery.activation.lastSuccessfulActivation !== undefined),
    statusReport: () => statusReport(sources),
    async stop() {
      await discovery?.stop()
      await bundles.stop()
      await logs?.stop()
      await status?.stop()
      await Promise.all([...clients.values()].map((c) => c.close()))
    },
  }
}

function withSkip(target: Target, skip: boolean | undefined): Target {
  return skip ? { ...target, skipVerification: true } : target
}

function bundleTargets(config: AgentConfig, skip: boolean | undefined): Target[] {
  try {
    return resolveTargets({ ...config, discovery: undefined }).map((t) => withSkip(t, skip))
  } catch (err) {
    if (err instanceof TargetError) throw new ConfigError([err.message])
    throw err
  }
}

function discoveryTarget(config: AgentConfig, skip: boolean | undefined): Target {
  try {
    const target = resolveTargets({ ...config, bundles: {} }).find((t) => t.kind === 'discovery')!
    return withSkip(target, skip)
  } catch (err) {
    if (err instanceof TargetError) throw new ConfigError([err.message])
    throw err
  }
}
