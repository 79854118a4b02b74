/**
 * `GET /v1/fleet?system=ID[,ID]`: the latest status report of every agent, summarised
 * (service/fleet.ts) with the time the service received it, for the console's Fleet view.
 * `GET /v1/status` answers the reports as agents sent them, which carry no receive time; this
 * route is the same read (action `status.read` on each listed system, or the workspace without
 * `system`) in a shape people can be shown. Answer: `{result: {now, agents: [FleetAgent…]}}`;
 * `now` is the service's clock, so ages do not depend on the browser's.
 */

import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { Hono } from 'hono'
import { type FleetAgent, linkRelays, summarizeReport } from '../fleet.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId } from '../validation.js'

/** Reports parsed between two yields to the event loop (a report may be megabytes). */
const CHUNK = 200

/** Routes of `/v1/fleet`. */
export function fleetRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  app.get('/v1/fleet', async (c) => {
    const system = c.req.query('system')
    // The authorization middleware has checked each listed system (or the workspace without any).
    const systemIds = system ? system.split(',').map((s) => checkId(s.trim(), 'system')) : undefined
    const rows = await deps.store.agentStatus.list(systemIds)
    const agents: FleetAgent[] = []
    for (let i = 0; i < rows.length; i += CHUNK) {
      if (i > 0) await yieldToLoop()
      agents.push(...rows.slice(i, i + CHUNK).map(summarizeReport))
    }
    return c.json({
      request_id: c.var.requestId,
      result: { now: new Date().toISOString(), agents: linkRelays(agents) },
    })
  })
  return app
}
