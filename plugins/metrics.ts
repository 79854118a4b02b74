/**
 * The instruments the shared plugins record into. Each user (the relay, the agent) creates them
 * in its own registry under its own metric names, so the plugins never pick a prefix.
 */
import type { Counter, Histogram } from 'prom-client'

/** Bundle pulling and status reporting counters. */
export interface PluginMetrics {
  upstreamRequests: Counter<'kind' | 'bundle' | 'outcome'>
  upstreamLatency: Histogram<'kind' | 'bundle'>
  bundleRejections: Counter<'kind' | 'bundle' | 'reason'>
  statusForwards: Counter<'outcome'>
}
