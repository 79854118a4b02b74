/**
 * The `ActivityData` record of one request, built from the finished request's context: who
 * (`requested_by` = the principal's id, '' when unauthenticated), what (method, path, the body
 * with secret values redacted), how it ended (status, error message), how long it took and what
 * the authorization step decided.
 */
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { HttpError } from '../../core/http/index.js'
import type { ActivityOutcome, NewActivity } from '../../store/service/index.js'
import type { Principal, ServiceEnv } from '../types.js'
import { recordedBody } from './redact.js'

/** `request.class` of a change or a refusal. */
export const AUDIT_CLASS = 'audit'
/** `request.class` of a read. */
export const ACTIVITY_CLASS = 'activity'

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * POSTs that only read (searches and the permission check): recorded as reads.
 * NOTE(activity): the spec classes changes as audit; these POSTs change nothing.
 */
const READ_ONLY_POSTS = [/^\/v1\/activity\/?$/, /^\/v1\/decisions\/?$/, /^\/v1\/authz\/evaluation\/?$/]

/** The `ActivityData` shape (spec: ActivityData, RequestData, ResponseData). */
export interface ActivityData {
  request: {
    id: string
    host: string
    method: string
    path: string
    timestamp: string
    class: string
    requested_by: string
    requested_through: string
    request_body?: string
    errors?: { evaluation: string }
  }
  response: { timestamp: string; status_code: number; errors?: { processing: string } }
  /** Nanoseconds from receiving the request to having its answer (Go's time.Duration). */
  duration: number
  decision?: {
    input: { method: string; path: string; user: string }
    output: {
      allow: boolean
      grant?: { id: string; role: string; resource: string }
      status?: { reason: string }
    }
  }
}

/** The class of a request: `audit` for changes and refusals, `activity` for reads. */
export function activityClassOf(method: string, path: string, status: number): string {
  if (status === 401 || status === 403) return AUDIT_CLASS
  if (READ_METHODS.has(method)) return ACTIVITY_CLASS
  if (method === 'POST' && READ_ONLY_POSTS.some((re) => re.test(path))) return ACTIVITY_CLASS
  return AUDIT_CLASS
}

/** How a request ended: refused (401/403 or a negative decision), failed (other 4xx/5xx), or allowed. */
export function outcomeOf(status: number, allowed: boolean | undefined): ActivityOutcome {
  if (status === 401 || status === 403 || allowed === false) return 'denied'
  return status >= 400 ? 'error' : 'allowed'
}

/** How the caller authenticated: `token`, or `identity-provider:<id>` for a user's JWT. */
export function requestedThrough(principal: Principal | undefined): string {
  if (!principal) return 'anonymous'
  return principal.kind === 'user' ? `identity-provider:${principal.provider ?? ''}` : 'token'
}

/** The message a failed request answered with (never the internals of an unexpected error). */
function refusalMessage(error: Error | undefined, status: number): string | undefined {
  if (status < 400) return undefined
  if (error instanceof HttpError || error instanceof HTTPException) return error.message
  if (status === 404 && error === undefined) return 'no such route'
  return status >= 500 ? 'internal error' : undefined
}

/** What is known when the request arrives. */
export interface RequestStart {
  at: Date
  /** performance.now() at arrival. */
  clock: number
}

/**
 * Builds the row to store for the finished request `c`; with `answering`, for a request whose
 * route is still running and is expected to answer that status (the record written inside a
 * change's transaction, before the response exists).
 */
export function activityOf(
  c: Context<ServiceEnv>,
  start: RequestStart,
  options: { maxBodyBytes: number; answering?: number },
): NewActivity {
  const method = c.req.method
  const path = c.req.path
  const status = options.answering ?? c.res.status
  const principal = c.var.principal as Principal | undefined
  const authorization = c.var.authorization
  const message = options.answering === undefined ? refusalMessage(c.error, status) : undefined
  const refused = status === 401 || status === 403
  const activityClass = activityClassOf(method, path, status)
  const requestedBy = principal?.id ?? ''
  const body = recordedBody(path, c.var.requestBody, {
    maxBytes: options.maxBodyBytes,
    mediaType: (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase(),
  })
  const record: ActivityData = {
    request: {
      id: c.var.requestId,
      host: c.req.header('Host') ?? new URL(c.req.url).host,
      method,
      path,
      timestamp: start.at.toISOString(),
      class: activityClass,
      requested_by: requestedBy,
      requested_through: requestedThrough(principal),
      ...(body !== undefined ? { request_body: body } : {}),
      ...(refused && message ? { errors: { evaluation: message } } : {}),
    },
    response: {
      timestamp: new Date().toISOString(),
      status_code: status,
      ...(!refused && message ? { errors: { processing: message } } : {}),
    },
    duration: Math.round((performance.now() - start.clock) * 1e6),
  }
  const decision = decisionOf(c, status, message)
  if (decision) record.decision = decision
  return {
    requestId: c.var.requestId,
    tsUs: start.at.getTime() * 1000,
    activityClass,
    method,
    path,
    requestedBy,
    statusCode: status,
    outcome: outcomeOf(status, authorization?.allowed),
    record: JSON.stringify(record),
  }
}

/**
 * The authorization decision: the authorization step's own (`c.var.authorization`), else, for a
 * 403 decided by a route's own check, a refusal with its reason. An unauthenticated request (401)
 * reached no decision.
 */
function decisionOf(
  c: Context<ServiceEnv>,
  status: number,
  message: string | undefined,
): ActivityData['decision'] {
  const authorization = c.var.authorization
  const principal = c.var.principal as Principal | undefined
  const input = { method: c.req.method, path: c.req.path, user: principal?.id ?? '' }
  if (authorization) {
    return {
      input,
      output: {
        allow: authorization.allowed,
        ...(authorization.grant ? { grant: authorization.grant } : {}),
        ...(!authorization.allowed && message ? { status: { reason: message } } : {}),
      },
    }
  }
  if (status === 403) return { input, output: { allow: false, status: { reason: message ?? 'forbidden' } } }
  return undefined
}
