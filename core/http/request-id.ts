/**
 * Request ids: accept the caller's `X-Request-Id` (so a trace spans the agent, the relay and the
 * service), or generate one; echo it on the response and expose it to handlers and logs.
 */
import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './types.js'

export const REQUEST_ID_HEADER = 'X-Request-Id'

// A caller-supplied id is echoed into headers and logs, so keep it short and printable.
const ACCEPTABLE_ID = /^[\w.:@/+=-]{1,128}$/

/** The caller's request id when acceptable, else a new one (shared with servers' fast paths). */
export function acceptedRequestId(offered: string | undefined): string {
  return offered && ACCEPTABLE_ID.test(offered) ? offered : randomUUID()
}

/** Middleware that sets `c.var.requestId` and the `X-Request-Id` response header. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = acceptedRequestId(c.req.header(REQUEST_ID_HEADER))
    c.set('requestId', id)
    c.header(REQUEST_ID_HEADER, id)
    await next()
  }
}
