/**
 * `GET /v1/config` and `GET /v1/status`, minimal: regent's `run` has no plugins or services, so the
 * active configuration is the labels and the decision paths, and the status is the labels plus the
 * bundles loaded at start (name, revision, activation time), in the shape of OPA's status plugin.
 */
import { Hono } from 'hono'
import type { AppEnv } from '../../core/http/index.js'
import { boolParam, jsonResponse } from '../http-io.js'
import type { RunServerDeps } from '../types.js'

/** The config and status routes. */
export function systemRoutes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  const labels = deps.plugins?.labels ?? { id: deps.instanceId, version: deps.version }

  app.get('/v1/config', (c) =>
    jsonResponse(
      c,
      {
        result: {
          labels,
          default_decision: `/${deps.defaultDecision}`,
          default_authorization_decision: '/system/authz/allow',
        },
      },
      boolParam(c, 'pretty'),
    ),
  )

  app.get('/v1/status', (c) => {
    if (deps.plugins) return jsonResponse(c, { result: deps.plugins.statusReport() }, boolParam(c, 'pretty'))
    const bundles: Record<string, unknown> = {}
    for (const b of deps.state.bundles) {
      bundles[b.name] = {
        name: b.name,
        active_revision: b.revision,
        last_successful_activation: b.activatedAt,
      }
    }
    return jsonResponse(c, { result: { labels, bundles, plugins: {} } }, boolParam(c, 'pretty'))
  })
  return app
}
