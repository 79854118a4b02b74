/**
 * The base Hono app every regent server starts from: request ids, one log line per request,
 * errors mapped to the server's envelope, and a JSON 404 for unknown routes.
 */
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Logger } from 'pino'
import {
  type ErrorStyle,
  errorBody,
  HttpError,
  internalError,
  notFound,
  serviceUnavailable,
} from './errors.js'
import { requestId } from './request-id.js'
import type { AppEnv } from './types.js'

/** `Retry-After` of a 503 answered because the disk is full. */
const DISK_FULL_RETRY_SECONDS = 5

export interface AppOptions {
  /** Which error envelope the app answers with. */
  errorStyle: ErrorStyle
  logger: Logger
}

/** A Hono app with regent's shared middleware and error handling installed. */
export function createApp({ errorStyle, logger }: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  app.use(requestId())
  app.use(async (c, next) => {
    const started = performance.now()
    const log = logger.child({ req_id: c.var.requestId })
    c.set('log', log)
    await next()
    const line: Record<string, unknown> = {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    }
    // A refusal (400, 413, 503 for a full buffer or disk, …) is expected: its reason goes on
    // this one line, without a stack.
    const refusal = c.error === undefined ? undefined : refusalOf(c.error)
    if (refusal) {
      line.code = refusal.code
      line.reason = refusal.message
    }
    if (c.res.status >= 500) log.warn(line, 'request')
    else log.info(line, 'request')
  })
  app.notFound((c) => {
    const err = notFound(`no route for ${c.req.method} ${c.req.path}`)
    return c.json(errorBody(errorStyle, err, c.var.requestId), 404)
  })
  app.onError((cause, c) => {
    const err = toHttpError(cause)
    // Only what no code path expected (a bug) is logged with its stack.
    if (refusalOf(cause) === undefined) (c.var.log ?? logger).error({ err: cause }, 'request failed')
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value)
    return c.json(errorBody(errorStyle, err, c.var.requestId ?? ''), err.status)
  })
  return app
}

/** The HttpError an expected failure answers with, or undefined for a failure nobody expected. */
function refusalOf(cause: Error): HttpError | undefined {
  if (cause instanceof HttpError) return cause
  if (cause instanceof HTTPException) {
    return new HttpError(cause.status as ContentfulStatusCode, 'invalid_parameter', cause.message)
  }
  const code = (cause as { code?: unknown }).code
  // A full disk is an operating condition: the caller retries once space is freed.
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return serviceUnavailable(`the disk is full (${code}); retry later`, DISK_FULL_RETRY_SECONDS)
  }
  return undefined
}

function toHttpError(cause: Error): HttpError {
  const refusal = refusalOf(cause)
  if (refusal) return refusal
  // Never echo internals of an unexpected failure to the caller.
  return internalError()
}
