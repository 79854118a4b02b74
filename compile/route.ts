/**
 * The Hono routes of the compile endpoint: `POST|GET /v1/compile/{path}` (the rule to compile in the
 * path) and `POST /v1/compile` (`query` in the body). `regent run -s` mounts them over its own
 * policies by supplying a `CompileBackend` (requests run in process); the relay supplies a
 * `CompileRunner` that runs them on worker threads (relay/compile/).
 */
import type { Hono } from 'hono'
import type { Logger } from 'pino'
import type { AppEnv, BodyLimits } from '../core/http/index.js'
import { answerCompile } from './answer.js'
import { CompileService } from './compile.js'
import { compileRunnerRoutes } from './runner-route.js'
import type { CompileBackend } from './types.js'

export { type CompileRunnerRouteDeps, compileRunnerRoutes } from './runner-route.js'

/** What the compile routes need. */
export interface CompileRouteDeps {
  /** The Rego engine over the current policies. */
  backend: CompileBackend
  /** Body size limits (defaults: 8 MiB on the wire, 64 MiB inflated). */
  limits?: BodyLimits
  /** Used when the app has no per-request logger (tests). */
  logger?: Logger
}

/** The routes plus the service behind them (for cache purges and tests). */
export interface CompileRoutes {
  app: Hono<AppEnv>
  service: CompileService
}

/**
 * A Hono app with the compile routes, to mount with `app.route('/', routes.app)`.
 * @example
 * const { app } = compileRoutes({ backend })
 * server.route('/', app)
 */
export function compileRoutes(deps: CompileRouteDeps): CompileRoutes {
  const service = new CompileService(deps.backend)
  const app = compileRunnerRoutes({
    run: (request) => answerCompile(service, request),
    ...(deps.limits ? { limits: deps.limits } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
  })
  return { app, service }
}
