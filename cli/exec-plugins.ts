/**
 * The decision-log and status plugins of `regent exec -c`, as `opa exec` runs them: the agent's own
 * plugins (agent/plugins/decision-logs.ts, status.ts) started from the same OPA configuration. Each
 * decision becomes one OPA decision-log event; status is reported once the run starts and again
 * when it ends. At exit the plugins are stopped as OPA stops them: the decision-log upload drains
 * for a bounded time (`upload.drain_timeout_ms` of the buffer, 5 s), then the process ends. The
 * buffer lives in `persistence_directory` when the configuration sets one (what was not delivered
 * is uploaded by the next exec or agent using that folder), else in a temporary folder removed at
 * exit (what was not delivered is lost, as with OPA's memory buffer, and said on stderr). Bundles
 * given with `-b` are reported once the policy is built from them, under their path as given, as
 * OPA reports bundles it activated from disk, and decision-log events name their revisions.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import { Registry } from 'prom-client'
import { refusedSettings } from '../agent/config/refusals.js'
import { agentConfigSchema } from '../agent/config/schema.js'
import { AgentDecisionLogs } from '../agent/plugins/decision-logs.js'
import { createAgentPluginMetrics } from '../agent/plugins/metrics.js'
import { addServiceClients } from '../agent/plugins/services.js'
import { AgentStatus, type LocalBundleStatus, type StatusSources } from '../agent/plugins/status.js'
import type { LoadedBundle } from '../core/bundle/policy-files.js'
import { ConfigError, parseConfig } from '../core/config.js'
import type { TargetState } from '../plugins/bundle/bundle-cache.js'
import type { ServiceClient } from '../plugins/rest/service-client.js'
import type { CommandLog } from './command-log.js'
import { configTextWithOverrides } from './config-overrides.js'
import type { ConfigOverrides } from './exec-bundles.js'
import { REGENT_VERSION } from './version-info.js'

/** One decision of the run, as the decision-log event records it. */
export interface ExecDecision {
  decisionId: string
  /** The decision path without its leading slash (`authz/allow`), as OPA logs it. */
  path: string
  /** JSON text of the input, numbers as written. */
  inputText: string
  /** JSON text of the result; absent when the decision is undefined. */
  resultText?: string
  /** Revisions of the bundles the decision was evaluated against, by bundle name. */
  bundles: Record<string, { revision: string }>
  metrics: Record<string, number>
}

/** The running plugins of one exec. */
export interface ExecPlugins {
  /** Whether decisions are logged (a `decision_logs` section is configured). */
  readonly logsDecisions: boolean
  record(decision: ExecDecision): Promise<void>
  /**
   * Reports the `-b` bundles as activated now (the status report's `bundles`, as OPA reports
   * bundles loaded from disk) and returns their revisions by name for the decision-log events.
   */
  activated(bundles: readonly LoadedBundle[]): Record<string, { revision: string }>
  /** Uploads within the bounded drain time, posts the final status, and releases everything. */
  stop(): Promise<void>
}

/**
 * Starts the plugins the configuration at `file` (with overrides) asks for; undefined when it has
 * neither `decision_logs` nor `status`.
 * @throws ConfigError naming the key, for settings the plugins cannot run with.
 */
