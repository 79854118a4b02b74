/**
 * Operations endpoints, open without a token: `GET /health` (the process is alive),
 * `GET /health/ready` (the database answers, every migration is applied and its disk takes
 * writes) and
 * `GET /metrics` (Prometheus text).
 */
import { Hono } from 'hono'
import type { ServiceDeps, ServiceEnv } from '../types.js'

/** Routes of `/health` and `/metrics`. */
export function healthRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  app.get('/health', (c) => c.json({}))
  app.get('/health/ready', async (c) => {
    const diskFull = deps.writeHealth.failure
    if (diskFull !== undefined) return c.json({ code: 'not_ready', message: diskFull }, 503)
    const ready = await deps.store.ready()
    return ready
      ? c.json({})
      : c.json({ code: 'not_ready', message: 'the database is unreachable or not migrated' }, 503)
  })
  app.get('/metrics', async (c) => {
    const registry = deps.metrics.registry
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType })
  })
  return app
}
