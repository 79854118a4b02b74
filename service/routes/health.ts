/**
 * Operations endpoints, open without a token: `GET /health` (the process is alive),
 * `GET /health/ready` (the database answers and every migration is applied) and
 * `GET /metrics` (Prometheus text).
 */
import { Hono } from 'hono'
import type { ServiceDeps, ServiceEnv } from '../types.js'

/** Routes of `/health` and `/metrics`. */
export function healthRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  app.get('/health', (c) => c.json({}))
  app.get('/health/ready', async (c) => {
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
