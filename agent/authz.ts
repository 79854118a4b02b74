/**
 * `--authorization basic`: OPA's administrative policy. Before any route runs, the decision
 * `data.system.authz.allow` (or the configured `default_authorization_decision`) is evaluated with
 * OPA's input `{path, method, params, headers, body?, identity?, client_certificates?}`:
 * `true`, or `{"allowed": true}`, lets the request through; `false` answers 401 `unauthorized`
 * "request rejected by administrative policy" (or the object's `reason`); an undefined decision is
 * 500 "authorization policy missing or undefined", as OPA's `server/authorizer` answers.
 */
import type { MiddlewareHandler } from 'hono'
import { type AppEnv, badRequest, HttpError, internalError } from '../core/http/index.js'
import { fromJS, isObject, type Value } from '../core/rego/values/index.js'
import { callerOf } from './authn.js'
import { evaluateDocument } from './decision.js'
import { isYamlBody, parseDocumentText, RequestMetrics, readText } from './http-io.js'
import { refFromUrlPath, unescapeSegment } from './paths.js'
import type { RunServerDeps } from './types.js'

/** OPA's default `default_authorization_decision`. */
export const DEFAULT_AUTHORIZATION_DECISION = '/system/authz/allow'

export const MSG_UNAUTHORIZED = 'request rejected by administrative policy'
export const MSG_AUTHZ_UNDEFINED = 'authorization policy missing or undefined'
const MSG_UNDEFINED = 'document missing or undefined'

/** The middleware that asks the administrative policy about every request. */
export function authorizationMiddleware(
  deps: RunServerDeps,
  decision = DEFAULT_AUTHORIZATION_DECISION,
): MiddlewareHandler<AppEnv> {
  const ref = refFromUrlPath(decision)
  return async (c, next) => {
    const input = await authorizationInput(c, deps)
    const value = await evaluateDocument(c, deps, {
      ref,
      input,
      strictBuiltinErrors: false,
      metrics: new RequestMetrics(),
    })
    if (value === undefined) throw internalError(MSG_AUTHZ_UNDEFINED)
    if (value === true) return next()
    if (isObject(value)) {
      const allowed = value.get('allowed')
      if (allowed === undefined) throw internalError(MSG_UNDEFINED)
      if (allowed === true) return next()
      const reason = value.get('reason')
      if (typeof reason === 'string') throw unauthorizedBy(reason)
    }
    throw unauthorizedBy(MSG_UNAUTHORIZED)
  }
}

function unauthorizedBy(message: string): HttpError {
  return new HttpError(401, 'unauthorized', message)
}

type Ctx = Parameters<MiddlewareHandler<AppEnv>>[0]

/** OPA's `makeInput`: the body only for `POST /` and `POST /v0|v1/data/...`. */
async function authorizationInput(c: Ctx, deps: RunServerDeps): Promise<Value> {
  const url = new URL(c.req.url)
  const path = url.pathname.slice(1).split('/').map(unescapeSegment)
  const params: Record<string, string[]> = {}
  for (const [name, value] of url.searchParams) params[name] = [...(params[name] ?? []), value]
  const headers: Record<string, string[]> = {}
  for (const [name, value] of c.req.raw.headers) {
    // Go's http.Header keys are canonical (`Content-Type`); fetch lower-cases them.
    const key = name.replace(/(^|-)([a-z])/g, (_, dash: string, ch: string) => dash + ch.toUpperCase())
    // fetch joins repeated headers with ", "; they stay one value (splitting would cut dates).
    headers[key] = [...(headers[key] ?? []), value]
  }
  const input: Record<string, unknown> = {
    path,
    method: c.req.method.toUpperCase(),
    params,
    headers,
  }
  if (expectsBody(c.req.method, path)) {
    const text = await readText(c, deps.limits)
    let body: Value | undefined
    try {
      body = parseDocumentText(text, isYamlBody(c))
    } catch (err) {
      if (err instanceof HttpError) throw err
      throw badRequest(err instanceof Error ? err.message : String(err))
    }
    if (body !== undefined) input.body = body
  }
  const caller = callerOf(c.req.raw)
  if (caller.identity !== undefined) input.identity = caller.identity
  if (caller.clientCertificates) input.client_certificates = caller.clientCertificates
  return fromJS(input)
}

function expectsBody(method: string, path: string[]): boolean {
  if (method.toUpperCase() !== 'POST') return false
  if (path.length === 1) return path[0] === ''
  return (path[0] === 'v0' || path[0] === 'v1') && path[1] === 'data'
}
