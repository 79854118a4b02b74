/**
 * The service's Hono app: regent's base app (request ids, one log line per request, the
 * management error envelope), request metrics, the open operations endpoints, then on everything
 * under `/v1` and `/v2` an activity record, authentication and authorization (service/authz/),
 * and one route file per resource.
 */
import type { Hono } from 'hono'
import { type BodyLimits, createApp } from '../core/http/index.js'
import { recordActivity } from './activity/middleware.js'
import { authenticate } from './auth.js'
import { authorize } from './authz/middleware.js'
import { BlueprintCatalog } from './blueprints/catalog.js'
import { BundleCache } from './bundle-cache.js'
import { countRequests } from './metrics.js'
import { activityRoutes } from './routes/activity.js'
import { assetRoutes } from './routes/assets.js'
import { authzEvaluationRoutes } from './routes/authz-evaluation.js'
import { authzV1Routes } from './routes/authz-v1.js'
import { authzV2Routes } from './routes/authz-v2.js'
import { blueprintRoutes } from './routes/blueprints.js'
import { bundleRoutes } from './routes/bundles.js'
import { compilePlaygroundRoutes } from './routes/compile-playground.js'
import { consoleRoutes } from './routes/console.js'
import { consoleSignInRoutes } from './routes/console-sign-in.js'
import { dataRoutes } from './routes/data.js'
import { datasourceRoutes } from './routes/datasources.js'
import { decisionCountRoutes } from './routes/decision-counts.js'
import { decisionRoutes } from './routes/decisions.js'
import { fleetRoutes } from './routes/fleet.js'
import { healthRoutes } from './routes/health.js'
import { libraryRoutes } from './routes/libraries.js'
import { logReplayRoutes } from './routes/logreplay.js'
import { logRoutes } from './routes/logs.js'
import { policyRoutes } from './routes/policies.js'
import { registryBundleRoutes } from './routes/registry-bundles.js'
import { secretRoutes } from './routes/secrets.js'
import { sourceControlRoutes } from './routes/source-control.js'
import { sourceControlSyncRoutes } from './routes/source-control-sync.js'
import { statusRoutes } from './routes/status.js'
import { systemRoutes } from './routes/systems.js'
import { tokenRoutes } from './routes/tokens.js'
import type { ServiceDeps, ServiceEnv } from './types.js'
import { trackWrites } from './write-tracking.js'

/**
 * Builds the app; `fetch` of the result is what the HTTP server runs. `bundleCache` holds the
 * bundle bytes served to agents (shared with the bundle fast path in front of the app).
 */
export function createServiceApp(deps: ServiceDeps, bundleCache = new BundleCache()): Hono<ServiceEnv> {
  const limits: BodyLimits = {
    maxBytes: deps.config.limits.max_body_bytes,
    maxDecompressedBytes: deps.config.limits.max_decompressed_bytes,
    maxYamlNodes: deps.config.limits.max_yaml_nodes,
  }
  // NOTE(service): the base app is typed with the shared variables; ours adds `principal`, set by authenticate.
  const app = createApp({ errorStyle: 'management', logger: deps.logger }) as unknown as Hono<ServiceEnv>
  app.use(countRequests(deps.metrics))
  app.use(trackWrites(deps.writeHealth))
  app.route('/', healthRoutes(deps))
  if (deps.config.console.enabled) app.route('/', consoleRoutes(deps.config.console.dir))
  // Before the API's middleware: no subject yet, nothing changed, and no code goes to the activity log.
  app.route('/', consoleSignInRoutes(deps))
  // Outermost of the API's middleware, so refusals by authentication and authorization are recorded.
  const activity = recordActivity({
    store: deps.store,
    metrics: deps.metrics,
    logger: deps.logger,
    maxBodyBytes: deps.config.activity.max_body_bytes,
  })
  app.use('/v1/*', activity)
  app.use('/v2/*', activity)
  app.use('/v1/*', authenticate(deps.store, deps.identity))
  app.use('/v2/*', authenticate(deps.store, deps.identity))
  app.use('/v1/*', authorize(deps.authorizer))
  app.use('/v2/*', authorize(deps.authorizer))
  app.route('/', tokenRoutes(deps))
  // Before the systems' routes: `source-control/verify-config` is not a system id.
  app.route('/', sourceControlRoutes(deps))
  app.route('/', systemRoutes(deps))
  app.route('/', sourceControlSyncRoutes(deps, deps.gitSource))
  app.route('/', compilePlaygroundRoutes(deps))
  app.route('/', policyRoutes(deps))
  app.route('/', libraryRoutes(deps))
  app.route('/', dataRoutes(deps, limits))
  app.route('/', logReplayRoutes(deps))
  app.route('/', datasourceRoutes(deps, deps.datasources, limits))
  app.route('/', bundleRoutes(deps, bundleCache))
  app.route('/', registryBundleRoutes(deps))
  app.route('/', assetRoutes(deps))
  app.route('/', logRoutes(deps, limits))
  app.route('/', statusRoutes(deps, limits))
  // Before the decisions' routes: `counts` is not a decision id.
  app.route('/', decisionCountRoutes(deps))
  app.route('/', fleetRoutes(deps))
  app.route('/', decisionRoutes(deps))
  app.route('/', blueprintRoutes(deps, new BlueprintCatalog(deps.config.blueprints.dir), limits))
  app.route('/', secretRoutes(deps))
  app.route('/', authzV1Routes(deps))
  app.route('/', authzV2Routes(deps))
  app.route('/', authzEvaluationRoutes(deps))
  app.route('/', activityRoutes(deps))
  return app
}
