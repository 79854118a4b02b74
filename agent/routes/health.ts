/**
 * The Health API: `GET /health` answers 200 `{}` when the engine can evaluate a trivial query
 * (`?bundles` and `?plugins` are accepted: bundles are activated before the server listens and
 * there are no plugins), 500 `{"error": …}` otherwise. `GET /health/{path}` evaluates the policy
 * at `data.system.health.{path}` (OPA's custom health checks) and is healthy only when it is `true`.
 */
import { type Context, Hono } from 'hono'
import type { AppEnv } from '../../core/http/index.js'
import { fromJS } from '../../core/rego/values/index.js'
import { evaluateDocument } from '../decision.js'
import { jsonResponse, RequestMetrics } from '../http-io.js'
import { rawPathAfter, refDisplay, refFromUrlPath } from '../paths.js'
import type { RunServerDeps } from '../types.js'

/** The health routes. */
export function healthRoutes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  const unhealthy = (c: Context<AppEnv>, error: string) => jsonResponse(c, { error }, false, 500)

  app.get('/health', async (c) => {
    // OPA: `?bundles` (and `?plugins`) are healthy only once every configured bundle is activated.
    const waitsForBundles = c.req.query('bundles') !== undefined || c.req.query('plugins') !== undefined
    if (waitsForBundles && deps.plugins && !deps.plugins.bundlesReady()) {
      return unhealthy(c, 'one or more bundles are not activated')
    }
    try {
      const run = await deps.state.policy.prepare('x = 1').eval({})
      if (run.results[0]?.bindings.get('x') === 1) return jsonResponse(c, {}, false)
    } catch {
      // Reported below as OPA words it.
    }
    return unhealthy(c, 'unable to perform evaluation')
  })

  app.get('/health/*', async (c) => {
    const ref = ['system', 'health', ...refFromUrlPath(rawPathAfter(c.req.url, '/health'))]
    // OPA's input to health policies: plugin states (none here) and whether all were ever ready.
    const input = fromJS({ plugin_state: {}, plugins_ready: true })
    let value: Awaited<ReturnType<typeof evaluateDocument>>
    try {
      value = await evaluateDocument(c, deps, {
        ref,
        input,
        strictBuiltinErrors: false,
        metrics: new RequestMetrics(),
      })
    } catch (err) {
      return unhealthy(c, err instanceof Error ? err.message : String(err))
    }
    if (value === true) return jsonResponse(c, {}, false)
    const check = refDisplay(ref)
    return unhealthy(
      c,
      value === undefined
        ? `health check (${check}) was undefined`
        : `health check (${check}) returned unexpected value`,
    )
  })
  return app
}