export async function startExecPlugins(
  file: string | undefined,
  overrides: ConfigOverrides,
  log: CommandLog,
  bundles: readonly TargetState[] = [],
): Promise<ExecPlugins | undefined> {
  const text = configTextWithOverrides(file, overrides.sets, overrides.setFiles) ?? '{}'
  const config = parseConfig(text, agentConfigSchema, file ? { file } : {})
  if (!config.decision_logs && !config.status) return undefined
  // Only the plugins' own settings: bundle settings are exec-bundles.ts's business.
  const refused = refusedSettings(config).filter((line) => /^(decision_logs|status|services)/.test(line))
  if (refused.length > 0) throw new ConfigError(refused, file)

  const temporary = config.persistence_directory === undefined
  const persistenceDir = config.persistence_directory ?? (await mkdtemp(join(tmpdir(), 'regent-exec-logs-')))
  const logger = pinoOver(log)
  const labels: Record<string, string> = {
    ...config.labels,
    id: crypto.randomUUID(),
    version: REGENT_VERSION,
  }
  const activatedAt = new Date().toISOString()
  const clients = new Map<string, ServiceClient>()
  addServiceClients(clients, config, `regent-exec/${REGENT_VERSION}`)
  const metrics = createAgentPluginMetrics(new Registry())
  let logs: AgentDecisionLogs | undefined
  let status: AgentStatus | undefined
  let local: LocalBundleStatus[] = []
  const sources: StatusSources = {
    labels,
    // Every bundle was activated before the plugins started: the policy was built from them all.
    bundles: () => bundles.map((state) => ({ state, activation: { lastSuccessfulActivation: activatedAt } })),
    decisionLogs: () => (logs ? { ...logs.status() } : undefined),
    localBundles: () => local,
  }
  try {
    if (config.decision_logs) {
      logs = new AgentDecisionLogs({
        config: config.decision_logs,
        clients,
        persistenceDir,
        labels,
        registry: metrics.registry,
        logger: logger.child({ plugin: 'decision_logs' }),
        onChange: () => status?.changed(),
      })
      logs.start()
    }
    if (config.status) {
      status = new AgentStatus(config.status, clients, sources, metrics, logger.child({ plugin: 'status' }))
      status.start()
    }
  } catch (err) {
    await Promise.all([...clients.values()].map((c) => c.close()))
    if (temporary) await rm(persistenceDir, { recursive: true, force: true })
    throw err
  }
  return {
    logsDecisions: logs !== undefined,
    record: (decision) => logs?.record(eventText(labels, decision)) ?? Promise.resolve(),
    activated(bundles) {
      const at = new Date().toISOString()
      local = bundles.map((b) => ({
        name: b.name,
        revision: b.revision,
        lastSuccessfulActivation: at,
        ...(b.size !== undefined ? { size: b.size } : {}),
      }))
      if (local.length > 0) status?.changed()
      return Object.fromEntries(bundles.map((b) => [b.name, { revision: b.revision }]))
    },
    async stop() {
      const undelivered = (await logs?.stop()) ?? 0
      await status?.stop()
      await Promise.all([...clients.values()].map((c) => c.close()))
      if (undelivered > 0) {
        log.error(
          temporary
            ? 'decision logs not delivered before exit; they are dropped (set persistence_directory to keep them)'
            : 'decision logs not delivered before exit; they wait in persistence_directory for the next run',
          { events: undelivered, ...(temporary ? {} : { persistence_directory: persistenceDir }) },
        )
      }
      if (temporary) await rm(persistenceDir, { recursive: true, force: true })
    },
  }
}

/** OPA's EventV1 for one exec decision (field order as OPA writes it). */
export function eventText(labels: Record<string, string>, d: ExecDecision): string {
  const parts = [
    `"labels":${JSON.stringify(labels)}`,
    `"decision_id":${JSON.stringify(d.decisionId)}`,
    ...(Object.keys(d.bundles).length > 0 ? [`"bundles":${JSON.stringify(d.bundles)}`] : []),
    `"path":${JSON.stringify(d.path)}`,
    `"input":${d.inputText}`,
    ...(d.resultText !== undefined ? [`"result":${d.resultText}`] : []),
    `"timestamp":${JSON.stringify(new Date().toISOString())}`,
    `"metrics":${JSON.stringify(d.metrics)}`,
  ]
  return `{${parts.join(',')}}`
}

/** A pino logger whose lines go to the command's log (warnings shown as errors: they matter here). */
function pinoOver(log: CommandLog): Logger {
  return pino(
    { level: 'debug', base: null, timestamp: false },
    {
      write(line: string) {
        let entry: Record<string, unknown>
        try {
          entry = JSON.parse(line) as Record<string, unknown>
        } catch {
          return
        }
        const { level, msg, ...fields } = entry
        const text = typeof msg === 'string' ? msg : ''
        const n = typeof level === 'number' ? level : 30
        if (n >= 40) log.error(text, fields)
        else if (n >= 30) log.info(text, fields)
        else log.debug(text, fields)
      },
    },
  )
}
