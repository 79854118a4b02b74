/**
 * The plugins of `regent run -s -c`: bundles, decision logs and status, started from one agent
 * configuration over the server's state, and stopped together (status last, so the final report
 * tells the truth about the others).
 */

import type { Logger } from 'pino'
import { Registry } from 'prom-client'
import { defaultDataDir } from '../../core/runtime-defaults.js'
import type { AgentConfig } from '../config/schema.js'
import type { DecisionLogSink } from '../decision-logging.js'
import type { LoadedState } from '../load.js'
import type { ServerState } from '../state.js'
import { AgentBundles } from './bundles.js'
import { AgentDecisionLogs } from './decision-logs.js'
import { createAgentPluginMetrics } from './metrics.js'
import { createServiceClients } from './services.js'
import { AgentStatus, statusReport } from './status.js'

export interface AgentPluginsOptions {
  config: AgentConfig
  state: ServerState
  base: LoadedState
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
  decisionLog?: DecisionLogSink
  /** Prometheus registry of the plugins' metrics. */
  registry: Registry
  /** Whether every configured bundle has been activated. */
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
  const { config, logger } = options
  const persistenceDir = persistenceDirOf(config)
  const labels = { ...config.labels, id: options.instanceId, version: options.version }
  const clients = createServiceClients(
    config,
    `regent/${options.version} (${process.platform}, ${process.arch})`,
  )
  const metrics = createAgentPluginMetrics(new Registry())
  let status: AgentStatus | undefined
  const changed = () => status?.changed()
  const bundles = new AgentBundles({
    config,
    clients,
    state: options.state,
    base: options.base,
    persistenceDir,
    metrics,
    skipVerification: options.skipVerification,
    logger: logger.child({ plugin: 'bundle' }),
    onChange: changed,
  })
  const logs = config.decision_logs
    ? new AgentDecisionLogs({
        config: config.decision_logs,
        clients,
        persistenceDir,
        labels,
        registry: metrics.registry,
        logger: logger.child({ plugin: 'decision_logs' }),
        onChange: changed,
      })
    : undefined
  const sources = {
    labels,
    bundles: () =>
      bundles.states().map((state) => ({ state, activation: bundles.activations.get(state.target.name) })),
    ...(logs ? { decisionLogs: () => ({ ...logs.status() }) } : {}),
  }
  if (config.status) {
    status = new AgentStatus(config.status, clients, sources, metrics, logger.child({ plugin: 'status' }))
  }
  await bundles.start()
  logs?.start()
  status?.start()
  return {
    labels,
    ...(logs ? { decisionLog: logs } : {}),
    registry: metrics.registry,
    bundlesReady: () => bundles.allActivated(),
    statusReport: () => statusReport(sources),
    async stop() {
      await bundles.stop()
      await logs?.stop()
      await status?.stop()
      await Promise.all([...clients.values()].map((c) => c.close()))
    },
  }
}
