/**
 * The relay's Hono app: OPA's error shape, agent requests counted, operator routes without auth
 * (probes and scrapers need none), then agent routes under `/v1` behind the optional bearer
 * auth: status intake, the relay's status, extension routes (decision logs) and last the bundle
 * catch-all `GET /v1/<resource>`.
 */
import type { Hono, MiddlewareHandler } from 'hono'
import type { Logger } from 'pino'
import { type AppEnv, createApp } from '../core/http/index.js'
import type { AgentStatuses } from '../plugins/status/agent-statuses.js'
import type { AgentAuthConfig } from './config.js'
import type { RelayMetrics } from './metrics.js'
import { agentAuth } from './routes/agent-auth.js'
import { installBundleRoutes } from './routes/bundles.js'
import { installOperationsRoutes, installRelayStatusRoute, type ReadinessCheck } from './routes/operations.js'
import { installStatusRoutes, type StatusLimits } from './routes/status.js'
import type { RelayStatusSources } from './status/relay-status.js'
import type { RelayContext, RouteInstaller } from './types.js'

export interface RelayAppOptions {
  logger: Logger
  context: RelayContext
  agents: AgentStatuses
  /** Bounds of a status report at intake (`relay.status`). */
  statusLimits: StatusLimits
  status: RelayStatusSources
  agentAuth: AgentAuthConfig
  maxWaitSeconds: number
  readiness?: ReadinessCheck[]
  /** Extra routes (the decision-log intake), installed before the bundle catch-all. */
  routes?: RouteInstaller[]
}

/** Builds the relay's app. */
export function createRelayApp(options: RelayAppOptions): Hono<AppEnv> {
  const { context } = options
  const app = createApp({ errorStyle: 'opa', logger: options.logger })
  app.use('/v1/*', countAgentRequests(context.metrics))
  installOperationsRoutes(app, {
    cache: context.cache,
    metrics: context.metrics,
    readiness: options.readiness ?? [],
  })
  app.use('/v1/*', agentAuth(options.agentAuth))
  installRelayStatusRoute(app, options.status)
  installStatusRoutes(app, options.agents, options.statusLimits)
  for (const install of options.routes ?? []) install(app, context)
  installBundleRoutes(app, {
    cache: context.cache,
    metrics: context.metrics,
    maxWaitSeconds: options.maxWaitSeconds,
  })
  return app
}

function countAgentRequests(metrics: RelayMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next()
    const route = c.req.method === 'GET' ? 'bundle' : c.req.path.startsWith('/v1/status') ? 'status' : 'other'
    metrics.agentRequests.inc({ route, code: String(c.res.status) })
  }
}
