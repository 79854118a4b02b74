/**
 * The Hono routes of the compile endpoint: `POST|GET /v1/compile/{path}` (the rule to compile in the
 * path) and `POST /v1/compile` (`query` in the body). `regent run -s` mounts them over its own
 * policies by supplying a `CompileBackend` (requests run in process); the relay supplies a
 * `CompileRunner` that runs them on worker threads (relay/compile/).
 */
import { type Context, Hono } from 'hono'
import type { Logger } from 'pino'
import {
  type AppEnv,
  type BodyLimits,
  DEFAULT_BODY_LIMITS,
  HttpError,
  readBody,
  utf8Text,
} from '../core/http/index.js'
import { answerCompile, type CompileAnswer, type CompileRunner, failureAnswer } from './answer.js'
import { CompileService } from './compile.js'
import { invalidParameter } from './errors.js'
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

/** What the compile routes need when requests run elsewhere (the relay's worker threads). */
export interface CompileRunnerRouteDeps {
  /** Answers one request (never throws; failures are answers). */
  run: CompileRunner
  limits?: BodyLimits
  logger?: Logger
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
  const app = compileRunnerRoutes({
    run: (request) => answerCompile(service, request),
    ...(deps.limits ? { limits: deps.limits } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
  })
  return { app, service }
}

/**
 * The compile routes over a runner: the route reads the body (limits, `Content-Encoding`) and
 * hands the request over; the runner does everything else.
 */
export function compileRunnerRoutes(deps: CompileRunnerRouteDeps): Hono<AppEnv> {
  const limits = deps.limits ?? DEFAULT_BODY_LIMITS
  const app = new Hono<AppEnv>()

  const handle = async (c: Context<AppEnv>, path: string | undefined): Promise<Response> => {
    let answer: CompileAnswer
    const log = c.var.log ?? deps.logger
    try {
      const bodyText = await readText(c, limits)
      answer = await deps.run({
        path,
        accept: c.req.header('Accept'),
        contentType: c.req.header('Content-Type') ?? '',
        bodyText,
        metrics: flag(c.req.query('metrics')) || flag(c.req.query('instrument')),
        pretty: flag(c.req.query('pretty')),
      })
    } catch (err) {
      answer = failureAnswer(err)
      if (answer.status >= 500) log?.error({ err }, 'compile failed')
    }
    if (answer.serverError !== undefined) log?.error({ err: answer.serverError }, 'compile failed')
    return c.body(answer.text, answer.status, { ...answer.headers, 'Content-Type': answer.contentType })
  }

  app.post(PREFIX, (c) => handle(c, undefined))
  app.on(['GET', 'POST'], `${PREFIX}/*`, (c) => {
    // The raw (percent-encoded) path, so that an escaped "/" stays inside its segment.
    const pathname = new URL(c.req.url).pathname
    return handle(c, pathname.slice(PREFIX.length + 1))
  })
  return app
}

/** The body as text, inflated per `Content-Encoding`, within the limits. */
async function readText(c: Context<AppEnv>, limits: BodyLimits): Promise<string> {
  try {
    return utf8Text(await readBody(c, limits))
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
