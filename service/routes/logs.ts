/**
 * `POST /v1/logs[/{partition}]`: decision-log uploads from agents and relays, as OPA sends
 * them (a JSON array, usually gzip). Events are stored before the 2xx, deduplicated by
 * `decision_id`, attributed to the uploading agent token's system (an administrator's uploads
 * go by the `system-id` label). The partition is accepted and not used, as upstream.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { type BodyLimits, readBodyText, readRawBody } from '../../core/http/index.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'

/** Routes of `/v1/logs`. */
export function logRoutes(deps: ServiceDeps, limits: BodyLimits): Hono<ServiceEnv> {
  const { store, metrics } = deps
  const app = new Hono<ServiceEnv>()

  async function receive(c: Context<ServiceEnv>): Promise<Response> {
    store.decisions.noteIntake()
    const context = {
      tokenSystemId: c.var.principal.systemId,
      receivedUs: Date.now() * 1000,
      maxEvents: deps.config.limits.max_decisions_per_batch,
    }
    // Large uploads are inflated and parsed on a worker thread (decision-parse-pool.ts), with
    // the answers readBodyText gives; a body a middleware already read is not read again.
    const gzip =
      c.req.header('Content-Encoding')?.trim().toLowerCase() === 'gzip' && c.var.requestBody === undefined
    const decisions = gzip
      ? await deps.decisionParser.parseGzip(
          await readRawBody(c, limits.maxBytes),
          limits.maxDecompressedBytes,
          context,
        )
      : // Some senders gzip without saying so.
        await deps.decisionParser.parse(await readBodyText(c, limits, { unlabelledGzip: true }), context)
    const stored = await store.decisions.append(decisions)
    metrics.decisionsReceived.inc({ outcome: 'stored' }, stored)
    metrics.decisionsReceived.inc({ outcome: 'duplicate' }, decisions.length - stored)
    c.var.log.debug({ events: decisions.length, stored }, 'decision batch stored')
    return c.json({ request_id: c.var.requestId })
  }

  app.post('/v1/logs', receive)
  app.post('/v1/logs/:partition{.+}', receive)
  return app
}
