/**
 * The Hono app of `regent run -s`: OPA's REST API (data, v0 data and the default decision, query,
 * policies, health, config, status) over a {@link ServerState}, plus the compile endpoint when a
 * backend is given. Errors use OPA's envelope `{code, message, errors?}`; responses of 1 KiB or
 * more are gzipped for clients that accept it, as OPA does.
 */
import type { Hono } from 'hono'
import { compress } from 'hono/compress'
import type { Logger } from 'pino'
import { compileRoutes } from '../compile/route.js'
import type { CompileBackend } from '../compile/types.js'
import {
  type AppEnv,
  type BodyLimits,
  createApp,
  DEFAULT_BODY_LIMITS,
  HttpError,
} from '../core/http/index.js'
import { DEFAULT_EVALUATION_BUDGET, type EvaluationBudget } from '../core/rego/index.js'
import { fromJS, type Value } from '../core/rego/values/index.js'
import { type AuthenticationScheme, authenticationMiddleware } from './authn.js'
import { authorizationMiddleware } from './authz.js'
import type { DecisionLogSink } from './decision-logging.js'
import { createInterQueryCache } from './evaluate.js'
import { ImpactRecorder } from './impact.js'
import { type AgentMetrics, metricsMiddleware, metricsRoutes } from './metrics.js'
import { pprofRoutes } from './pprof.js'
import { dataReadRoutes } from './routes/data.js'
import { dataWriteRoutes } from './routes/data-write.js'
import { healthRoutes } from './routes/health.js'
import { impactRoutes } from './routes/impact.js'
import { policyRoutes } from './routes/policies.js'
import { queryRoutes } from './routes/query.js'
import { systemRoutes } from './routes/system.js'
import { v0Routes } from './routes/v0.js'
import type { ServerState } from './state.js'
import type { PluginsView, RunServerDeps } from './types.js'

/** What the app is built from. */
export interface RunAppOptions {
  state: ServerState
  logger: Logger
  version: string
  /** `opa.runtime()` for policies (default: version only). */
  runtime?: Value
  limits?: BodyLimits
  /** Slash path of the default decision (default `system/main`). */
  defaultDecision?: string
  /** Stable id for the labels of config and status (default: a random UUID). */
  instanceId?: string
  /** The partial evaluator over `state`; when given, `/v1/compile` is mounted. */
  compileBackend?: CompileBackend
  /** Timeout and work limit of each query (default: {@link DEFAULT_EVALUATION_BUDGET}). */
  budget?: EvaluationBudget
  /** Hosts http.send may reach (capabilities `allow_net`); default: every host. */
  allowNet?: readonly string[]
  /** `--authentication`: how callers are identified (default off). */
  authentication?: AuthenticationScheme
  /** `--authorization basic`: the decision every request must pass; undefined: off. */
  authorizationDecision?: string
  /** When given, requests are timed into it and `GET /metrics` serves it. */
  metrics?: AgentMetrics
  /** `--pprof`: serve a CPU profile at `/debug/pprof/profile`. */
  pprof?: boolean
  /** Where decision-log events go (`-c` with `decision_logs`). */
  decisionLog?: DecisionLogSink
  /** The `-c` plugins, for readiness and `/v1/status`. */
  plugins?: PluginsView
}

// Resources OPA answers 405 for when the method is not one of theirs.
const METHOD_GUARDED = ['/v0/data', '/v1/data', '/v1/policies', '/v1/query']

/** What every route is built from, from the app's options. */
export function createRunDeps(options: RunAppOptions): RunServerDeps {
  return {
    state: options.state,
    limits: options.limits ?? DEFAULT_BODY_LIMITS,
    runtime: options.runtime ?? fromJS({ version: options.version }),
    interQueryCache: createInterQueryCache(),
    version: options.version,
    defaultDecision: (options.defaultDecision ?? 'system/main').replace(/^\/+|\/+$/g, ''),
    instanceId: options.instanceId ?? crypto.randomUUID(),
    budget: options.budget ?? DEFAULT_EVALUATION_BUDGET,
    allowNet: options.allowNet,
    decisionLog: options.decisionLog,
    plugins: options.plugins,
    impact: new ImpactRecorder(),
  }
}

/** Builds the server's app. */
export function createRunApp(options: RunAppOptions): Hono<AppEnv> {
  const deps = createRunDeps(options)
  const app = createApp({ errorStyle: 'opa', logger: options.logger })
  if (options.metrics) app.use(metricsMiddleware(options.metrics))
  app.use(compress({ encoding: 'gzip', threshold: 1024 }))
  const authn = authenticationMiddleware(options.authentication ?? 'off')
  if (authn) app.use(authn)
  if (options.authorizationDecision !== undefined) {
    app.use(authorizationMiddleware(deps, options.authorizationDecision))
  }
  if (options.metrics) app.route('/', metricsRoutes(options.metrics))
  if (options.pprof) app.route('/', pprofRoutes())
  for (const routes of [
    dataReadRoutes(deps),
    dataWriteRoutes(deps),
    v0Routes(deps),
    queryRoutes(deps),
    policyRoutes(deps),
    healthRoutes(deps),
    systemRoutes(deps),
    impactRoutes(deps),
  ]) {
    app.route('/', routes)
  }
  if (options.compileBackend) app.route('/', compileRoutes({ backend: options.compileBackend }).app)
  for (const base of METHOD_GUARDED) {
    const notAllowed = (c: { req: { method: string; path: string } }) => {
      throw new HttpError(405, 'invalid_operation', `method ${c.req.method} is not allowed on ${c.req.path}`)
    }
    app.all(base, notAllowed)
    app.all(`${base}/*`, notAllowed)
  }
  return app
}
