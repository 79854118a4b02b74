/**
 * The base Hono app every regent server starts from: request ids, one log line per request,
 * errors mapped to the server's envelope, and a JSON 404 for unknown routes.
 */
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Logger } from 'pino'
import { type ErrorStyle, errorBody, HttpError, internalError, notFound } from './errors.js'
import { requestId } from './request-id.js'
import type { AppEnv } from './types.js'

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
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
      },
      'request',
    )
  })
  app.notFound((c) => {
    const err = notFound(`no route for ${c.req.method} ${c.req.path}`)
    return c.json(errorBody(errorStyle, err, c.var.requestId), 404)
  })
  app.onError((cause, c) => {
    const err = toHttpError(cause)
    if (err.status >= 500) (c.var.log ?? logger).error({ err: cause }, 'request failed')
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value)
    return c.json(errorBody(errorStyle, err, c.var.requestId ?? ''), err.status)
  })
  return app
}

function toHttpError(cause: Error): HttpError {
  if (cause instanceof HttpError) return cause
  if (cause instanceof HTTPException) {
    return new HttpError(cause.status as ContentfulStatusCode, 'invalid_parameter', cause.message)
  }
  // Never echo internals of an unexpected failure to the caller.
  return internalError()
}
