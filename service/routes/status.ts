/**
 * `/v1/status`: OPA status reports. POST keeps the latest report per agent (`labels.id`) of each
 * system, attributed to the agent token's system (or the `system-id` label for an administrator);
 * `GET /v1/status?system=ID[,ID]` lists them as `{agent id: report}`. Reports are kept as
 * received (numbers exactly).
 */

import type { Context } from 'hono'
import { Hono } from 'hono'
import { parse, stringify } from 'lossless-json'
import { MAX_EVENT_DEPTH } from '../../core/decision-events/index.js'
import {
  type BodyLimits,
  badRequest,
  parseJsonText,
  readBodyText,
  refuseDeepJson,
} from '../../core/http/index.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId } from '../validation.js'

/**
 * The result key of each report: its agent id, or `{system id}/{agent id}` when agents of several
 * listed systems report under the same id (reports are kept per system, so both are listed).
 */
function statusKeys(rows: Array<{ agent_id: string; system_id: string | null }>): string[] {
  const systemsPerAgent = new Map<string, number>()
  for (const r of rows) systemsPerAgent.set(r.agent_id, (systemsPerAgent.get(r.agent_id) ?? 0) + 1)
  return rows.map((r) =>
    systemsPerAgent.get(r.agent_id)! > 1 ? `${r.system_id ?? ''}/${r.agent_id}` : r.agent_id,
  )
}

/** Routes of `/v1/status`. */
export function statusRoutes(deps: ServiceDeps, limits: BodyLimits): Hono<ServiceEnv> {
  const { store } = deps
  const app = new Hono<ServiceEnv>()

  async function receive(c: Context<ServiceEnv>): Promise<Response> {
    // The relay's limit (relay/routes/status.ts): deeper reports break everything recursive later.
    const text = refuseDeepJson(await readBodyText(c, limits), MAX_EVENT_DEPTH, 'status report')
    parseJsonText(text) // a 400 with line and column for malformed JSON
    let report: unknown
    try {
      report = parse(text)
    } catch (err) {
      throw badRequest(`malformed status report: ${(err as Error).message}`)
    }
    if (typeof report !== 'object' || report === null || Array.isArray(report)) {
      throw badRequest('a status report must be a JSON object')
    }
    const labels = (report as { labels?: Record<string, unknown> }).labels
    const agentId = labels?.id
    if (typeof agentId !== 'string' || agentId === '') throw badRequest('labels.id: required (the agent id)')
    const labelSystem = typeof labels?.['system-id'] === 'string' ? (labels['system-id'] as string) : null
    await store.agentStatus.upsert({
      agent_id: agentId,
      system_id: c.var.principal.systemId ?? labelSystem,
      status: stringify(report) as string,
      updated_at: new Date().toISOString(),
    })
    return c.json({ request_id: c.var.requestId })
  }

  app.post('/v1/status', receive)
  app.post('/v1/status/:partition{.+}', receive)

  app.get('/v1/status', async (c) => {
    const system = c.req.query('system')
    // The authorization middleware has checked each listed system (or the workspace without any).
    const systemIds = system ? system.split(',').map((s) => checkId(s.trim(), 'system')) : undefined
    const rows = await store.agentStatus.list(systemIds)
    // Splice the stored JSON texts so numbers in reports stay exact.
    const result = statusKeys(rows)
      .map((key, i) => `${JSON.stringify(key)}:${rows[i]!.status}`)
      .join(',')
    return c.body(`{"request_id":${JSON.stringify(c.var.requestId)},"result":{${result}}}`, 200, {
      'Content-Type': 'application/json',
    })
  })
  return app
}
