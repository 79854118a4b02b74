/**
 * The decision-log event of one decision the server answered, in OPA's EventV1 shape (labels,
 * decision_id, bundles, path, input, result, requested_by, timestamp, metrics, req_id). Input
 * and result are written as the server writes JSON, so numbers keep their exact text. The event
 * is handed to the decision-log plugin and committed to its durable buffer before the answer goes
 * out, so an answered decision survives a kill of the process.
 */
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import type { AppEnv } from '../core/http/index.js'
import type { Value } from '../core/rego/values/index.js'
import { jsonText, type RequestMetrics } from './http-io.js'
import type { RefSegment } from './paths.js'
import type { RunServerDeps } from './types.js'

/** Where decision-log events go (agent/plugins/decision-logs.ts). */
export interface DecisionLogSink {
  /** Labels every event carries (`id`, `version` and the configured labels). */
  readonly labels: Record<string, string>
  /** Stores one event (its JSON text); resolves once it is durable or has been dropped (logged). */
  record(eventText: string): Promise<void>
}

let requestCounter = 0

/**
 * Logs the decision when a sink is configured; resolves to its decision id (OPA returns it in
 * the response), or undefined without decision logging.
 */
export async function logDecision(
  c: Context<AppEnv>,
  deps: RunServerDeps,
  decision: {
    ref: readonly RefSegment[]
    input: Value | undefined
    result: Value | undefined
    metrics: RequestMetrics
  },
): Promise<string | undefined> {
  const sink = deps.decisionLog
  if (!sink) return undefined
  const decisionId = crypto.randomUUID()
  const bundles: Record<string, { revision: string }> = {}
  for (const b of deps.state.bundles) bundles[b.name] = { revision: b.revision }
  const parts = [
    `"labels":${JSON.stringify(sink.labels)}`,
    `"decision_id":${JSON.stringify(decisionId)}`,
    ...(deps.state.bundles.length > 0 ? [`"bundles":${JSON.stringify(bundles)}`] : []),
    `"path":${JSON.stringify(pathOf(decision.ref))}`,
    ...(decision.input !== undefined ? [`"input":${jsonText(decision.input, false)}`] : []),
    ...(decision.result !== undefined ? [`"result":${jsonText(decision.result, false)}`] : []),
    `"requested_by":${JSON.stringify(requestedBy(c))}`,
    `"timestamp":${JSON.stringify(new Date().toISOString())}`,
    `"metrics":${JSON.stringify(decision.metrics.all())}`,
    `"req_id":${++requestCounter}`,
  ]
  await sink.record(`{${parts.join(',')}}`)
  return decisionId
}

/** OPA logs the data path with slashes and without `data` (`example/allow`). */
function pathOf(ref: readonly RefSegment[]): string {
  return ref.map(String).join('/')
}

function requestedBy(c: Context<AppEnv>): string {
  try {
    const { address, port } = getConnInfo(c).remote
    return address === undefined ? '' : `${address}:${port ?? ''}`
  } catch {
    // Not served by the node adapter (app.request in tests): OPA leaves it empty too.
    return ''
  }
}
