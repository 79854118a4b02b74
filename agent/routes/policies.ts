/**
 * The Policy API: `GET /v1/policies` lists the modules (`{"result": [{id, raw, ast}]}`),
 * `GET|PUT|DELETE /v1/policies/{id}` reads, creates or replaces (body: Rego text), and deletes one.
 * A module that does not parse or compile, or whose rules collide with base data, is 400
 * `invalid_parameter` "error(s) occurred while compiling module(s)" with OPA's error list; a delete
 * that breaks another module is 400 `invalid_operation`.
 */
import { type Context, Hono } from 'hono'
import type { AppEnv } from '../../core/http/index.js'
import { toOpaJson } from '../../core/rego/index.js'
import { StorageError } from '../data-tree.js'
import { MSG_COMPILE_MODULES, staticFailure, storageFailure } from '../evaluate.js'
import { boolParam, jsonResponse, RequestMetrics, readText } from '../http-io.js'
import { rawPathAfter } from '../paths.js'
import type { StoredPolicy } from '../state.js'
import type { RunServerDeps } from '../types.js'

const PREFIX = '/v1/policies'

/** The Policy API routes. */
export function policyRoutes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  const state = deps.state

  const policyId = (c: Context<AppEnv>): string => {
    const raw = rawPathAfter(c.req.url, PREFIX)
    try {
      return decodeURIComponent(raw)
    } catch {
      return raw
    }
  }

  const metricsBody = (c: Context<AppEnv>, metrics: RequestMetrics) =>
    boolParam(c, 'metrics') ? { metrics: metrics.all() } : {}

  app.get(PREFIX, (c) =>
    jsonResponse(c, { result: state.listPolicies().map(policyJson) }, boolParam(c, 'pretty')),
  )

  app.get(`${PREFIX}/*`, (c) => {
    const id = policyId(c)
    const policy = state.getPolicy(id)
    if (!policy) throw storageFailure(new StorageError('not_found', `policy id ${JSON.stringify(id)}`))
    return jsonResponse(c, { result: policyJson(policy) }, boolParam(c, 'pretty'))
  })

  app.put(`${PREFIX}/*`, async (c) => {
    const id = policyId(c)
    const metrics = new RequestMetrics()
    metrics.start('timer_server_read_bytes_ns')
    const raw = await readText(c, deps.limits)
    metrics.stop('timer_server_read_bytes_ns')
    try {
      metrics.time('timer_rego_module_compile_ns', () => state.putPolicy(id, raw))
    } catch (err) {
      throw staticFailure(err, MSG_COMPILE_MODULES)
    }
    return jsonResponse(c, metricsBody(c, metrics), boolParam(c, 'pretty'))
  })

  app.delete(`${PREFIX}/*`, (c) => {
    const metrics = new RequestMetrics()
    try {
      metrics.time('timer_rego_module_compile_ns', () => state.deletePolicy(policyId(c)))
    } catch (err) {
      throw storageFailure(staticFailure(err, MSG_COMPILE_MODULES, 'invalid_operation'))
    }
    return jsonResponse(c, metricsBody(c, metrics), boolParam(c, 'pretty'))
  })
  return app
}

/** OPA's `PolicyV1`: id, text and AST JSON. */
function policyJson(policy: StoredPolicy): Record<string, unknown> {
  return { id: policy.id, raw: policy.raw, ast: toOpaJson(policy.module) }
}
