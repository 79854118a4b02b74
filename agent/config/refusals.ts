/**
 * Settings of OPA's agent configuration that regent accepts in the file but cannot honour: each
 * is refused at start with the key and the reason, rather than silently ignored (a config that
 * asks for a mask policy must not run without one).
 */
import type { AgentConfig } from './schema.js'

const SUPPORTED_CREDENTIALS = ['bearer', 'client_tls', 's3_signing']

/** One line per refused setting; empty when the config can run as written. */
export function refusedSettings(config: AgentConfig): string[] {
  const refused: string[] = []
  const services = Object.keys(config.services)
  const serviceRef = (key: string, name: string | undefined) => {
    if (name !== undefined && !services.includes(name)) {
      refused.push(`${key}: no service named "${name}" (services: ${services.join(', ') || 'none'})`)
    }
  }
  for (const [name, service] of Object.entries(config.services)) {
    const kinds = Object.keys(service.credentials ?? {}).filter((k) => !SUPPORTED_CREDENTIALS.includes(k))
    if (kinds.length > 0) {
      refused.push(
        `services.${name}.credentials.${kinds[0]}: not supported by regent run (use ${SUPPORTED_CREDENTIALS.join(', ')})`,
      )
    }
  }
  if (config.plugins && Object.keys(config.plugins).length > 0) {
    refused.push(
      `plugins.${Object.keys(config.plugins)[0]}: custom plugins are Go code linked into OPA; regent has none`,
    )
  }
  for (const [name, bundle] of Object.entries(config.bundles)) {
    if (/^file:/i.test(bundle.resource ?? ''))
      refused.push(`bundles.${name}.resource: file:// bundles are loaded with -b, not downloaded`)
    if (bundle.trigger === 'manual')
      refused.push(`bundles.${name}.trigger: manual needs OPA's Go SDK to trigger; use periodic`)
  }
  const logs = config.decision_logs
  if (logs) {
    serviceRef('decision_logs.service', logs.service)
    if (logs.plugin !== undefined) refused.push('decision_logs.plugin: custom plugins are not supported')
    if (logs.mask_decision !== undefined || logs.drop_decision !== undefined) {
      const key = logs.mask_decision !== undefined ? 'mask_decision' : 'drop_decision'
      refused.push(`decision_logs.${key}: mask and drop policies are not evaluated by regent run yet`)
    }
    if (logs.reporting.max_decisions_per_second !== undefined) {
      refused.push(
        'decision_logs.reporting.max_decisions_per_second: not supported (the durable buffer keeps every decision; bound it with buffer_size_limit_bytes)',
      )
    }
    if (logs.reporting.trigger === 'manual')
      refused.push('decision_logs.reporting.trigger: manual is not supported')
    if (!logs.console && logs.service === undefined && services.length === 0) {
      refused.push(
        'decision_logs: no services are configured to upload to (set decision_logs.service or console: true)',
      )
    }
  }
  const status = config.status
  if (status) {
    serviceRef('status.service', status.service)
    if (status.plugin !== undefined) refused.push('status.plugin: custom plugins are not supported')
    if (status.trigger === 'manual') refused.push('status.trigger: manual is not supported')
    if (!status.console && status.service === undefined && services.length === 0) {
      refused.push('status: no services are configured to report to (set status.service or console: true)')
    }
  }
  return refused
}
