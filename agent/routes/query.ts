/**
 * The Query API: ad-hoc Rego queries, `GET /v1/query?q=…` and `POST /v1/query` with
 * `{"query": "…", "input": …}`. The answer lists the bindings of the query's variables for each
 * solution (`{"result": [{"x": 1}, …]}`, `{}` when there is none); wildcards are left out.
 */
import { type Context, Hono } from 'hono'
import { type AppEnv, badRequest } from '../../core/http/index.js'
import { parseQuery } from '../../core/rego/index.js'
import { isObject, ObjectValue, type Value } from '../../core/rego/values/index.js'
import { MSG_COMPILE_QUERY, MSG_PARSE_QUERY, runQuery, staticFailure } from '../evaluate.js'
import {
  boolParam,
  jsonResponse,
  parseDocumentText,
  RequestMetrics,
  readText,
  refuseExplain,
} from '../http-io.js'
import type { RunServerDeps } from '../types.js'

/** The Query API routes. */
export function queryRoutes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()

  const answer = async (
    c: Context<AppEnv>,
    text: string,
    input: Value | undefined,
    metrics: RequestMetrics,
  ) => {
    refuseExplain(c)
    const state = deps.state
    const policy = state.policy
    let body: ReturnType<typeof parseQuery>
    try {
      body = metrics.time('timer_rego_query_parse_ns', () =>
        parseQuery(text, { regoVersion: state.options.regoVersion }),
      )
    } catch (err) {
      throw staticFailure(err, MSG_PARSE_QUERY)
    }
    let prepared: ReturnType<typeof policy.prepare>
    try {
      prepared = metrics.time('timer_rego_query_compile_ns', () => policy.prepare(body))
    } catch (err) {
      throw staticFailure(err, MSG_COMPILE_QUERY)
    }
    const run = await runQuery(prepared, {
      policy,
      input,
      strictBuiltinErrors: boolParam(c, 'strict-builtin-errors'),
      metrics,
      log: c.var.log,
      runtime: deps.runtime,
      interQueryCache: deps.interQueryCache,
      budget: deps.budget,
      allowNet: deps.allowNet,
    })
    metrics.stop('timer_server_handler_ns')
    const result = run.results.map((r) => ObjectValue.from(r.bindings))
    const wantMetrics = boolParam(c, 'metrics') || boolParam(c, 'instrument')
    return jsonResponse(
      c,
      { result: result.length > 0 ? result : undefined, metrics: wantMetrics ? metrics.all() : undefined },
      boolParam(c, 'pretty'),
    )
  }

  app.get('/v1/query', (c) => {
    const metrics = new RequestMetrics()
    metrics.start('timer_server_handler_ns')
    const q = c.req.queries('q')
    const text = q?.[q.length - 1]
    if (text === undefined) throw badRequest("missing parameter 'q'")
    return answer(c, text, undefined, metrics)
  })

  app.post('/v1/query', async (c) => {
    const metrics = new RequestMetrics()
    metrics.start('timer_server_handler_ns')
    const raw = await readText(c, deps.limits)
    let request: Value | undefined
    try {
      request = parseDocumentText(raw, false)
    } catch (err) {
      throw badRequest(`error(s) occurred while decoding request: ${(err as Error).message}`)
    }
    if (request !== undefined && request !== null && !isObject(request)) {
      throw badRequest('error(s) occurred while decoding request: expected a JSON object')
    }
    const query = isObject(request) ? request.get('query') : undefined
    if (query !== undefined && typeof query !== 'string') {
      throw badRequest('error(s) occurred while decoding request: "query" must be a string')
    }
    const input = isObject(request) ? request.get('input') : undefined
    return answer(c, query ?? '', input === null ? undefined : input, metrics)
  })
  return app
}
