/**
 * The compile routes over a runner (`POST|GET /v1/compile/{path}`, `POST /v1/compile`): they read
 * the body (limits, `Content-Encoding`) and hand the request to whatever runs it. Kept apart from
 * route.ts so that the relay, whose runner is a pool of worker threads, mounts the routes without
 * loading the compile pipeline and the Rego engine on its main thread (issue 25: idle memory).
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
import { type CompileAnswer, type CompileRunner, failureAnswer } from './answer.js'
import { invalidParameter } from './errors.js'

/** What the compile routes need when requests run elsewhere (the relay's worker threads). */
export interface CompileRunnerRouteDeps {
  /** Answers one request (never throws; failures are answers). */
  run: CompileRunner
  limits?: BodyLimits
  logger?: Logger
}

const PREFIX = '/v1/compile'

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
    throw asCompileBodyError(err)
  }
}

/**
 * An inflated body as text, failing as the routes do (the relay's fast path reads bodies itself).
 * @throws CompileFailure 400 `invalid_parameter` for bytes that are not UTF-8.
 */
export function compileBodyText(bytes: Buffer): string {
  try {
    return utf8Text(bytes)
  } catch (err) {
    throw asCompileBodyError(err)
  }
}

// readBody and utf8Text answer 400 for a body that does not inflate or decode; say it as the
// reference does.
function asCompileBodyError(err: unknown): unknown {
  if (err instanceof HttpError && err.status === 400) {
    return invalidParameter(`could not decompress the body: ${err.message}`)
  }
  return err
}

/** `?pretty`, `?pretty=true` and `?pretty=1` are on; absent or `false` is off. */
function flag(value: string | undefined): boolean {
  if (value === undefined) return false
  return value === '' || value.toLowerCase() === 'true' || value === '1'
}
