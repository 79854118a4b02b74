/**
 * `POST /v1/status` and `/v1/status/<partition>` (trailing slash tolerated): OPA's status API.
 * The report is kept as the agent's latest (by `labels.id`) and answered at once; forwarding
 * upstream happens in the background, coalesced (status/status-forwarder.ts).
 *
 * A report is bounded at intake as decision logs are: bytes on the wire and inflated (413,
 * `relay.status.max_body_bytes` and `max_decompressed_bytes`), UTF-8 (400), and nesting depth
 * (400 past the decision events' limit): a report kept here is one the forwarder can serialise,
 * so one hostile report cannot stop status forwarding for every agent.
 */
import type { Context, Hono } from 'hono'
import { MAX_EVENT_DEPTH } from '../../core/decision-events/index.js'
import {
  type AppEnv,
  type BodyLimits,
  badRequest,
  HttpError,
  parseJsonText,
  payloadTooLarge,
  readBodyText,
  refuseDeepJson,
} from '../../core/http/index.js'
import type { AgentStatuses } from '../../plugins/status/agent-statuses.js'

/** The status intake's bounds (`relay.status`). */
export interface StatusLimits {
  max_body_bytes: number
  max_decompressed_bytes: number
}

/** How deep a status report may nest: the same limit as a decision event. */
export const MAX_STATUS_DEPTH = MAX_EVENT_DEPTH

/** Installs the status intake routes. */
export function installStatusRoutes(app: Hono<AppEnv>, agents: AgentStatuses, limits: StatusLimits): void {
  const bodyLimits: BodyLimits = {
    maxBytes: limits.max_body_bytes,
    maxDecompressedBytes: limits.max_decompressed_bytes,
  }
  const handler = async (c: Context<AppEnv>) => {
    const partition = c.req.path.replace(/^\/v1\/status\/?/, '').replace(/\/+$/, '') || undefined
    const body = parseJsonText(checkDepth(await readReport(c, bodyLimits)))
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

async function readReport(c: Context<AppEnv>, limits: BodyLimits): Promise<string> {
  try {
    return await readBodyText(c, limits)
  } catch (err) {
    // Name the setting that raises the limit the report ran into.
    if (err instanceof HttpError && err.status === 413) {
      const key = /inflates/.test(err.message) ? 'max_decompressed_bytes' : 'max_body_bytes'
      throw payloadTooLarge(`status report refused: ${err.message} (relay.status.${key})`)
    }
    throw err
  }
}

function checkDepth(text: string): string {
  return refuseDeepJson(text, MAX_STATUS_DEPTH, 'status report')
}
