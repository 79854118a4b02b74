/**
 * Operator routes: `GET /health/live` (the process answers), `GET /health/ready` (every required
 * bundle has a verified copy, and every extension is ready), `GET /metrics` (Prometheus), all
 * without auth for probes and scrapers; and `GET /v1/relay/status` (JSON at a glance).
 */
import type { Hono } from 'hono'
import type { AppEnv } from '../../core/http/index.js'
import type { BundleCache } from '../../plugins/bundle/bundle-cache.js'
import type { RelayMetrics } from '../metrics.js'
import { type RelayStatusSources, relayStatusView } from '../status/relay-status.js'

/** A readiness check of an extension: undefined when ready, else the reason it is not. */
export type ReadinessCheck = () => string | undefined

export interface OperationsRouteOptions {
  cache: BundleCache
  metrics: RelayMetrics
  readiness: ReadinessCheck[]
}

/** Why the relay is not ready, or an empty list. */
export function notReadyReasons(cache: BundleCache, readiness: ReadinessCheck[]): string[] {
  const reasons = cache
    .all()
    .filter((s) => s.target.required && !s.served)
    .map((s) => `${s.target.kind} ${s.target.name} has no verified copy yet`)
  for (const check of readiness) {
    const reason = check()
    if (reason) reasons.push(reason)
  }
  return reasons
}

/** Installs the health, metrics and relay status routes. */
export function installOperationsRoutes(app: Hono<AppEnv>, options: OperationsRouteOptions): void {
  app.get('/health/live', (c) => c.json({ status: 'ok' }))
  app.get('/health/ready', (c) => {
    const reasons = notReadyReasons(options.cache, options.readiness)
    return reasons.length === 0 ? c.json({ status: 'ok' }) : c.json({ status: 'not_ready', reasons }, 503)
  })
  app.get('/metrics', async (c) => {
    const text = await options.metrics.registry.metrics()
    return c.text(text, 200, { 'Content-Type': options.metrics.registry.contentType })
  })
}

/** Installs `GET /v1/relay/status` (behind agent auth, as it lists agents). */
export function installRelayStatusRoute(app: Hono<AppEnv>, status: RelayStatusSources): void {
  app.get('/v1/relay/status', (c) => c.json(relayStatusView(status)))
}
