/**
 * The agent's own Prometheus registry for its plugins (bundle downloads, status posts, the
 * decision-log buffer), under `regent_agent_` names so they never clash with the relay's.
 */
import { Counter, Histogram, Registry } from 'prom-client'
import type { PluginMetrics } from '../../plugins/metrics.js'

/** The registry and the instruments the shared plugins record into. */
export function createAgentPluginMetrics(registry = new Registry()): PluginMetrics & { registry: Registry } {
  const registers = [registry]
  return {
    registry,
    upstreamRequests: new Counter({
      name: 'regent_agent_bundle_requests_total',
      help: 'Bundle download requests by outcome (modified, not_modified, http_error, network_error, timeout, too_large, rejected).',
      labelNames: ['kind', 'bundle', 'outcome'],
      registers,
    }),
    upstreamLatency: new Histogram({
      name: 'regent_agent_bundle_request_duration_seconds',
      help: 'Time to complete a bundle download request (long polls included).',
      labelNames: ['kind', 'bundle'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    bundleRejections: new Counter({
      name: 'regent_agent_bundle_rejections_total',
      help: 'Downloads refused before activation, by reason (signature, size, format, ...).',
      labelNames: ['kind', 'bundle', 'reason'],
      registers,
    }),
    statusForwards: new Counter({
      name: 'regent_agent_status_reports_total',
      help: 'Status reports posted, by outcome.',
      labelNames: ['outcome'],
      registers,
    }),
  }
}
