/**
 * The Hono routes of the compile endpoint: `POST|GET /v1/compile/{path}` (the rule to compile in the
 * path) and `POST /v1/compile` (`query` in the body). The relay and `regent run -s` mount them over
 * their own policies by supplying a `CompileBackend`.
 */
import { type Context, Hono } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Logger } from 'pino'
import { type AppEnv, type BodyLimits, DEFAULT_BODY_LIMITS, HttpError, readBody } from '../core/http/index.js'
import { CompileService } from './compile.js'
import { CompileFailure, internalFailure, invalidParameter } from './errors.js'
import { serializeJson } from './response.js'
import type { CompileBackend } from './types.js'

/** What the compile routes need. */
export interface CompileRouteDeps {
  /** The Rego engine over the current policies. */
  backend: CompileBackend
  /** Body size limits (defaults: 8 MiB on the wire, 64 MiB inflated). */
  limits?: BodyLimits
  /** Used when the app has no per-request logger (tests). */
  logger?: Logger
}

/** The routes plus the service behind them (for cache purges and tests). */
export interface CompileRoutes {
  app: Hono<AppEnv>
  service: CompileService
}

const PREFIX = '/v1/compile'

/**
 * A Hono app with the compile routes, to mount with `app.route('/', routes.app)`.
 * @example
 * const { app } = compileRoutes({ backend })
 * server.route('/', app)
 */
export function compileRoutes(deps: CompileRouteDeps): CompileRoutes {
  const service = new CompileService(deps.backend)
  const limits = deps.limits ?? DEFAULT_BODY_LIMITS
  const app = new Hono<AppEnv>()

  const handle = async (c: Context<AppEnv>, path: string | undefined): Promise<Response> => {
    const pretty = flag(c.req.query('pretty'))
    try {
      const bodyText = await readText(c, limits)
      const output = await service.compile({
        path,
        accept: c.req.header('Accept'),
        contentType: c.req.header('Content-Type') ?? '',
        bodyText,
        metrics: flag(c.req.query('metrics')) || flag(c.req.query('instrument')),
      })
      return c.body(serializeJson(output.body, pretty), 200, { 'Content-Type': output.mediaType })
    } catch (err) {
      const { status, body } = errorResponse(err)
      if (status >= 500) (c.var.log ?? deps.logger)?.error({ err }, 'compile failed')
      // Error bodies are always pretty-printed, as OPA writes them.
      return c.body(serializeJson(body, true), status, { 'Content-Type': 'application/json' })
    }
  }

  app.post(PREFIX, (c) => handle(c, undefined))
  app.on(['GET', 'POST'], `${PREFIX}/*`, (c) => {
    // The raw (percent-encoded) path, so that an escaped "/" stays inside its segment.
    const pathname = new URL(c.req.url).pathname
    return handle(c, pathname.slice(PREFIX.length + 1))
  })
  return { app, service }
}

/** The body as text, inflated per `Content-Encoding`, within the limits. */
async function readText(c: Context<AppEnv>, limits: BodyLimits): Promise<string> {
  try {
    return (await readBody(c, limits)).toString('utf8')
  } catch (err) {
    // readBody answers 400 only for a body that does not inflate; say it as the reference does.
    if (err instanceof HttpError && err.status === 400) {
      throw invalidParameter(`could not decompress the body: ${err.message}`)
    }
    throw err
  }
}

/** `?pretty`, `?pretty=true` and `?pretty=1` are on; absent or `false` is off. */
function flag(value: string | undefined): boolean {
  if (value === undefined) return false
  return value === '' || value.toLowerCase() === 'true' || value === '1'
}

/** The status and OPA envelope for anything thrown while compiling. */
function errorResponse(err: unknown): { status: ContentfulStatusCode; body: object } {
  if (err instanceof CompileFailure) return { status: err.status, body: err.toJSON() }
  // Body limits and encodings (413, 415) from the shared HTTP helpers.
  if (err instanceof HttpError) return { status: err.status, body: { code: err.code, message: err.message } }
  // Never echo internals of an unexpected failure.
  return { status: 500, body: internalFailure('internal error').toJSON() }
}
