/**
 * The decision-log part as a relay extension: reads `relay.decision_logs` (and OPA's own
 * `decision_logs` to find the upstream), opens the buffer in the storage folder the relay chose
 * (taking over what a fallback folder still holds), mounts intake,
 * forwards through the relay's service client (so upstream credentials and TLS are the relay's),
 * and reports under `decision_logs` in `/v1/relay/status`.
 */
import { ConfigError } from '../../core/config.js'
import { adoptFallbackBuffer } from '../../plugins/logs/adopt-fallback.js'
import { type DecisionLogsConfig, decisionLogsSectionSchema } from '../../plugins/logs/config.js'
import { serviceUploadTarget, type UpstreamTarget } from '../../plugins/logs/upload.js'
import type { RelayContext, RelayExtension, RelayExtensionFactory } from '../types.js'
import { DecisionLogs } from './decision-logs.js'

/** Validates `relay.decision_logs`; the ConfigError names each bad key under that prefix. */
export function readDecisionLogsConfig(section: unknown): DecisionLogsConfig {
  const result = decisionLogsSectionSchema.safeParse(section ?? {})
  if (result.success) return result.data
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const key = ['relay', 'decision_logs', ...issue.path.map(String)].join('.')
      if (issue.code === 'unrecognized_keys')
        return issue.keys.map((k) => `${key}.${k}: unknown key`).join('\n  ')
      return `${key}: ${issue.message}`
    }),
  )
}

/**
 * Where batches go, as an OPA agent with this config would upload: `upload.service`, else OPA's
 * `decision_logs.service`, else the first service; `upload.resource`, else
 * `decision_logs.resource`, else `/logs` (`/logs/<partition_name>` with the deprecated key).
 */
export function resolveUpstream(
  context: RelayContext,
  config: DecisionLogsConfig,
): UpstreamTarget | undefined {
  const opa = (context.config.decision_logs ?? {}) as Record<string, unknown>
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  const name = config.upload.service ?? str(opa.service) ?? [...context.services.keys()][0]
  if (name === undefined) return undefined
  const client = context.services.get(name)
  if (!client) throw new ConfigError([`relay.decision_logs.upload.service: no service named "${name}"`])
  const partition = str(opa.partition_name)
  const resource = config.upload.resource ?? str(opa.resource) ?? (partition ? `/logs/${partition}` : '/logs')
  return serviceUploadTarget(client, resource)
}

/** The extension factory to list in the relay command's RELAY_EXTENSIONS. */
export const decisionLogsExtension: RelayExtensionFactory = (context): RelayExtension => {
  const config = readDecisionLogsConfig(context.config.relay.decision_logs)
  if (!config.enabled) return { name: 'decision_logs', status: () => ({ enabled: false }) }
  const logger = context.logger.child({ component: 'decision_logs' })
  const upstream = resolveUpstream(context, config)
  // The relay chose a writable storage folder (relay/storage.ts); events acknowledged while it
  // ran on the fallback folder are forwarded from here now.
  const fallbackDir = context.config.relay.storage.fallback_dir
  if (fallbackDir !== undefined) adoptFallbackBuffer(fallbackDir, context.dataDir, config, logger)
  const logs = DecisionLogs.start({
    config,
    storageDir: context.dataDir,
    upstream,
    registry: context.metrics.registry,
    logger,
  })
  let stopped = false
  return {
    name: 'decision_logs',
    routes: (app) => logs.installRoutes(app),
    stop: async () => {
      stopped = true
      await logs.stop()
    },
    status: () => ({ enabled: true, ...logs.status() }),
    ready: () => (stopped ? 'decision-log buffer closed' : logs.failure),
  }
}
