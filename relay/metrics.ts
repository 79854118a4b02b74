/**
 * The relay's Prometheus metrics (prom-client), in a registry of its own so several relays in
 * one process (tests) do not collide. Gauges that describe state (revision, age, waiters) are
 * computed when scraped, from the same state `/v1/relay/status` reads.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { BundleCache } from '../plugins/bundle/bundle-cache.js'
import { CounterTally } from './counter-tally.js'

/** The metric instruments the relay's parts record into. */
export interface RelayMetrics {
  registry: Registry
  upstreamRequests: Counter<'kind' | 'bundle' | 'outcome'>
  upstreamLatency: Histogram<'kind' | 'bundle'>
  bundleRejections: Counter<'kind' | 'bundle' | 'reason'>
  agentRequests: Counter<'route' | 'code'>
  agentBundleResponses: Counter<'bundle' | 'code'>
  /** Hot-path counts of the two counters above, added in when they are read (counter-tally.ts). */
  tallies: {
    agentRequests: CounterTally<'route', 'code'>
    agentBundleResponses: CounterTally<'bundle', 'code'>
  }
  longPollRejected: Counter
  statusForwards: Counter<'outcome'>
}

/** Creates the registry and its instruments; `cache` feeds the scrape-time gauges. */
export function createRelayMetrics(
  cache: BundleCache,
  options: { defaultMetrics?: boolean } = {},
): RelayMetrics {
  const registry = new Registry()
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'regent_relay_' })
  const registers = [registry]

  new Gauge({
    name: 'regent_relay_bundle_info',
    help: 'The served bundle of each target (value 1), labelled with its revision.',
    labelNames: ['kind', 'bundle', 'revision'],
    registers,
    collect() {
      this.reset()
      for (const s of cache.all()) {
        if (s.served) this.set({ kind: s.target.kind, bundle: s.target.name, revision: s.served.revision }, 1)
      }
    },
  })
  new Gauge({
    name: 'regent_relay_bundle_age_seconds',
    help: 'Seconds since the served bundle was verified.',
    labelNames: ['kind', 'bundle'],
    registers,
    collect() {
      this.reset()
      const now = Date.now()
      for (const s of cache.all()) {
        if (s.served) {
          this.set(
            { kind: s.target.kind, bundle: s.target.name },
            (now - s.served.verifiedAt.getTime()) / 1000,
          )
        }
      }
    },
  })
  new Gauge({
    name: 'regent_relay_bundle_size_bytes',
    help: 'Size of the served bundle.',
    labelNames: ['kind', 'bundle'],
    registers,
    collect() {
      this.reset()
      for (const s of cache.all()) {
        if (s.served) this.set({ kind: s.target.kind, bundle: s.target.name }, s.served.bytes.byteLength)
      }
    },
  })
  new Gauge({
    name: 'regent_relay_long_poll_waiters',
    help: 'Agent requests held by long polling now.',
    registers,
    collect() {
      this.set(cache.waiters.count)
    },
  })
  const tallies = {
    agentRequests: new CounterTally('route', 'code'),
    agentBundleResponses: new CounterTally('bundle', 'code'),
  }
  const agentBundleResponses = new Counter({
    name: 'regent_relay_agent_bundle_responses_total',
    help: 'Bundle responses to agents by status code (200 full, 304 not modified).',
    labelNames: ['bundle', 'code'],
    registers,
    collect() {
      tallies.agentBundleResponses.flushInto(this)
    },
  })
  new Gauge({
    name: 'regent_relay_agent_not_modified_ratio',
    help: 'Share of bundle responses to agents that were 304 since start.',
    registers,
    async collect() {
      const { values } = await agentBundleResponses.get()
      let full = 0
      let notModified = 0
      for (const v of values) {
        if (v.labels.code === '304') notModified += v.value
        else if (v.labels.code === '200') full += v.value
      }
      this.set(full + notModified === 0 ? 0 : notModified / (full + notModified))
    },
  })

  return {
    registry,
    upstreamRequests: new Counter({
      name: 'regent_relay_upstream_requests_total',
      help: 'Upstream bundle requests by outcome (modified, not_modified, http_error, network_error, timeout, too_large, rejected, refused_again).',
      labelNames: ['kind', 'bundle', 'outcome'],
      registers,
    }),
    upstreamLatency: new Histogram({
      name: 'regent_relay_upstream_request_duration_seconds',
      help: 'Time to complete an upstream bundle request (long polls included).',
      labelNames: ['kind', 'bundle'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    bundleRejections: new Counter({
      name: 'regent_relay_bundle_rejections_total',
      help: 'Downloads refused before promotion, by reason (signature, size, format, ...).',
      labelNames: ['kind', 'bundle', 'reason'],
      registers,
    }),
    agentRequests: new Counter({
      name: 'regent_relay_agent_requests_total',
      help: 'Requests from agents by route and status code.',
      labelNames: ['route', 'code'],
      registers,
      collect() {
        tallies.agentRequests.flushInto(this)
      },
    }),
    agentBundleResponses,
    tallies,
    longPollRejected: new Counter({
      name: 'regent_relay_long_poll_rejected_total',
      help: 'Long polls answered 503 because max_waiters was reached.',
      registers,
    }),
    statusForwards: new Counter({
      name: 'regent_relay_status_forwards_total',
      help: 'Status reports posted upstream, by outcome.',
      labelNames: ['outcome'],
      registers,
    }),
  }
}
