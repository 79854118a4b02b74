/**
 * The decision-log part as a relay extension: reads `relay.decision_logs` (and OPA's own
 * `decision_logs` to find the upstream), opens the buffer in the storage folder, mounts intake,
 * forwards through the relay's service client (so upstream credentials and TLS are the relay's),
 * and reports under `decision_logs` in `/v1/relay/status`.
 */
import { accessSync, constants, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError } from '../../core/config.js'
import type { RelayContext, RelayExtension, RelayExtensionFactory } from '../types.js'
import { type DecisionLogsConfig, decisionLogsSectionSchema } from './config.js'
import { DecisionLogs } from './decision-logs.js'
import type { UpstreamTarget } from './upload.js'

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
  return {
    url: client.urlOf(resource),
    send: ({ body, headers, signal, timeoutMs }) =>
      client.send({
        method: 'POST',
        resource,
        headers,
        body,
        signal,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: timeoutMs,
      }),
  }
}

/**
 * The storage folder for the buffer. With `relay.storage.persistent: true` it must be writable
 * (the relay refuses to start otherwise: a volume that cannot be written would lose logs
 * silently); an ephemeral relay whose folder is read-only falls back to a temporary folder.
 */
export function bufferFolder(context: RelayContext): string {
  const dir = context.dataDir
  try {
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
    return dir
  } catch (err) {
    if (context.persistent) {
      throw new ConfigError([
        `relay.storage.dir: ${dir} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); decision logs need it with relay.storage.persistent: true`,
      ])
    }
    const fallback = join(tmpdir(), `regent-relay-${process.pid}`)
    mkdirSync(fallback, { recursive: true })
    context.logger.warn(
      { dir, fallback },
      'storage folder not writable; keeping decision logs in a temporary folder',
    )
    return fallback
  }
}

/** The extension factory to list in the relay command's RELAY_EXTENSIONS. */
export const decisionLogsExtension: RelayExtensionFactory = (context): RelayExtension => {
  const config = readDecisionLogsConfig(context.config.relay.decision_logs)
  if (!config.enabled) return { name: 'decision_logs', status: () => ({ enabled: false }) }
  const logger = context.logger.child({ component: 'decision_logs' })
  const upstream = resolveUpstream(context, config)
  const logs = DecisionLogs.start({
    config,
    storageDir: bufferFolder(context),
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
    ready: () => (stopped ? 'decision-log buffer closed' : logs.buffer.failure),
  }
}
