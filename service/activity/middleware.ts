/**
 * `recordActivity`: the middleware that writes every management-API request's activity record
 * before its response is sent. It sits outside authentication and authorization, so refusals
 * (401, 403) are recorded too. Agent traffic (bundle downloads, discovery, decision-log and
 * status uploads) is not management activity and is not recorded.
 *
 * NOTE(activity): durability. A route that changes something writes the record inside the
 * change's own transaction (`changeTransaction`, change-transaction.ts): the change and its
 * record commit together or not at all, and the middleware then completes that record with the
 * response. Requests that changed nothing (reads, refusals, failures before any write) get their
 * record here, after the route, before the response leaves; a failed write of such a record is
 * logged and counted and the response goes out as is. A change made outside a change
 * transaction whose record then cannot be written is answered 503 (docs/activity.md).
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { Logger } from 'pino'
import { errorBody, readBody, serviceUnavailable } from '../../core/http/index.js'
import type { ServiceStore } from '../../store/service/index.js'
import type { ServiceMetrics } from '../metrics.js'
import type { ServiceEnv } from '../types.js'
import { RequestActivity } from './change-transaction.js'
import { AUDIT_CLASS, activityOf } from './record.js'

/**
 * Agent-facing routes (method and path): their traffic is the agents', not management activity.
 * Mirrors service/routes/bundles.ts, logs.ts and status.ts (POST only: `GET /v1/status` is a read
 * by an administrator and is recorded).
 */
export const AGENT_ROUTES: ReadonlyArray<{ methods: ReadonlySet<string>; path: RegExp }> = [
  { methods: new Set(['GET', 'HEAD']), path: /^\/v1\/bundles\// },
  { methods: new Set(['GET', 'HEAD']), path: /^\/v1\/systems\/[^/]+\/discovery\/?$/ },
  { methods: new Set(['POST']), path: /^\/v1\/logs(\/|$)/ },
  { methods: new Set(['POST']), path: /^\/v1\/status(\/|$)/ },
]

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** True when the request is agent traffic (not recorded). */
export function isAgentTraffic(method: string, path: string): boolean {
  return AGENT_ROUTES.some((r) => r.methods.has(method) && r.path.test(path))
}

/**
 * An authenticated caller refused (403) before the route read the body: the audit record should
 * still say what was attempted, so the body is read here, at most `maxBytes` of it (a larger one
 * is recorded by size only). Unauthenticated requests (401) are not read: anyone can send those.
 */
async function readRefusedBody(c: Context<ServiceEnv>, maxBytes: number): Promise<void> {
  if (c.res.status !== 403 || c.var.requestBody !== undefined || c.var.principal === undefined) return
  if (READ_METHODS.has(c.req.method)) return
  try {
    await readBody(c, { maxBytes, maxDecompressedBytes: maxBytes })
  } catch {
    // Too large, or not readable: the record goes without the body (its size, when known, is in the log line).
  }
}

export interface RecordActivityOptions {
  store: ServiceStore
  metrics: ServiceMetrics
  logger: Logger
  /** Bytes of a request body recorded at most. */
  maxBodyBytes: number
}

/** Middleware recording each management request (mount on `/v1/*` and `/v2/*`, outermost). */
export function recordActivity(options: RecordActivityOptions): MiddlewareHandler<ServiceEnv> {
  const { store, metrics, logger, maxBodyBytes } = options
  return async (c, next) => {
    if (isAgentTraffic(c.req.method, c.req.path)) return next()
    const activity = new RequestActivity(c, { at: new Date(), clock: performance.now() }, options)
    c.set('activity', activity)
    await next()
    await readRefusedBody(c, maxBodyBytes)
    const entry = activityOf(c, activity.start, { maxBodyBytes })
    // Outer middleware (write tracking: readiness follows a full disk) sees why a change failed.
    if (activity.failure) c.error = activity.failure
    const failed = (err: unknown, message: string) => {
      metrics.activityRecordFailures.inc()
      const log = c.var.log ?? logger
      log.error({ err: (err as Error).message, code: (err as { code?: string }).code }, message)
      // Outer middleware (write tracking) sees the database's failure, not the route's outcome.
      c.error = err as Error
    }
    if (activity.committedSeq !== undefined) {
      // The change and its record are committed; only the response's part is missing.
      try {
        await store.activity.complete(activity.committedSeq, entry)
        metrics.activityRecorded.inc({ class: entry.activityClass })
      } catch (err) {
        failed(err, 'activity record not completed with its response')
      }
      return
    }
    try {
      await store.activity.append(entry)
      metrics.activityRecorded.inc({ class: entry.activityClass })
    } catch (err) {
      failed(err, 'activity record not written')
      const unrecordedChange = entry.activityClass === AUDIT_CLASS && c.res.status < 400
      if (unrecordedChange) {
        const refusal = serviceUnavailable(
          'the change was applied but its activity record could not be written; check the database and retry',
        )
        c.res = undefined
        c.res = c.json(errorBody('management', refusal, c.var.requestId), 503)
      }
    }
  }
}
