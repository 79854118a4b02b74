/**
 * `POST /v1/status` and `/v1/status/<partition>` (trailing slash tolerated): OPA's status API.
 * The report is kept as the agent's latest (by `labels.id`) and answered at once; forwarding
 * upstream happens in the background, coalesced (status/status-forwarder.ts).
 */
import type { Context, Hono } from 'hono'
import { type AppEnv, badRequest, parseJsonText, readBodyText } from '../../core/http/index.js'
import type { AgentStatuses } from '../status/agent-statuses.js'

// Status reports carry Prometheus metrics and can be sizeable; far beyond this is not a report.
const STATUS_LIMITS = { maxBytes: 4 * 1024 * 1024, maxDecompressedBytes: 16 * 1024 * 1024 }

/** Installs the status intake routes. */
export function installStatusRoutes(app: Hono<AppEnv>, agents: AgentStatuses): void {
  const handler = async (c: Context<AppEnv>) => {
    const partition = c.req.path.replace(/^\/v1\/status\/?/, '').replace(/\/+$/, '') || undefined
    const body = parseJsonText(await readBodyText(c, STATUS_LIMITS))
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('status report must be a JSON object')
    }
    const labels = (body as { labels?: unknown }).labels
    const id = labels && typeof labels === 'object' ? (labels as { id?: unknown }).id : undefined
    if (typeof id !== 'string' || id === '') {
      throw badRequest('status report must carry labels.id (the agent id OPA sets)')
    }
    agents.record(id, body as Record<string, unknown>, partition)
    return c.body(null, 200)
  }
  app.post('/v1/status', handler)
  app.post('/v1/status/*', handler)
}
