/**
 * Evaluating one document of `data` for a request, shared by the data API (`/v1/data`), the v0
 * API and the default decision (`POST /`): the path becomes a ref query, prepared once and cached
 * (OPA's prepared-query cache), then evaluated with the request's input.
 */
import type { Context } from 'hono'
import type { AppEnv } from '../core/http/index.js'
import type { Value } from '../core/rego/values/index.js'
import { MSG_COMPILE_QUERY, runQuery, staticFailure } from './evaluate.js'
import type { RequestMetrics } from './http-io.js'
import { type RefSegment, refQueryText } from './paths.js'
import type { RunServerDeps } from './types.js'

/** Options of one document evaluation. */
export interface DecisionRequest {
  ref: readonly RefSegment[]
  input: Value | undefined
  strictBuiltinErrors: boolean
  metrics: RequestMetrics
}

/** The value of the document at `ref`, or undefined when it is undefined. */
export async function evaluateDocument(
  c: Context<AppEnv>,
  deps: RunServerDeps,
  request: DecisionRequest,
): Promise<Value | undefined> {
  const { metrics } = request
  const policy = deps.state.policy
  let prepared: ReturnType<typeof deps.state.prepare>
  try {
    metrics.start('timer_rego_query_compile_ns')
    prepared = deps.state.prepare(refQueryText(request.ref))
  } catch (err) {
    throw staticFailure(err, MSG_COMPILE_QUERY)
  } finally {
    metrics.stop('timer_rego_query_compile_ns')
  }
  metrics.count('counter_server_query_cache_hit', prepared.cached ? 1 : 0)
  const started = process.hrtime.bigint()
  const run = await runQuery(prepared.query, {
    policy,
    input: request.input,
    strictBuiltinErrors: request.strictBuiltinErrors,
    metrics,
    log: c.var.log,
    runtime: deps.runtime,
    interQueryCache: deps.interQueryCache,
    budget: deps.budget,
    allowNet: deps.allowNet,
  })
  const result = run.results[0]?.expressions[0]?.value
  // Live impact analysis samples the answered decision; the candidate runs later (agent/impact.ts).
  if (deps.impact?.active) {
    const evalNs = Number(process.hrtime.bigint() - started)
    deps.impact.observe({ ref: request.ref, input: request.input, result, evalNs, log: c.var.log, deps })
  }
  return result
}

/**
 * Whether rules produce the document at `ref` or one above it (OPA's `GetRulesForVirtualDocument`):
 * the v0 API then says "document undefined" instead of "document missing".
 */
export function hasRulesFor(deps: RunServerDeps, ref: readonly RefSegment[]): boolean {
  let node = deps.state.policy.compiler.ruleTree
  for (const segment of ref) {
    const next = node.child(
      typeof segment === 'number'
        ? { type: 'number', value: String(segment) }
        : { type: 'string', value: segment },
    )
    if (!next) return false
    if (next.rules.length > 0) return true
    node = next
  }
  return false
}

/** OPA's provenance block: regent's version and the revision of each bundle. */
export function provenance(deps: RunServerDeps): Record<string, unknown> {
  const bundles: Record<string, { revision: string }> = {}
  for (const b of deps.state.bundles) bundles[b.name] = { revision: b.revision }
  return {
    version: deps.version,
    build_commit: '',
    build_timestamp: '',
    build_hostname: '',
    ...(deps.state.bundles.length > 0 ? { bundles } : {}),
  }
}
