/**
 * `--diagnostic-addr`: a second listener with only the health checks (`/health`, `/health/{path}`)
 * and `/metrics`, without authentication or authorization, so a probe or a scraper needs no
 * token and the API can stay closed (OPA's diagnostic server).
 */
import type { Hono } from 'hono'
import { type AppEnv, createApp } from '../core/http/index.js'
import { createRunDeps, type RunAppOptions } from './app.js'
import { type AgentMetrics, metricsRoutes } from './metrics.js'
import { healthRoutes } from './routes/health.js'

/** The diagnostic app over the same state (and metrics registry) as the main one. */
export function createDiagnosticApp(options: RunAppOptions & { metrics: AgentMetrics }): Hono<AppEnv> {
  const app = createApp({ errorStyle: 'opa', logger: options.logger })
  app.route('/', healthRoutes(createRunDeps(options)))
  app.route('/', metricsRoutes(options.metrics))
  return app
}
