/**
 * The agent's status plugin (OPA's plugins/status): the agent's state as OPA's UpdateRequestV1
 * (labels, bundles, decision_logs, plugins), posted as plain JSON to `<service>/status` (or
 * `/status/<partition_name>`) through the shared coalescing StatusForwarder, which posts when the
 * report changed (timestamps of requests aside) and on a clean stop. `console: true` also logs
 * each report.
 */
import type { Logger } from 'pino'
import type { TargetState } from '../../plugins/bundle/bundle-cache.js'
import type { PluginMetrics } from '../../plugins/metrics.js'
import type { ServiceClient } from '../../plugins/rest/service-client.js'
import { StatusForwarder } from '../../plugins/status/status-forwarder.js'
import type { AgentStatusConfig } from '../config/schema.js'
import type { ActivationRecord } from './bundles.js'
import { pickService } from './services.js'

/** What a report is built from. */
export interface StatusSources {
  labels: Record<string, string>
  bundles: () => Array<{ state: TargetState; activation?: ActivationRecord }>
  decisionLogs?: () => Record<string, unknown> | undefined
  discovery?: () => { state: TargetState; activation: ActivationRecord } | undefined
  /** Bundles loaded from disk (`regent exec -b`): no download, only an activation. */
  localBundles?: () => LocalBundleStatus[]
}

/** A bundle loaded from disk, as the status report names it. */
export interface LocalBundleStatus {
  name: string
  revision: string
  /** ISO time of the activation. */
  lastSuccessfulActivation: string
  size?: number
}

/** OPA's BundleStatus of one bundle. */
function bundleStatus(state: TargetState, activation: ActivationRecord | undefined): Record<string, unknown> {
  const iso = (d: Date | undefined) => d?.toISOString()
  const error =
    activation?.error ??
    (state.lastError ? { code: 'bundle_error', message: state.lastError.message } : undefined)
  return withoutUndefined({
    name: state.target.name,
    active_revision: state.served?.revision,
    last_successful_activation: activation?.lastSuccessfulActivation,
    type: 'snapshot',
    size: state.served?.bytes.byteLength,
    last_successful_download: iso(state.lastSuccessfulDownload),
    last_successful_request: iso(state.lastSuccessfulRequest),
    last_request: iso(state.lastRequest),
    code: error?.code,
    message: error?.message,
    http_code: activation?.error ? undefined : state.lastError?.httpStatus,
    errors: activation?.error?.errors,
    metrics: {},
  })
}

/** The whole report. */
export function statusReport(sources: StatusSources): Record<string, unknown> {
  const bundles: Record<string, unknown> = {}
  let ready = true
  for (const { state, activation } of sources.bundles()) {
    bundles[state.target.name] = bundleStatus(state, activation)
    if (!activation?.lastSuccessfulActivation) ready = false
  }
  // As OPA reports a bundle it activated from disk: no request or download fields.
  for (const local of sources.localBundles?.() ?? []) {
    bundles[local.name] = withoutUndefined({
      name: local.name,
      // OPA leaves an empty revision out (omitempty).
      active_revision: local.revision === '' ? undefined : local.revision,
      last_successful_activation: local.lastSuccessfulActivation,
      type: 'snapshot',
      size: local.size,
      metrics: {},
    })
  }
  const plugins: Record<string, { state: string }> = {
    bundle: { state: ready ? 'OK' : 'NOT_READY' },
    status: { state: 'OK' },
  }
  const decisionLogs = sources.decisionLogs?.()
  if (decisionLogs) plugins.decision_logs = { state: 'OK' }
  const discovery = sources.discovery?.()
  if (discovery) {
    plugins.discovery = { state: discovery.activation.lastSuccessfulActivation ? 'OK' : 'NOT_READY' }
  }
  return {
    labels: sources.labels,
    bundles,
    ...(discovery ? { discovery: bundleStatus(discovery.state, discovery.activation) } : {}),
    ...(decisionLogs ? { decision_logs: decisionLogs } : {}),
    plugins,
  }
}

/** Posts reports while the agent runs. */
export class AgentStatus {
  private readonly forwarder: StatusForwarder | undefined
  private lastLogged = ''

  constructor(
    private readonly config: AgentStatusConfig,
    clients: ReadonlyMap<string, ServiceClient>,
    private readonly sources: StatusSources,
    metrics: PluginMetrics,
    private readonly logger: Logger,
  ) {
    const client =
      config.service !== undefined || !config.console ? pickService(clients, config.service) : undefined
    if (client) {
      this.forwarder = new StatusForwarder({
        client,
        partition: config.partition_name,
        ownReport: () => statusReport(sources),
        // A changed report goes out within a second; an unchanged one once a minute (a sign of life).
        intervalMs: 1000,
        metrics,
        logger,
      })
    }
  }

  start(): void {
    this.forwarder?.start()
  }

  /** Called on every plugin change; logs the report with `console: true`. */
  changed(): void {
    if (!this.config.console) return
    const report = statusReport(this.sources)
    const text = JSON.stringify(report)
    if (text === this.lastLogged) return
    this.lastLogged = text
    this.logger.info({ status: report }, 'Status Log')
  }

  async stop(): Promise<void> {
    await this.forwarder?.stop()
  }
}

function withoutUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
}
