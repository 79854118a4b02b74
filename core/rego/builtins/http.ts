/**
 * http.send with OPA's request options: method, url, headers, body / raw_body, timeouts,
 * redirects, TLS (CA, client certificates, server name, skip verify), JSON / YAML decoding,
 * raise_error, retries, and caching (per query always; across queries with `cache` or
 * `force_cache`). Reaching the network is refused when the context's allow_net forbids the host.
 */
import { readFileSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { createRequire } from 'node:module'
import type { Agent, Dispatcher } from 'undici'
import type { Location } from '../syntax/ast.js'
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import { ObjectValue as Obj, parseJSON, toJSONText } from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { parseYamlValue } from './encoding.js'
import { BuiltinError } from './errors.js'
import {
  boolOption,
  checkRequestOptions,
  goLocationText,
  headerEntries,
  raiseErrorOption,
  retryAttempts,
  strictBoolOption,
  stringOption,
  timeoutNs,
  validateRequestKeys,
} from './http-options.js'
import { checkNetAllowed } from './net.js'
import { objectOperand } from './operands.js'

/** Default timeout when neither the request nor the context sets one (OPA: 5s). */
export const DEFAULT_HTTP_TIMEOUT_MS = 5_000

/** PEM text from an inline value, a file, or an environment variable. */
function pem(req: ObjectValue, base: string): string | undefined {
  const inline = stringOption(req, base)
  if (inline) return inline
  const file = stringOption(req, `${base}_file`)
  if (file) return readFileSync(file, 'utf8')
  const env = stringOption(req, `${base}_env_variable`)
  if (env) return process.env[env]
  return undefined
}

// undici loads on the first call: every program that evaluates Rego would otherwise pay for it.
const require = createRequire(import.meta.url)
let client: typeof import('undici') | undefined
const undici = () => (client ??= require('undici') as typeof import('undici'))

const agents = new Map<string, Agent>()

function agentFor(req: ObjectValue): Agent | undefined {
  const tls = {
    ca: pem(req, 'tls_ca_cert'),
    cert: pem(req, 'tls_client_cert'),
    key: pem(req, 'tls_client_key'),
    servername: stringOption(req, 'tls_server_name'),
    rejectUnauthorized: !boolOption(req, 'tls_insecure_skip_verify', false),
  }
  if (!tls.ca && !tls.cert && !tls.key && !tls.servername && tls.rejectUnauthorized) return undefined
  const key = JSON.stringify(tls)
  let agent = agents.get(key)
  if (!agent) {
    agent = new (undici().Agent)({
      connect: Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined)),
    })
    agents.set(key, agent)
  }
  return agent
}

function timeoutMs(ctx: BuiltinContext, req: ObjectValue): number {
  const v = req.get('timeout')
  if (v === undefined) return ctx.httpTimeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS
  // Go's client: a zero (or negative) timeout means none; the query's own deadline still applies.
  const ns = timeoutNs(v)
  return ns <= 0n ? 2 ** 31 - 1 : Number(ns / 1_000_000n)
}

interface Fetched {
  status: number
  headers: Record<string, string[]>
  body: string
}

async function fetchOnce(ctx: BuiltinContext, req: ObjectValue, url: URL): Promise<Fetched> {
  const method = (stringOption(req, 'method') ?? 'GET').toUpperCase()
  const headers: Record<string, string> = Object.fromEntries(headerEntries(req.get('headers')))
  let body: string | undefined = stringOption(req, 'raw_body')
  const bodyValue = req.get('body')
  if (body === undefined && bodyValue !== undefined && bodyValue !== null) {
    body = toJSONText(bodyValue)
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
      headers['Content-Type'] = 'application/json'
  }
  const ms = timeoutMs(ctx, req)
  const signals = [AbortSignal.timeout(ms)]
  if (ctx.signal) signals.push(ctx.signal)
  const dispatcher: Dispatcher = agentFor(req) ?? undici().getGlobalDispatcher()
  const signal = AbortSignal.any(signals)
  const follow = boolOption(req, 'enable_redirect', false)
  let target = url
  let res = await undici().request(target, { method: method as 'GET', headers, body, signal, dispatcher })
  // Redirects are followed here, not by undici, so that every hop passes the allow_net check.
  for (let hops = 0; follow && REDIRECT_STATUSES.has(res.statusCode); hops++) {
    const location = res.headers.location
    if (typeof location !== 'string') break
    await res.body.dump()
    if (hops === MAX_REDIRECTS) throw new BuiltinError(`stopped after ${MAX_REDIRECTS} redirects`)
    target = new URL(location, target)
    checkNetAllowed(ctx, urlHost(target))
    // As Go's client: 303, and 301/302 after a POST, continue as a GET without a body.
    const asGet =
      res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
    res = await undici().request(target, {
      method: (asGet ? 'GET' : method) as 'GET',
      headers,
      body: asGet ? undefined : body,
      signal,
      dispatcher,
    })
  }
  const text = await res.body.text()
  const out: Record<string, string[]> = {}
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue
    out[k.toLowerCase()] = Array.isArray(v) ? v : [v]
  }
  return { status: res.statusCode, headers: out, body: text }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const MAX_REDIRECTS = 10

/** The host of `url` as allow_net lists it (no port, no IPv6 brackets). */
function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '')
}

function responseValue(req: ObjectValue, r: Fetched): ObjectValue {
  const contentType = (r.headers['content-type']?.[0] ?? '').toLowerCase()
  let body: Value = null
  if (strictBoolOption(req, 'force_json_decode') || /[/+]json\b/.test(contentType)) {
    try {
      body = r.body === '' ? null : parseJSON(r.body)
    } catch {
      body = null
    }
  } else if (strictBoolOption(req, 'force_yaml_decode') || /yaml/.test(contentType)) {
    try {
      body = parseYamlValue(r.body)
    } catch {
      body = null
    }
  }
  const headers = new Obj()
  for (const [k, v] of Object.entries(r.headers)) headers.set(k, v)
  return new Obj()
    .set('status', `${r.status} ${STATUS_CODES[r.status] ?? ''}`.trim())
    .set('status_code', r.status)
    .set('body', body)
    .set('raw_body', r.body)
    .set('headers', headers)
}

/** Seconds a response may be cached for, from Cache-Control / Expires (0: not cacheable). */
function freshness(r: Fetched): number {
  const cc = (r.headers['cache-control'] ?? []).join(',').toLowerCase()
  if (/no-store|no-cache|private/.test(cc)) return 0
  const maxAge = /max-age=(\d+)/.exec(cc)
  if (maxAge) return Number(maxAge[1])
  const expires = r.headers.expires?.[0]
  if (expires) return Math.max(0, Math.floor((Date.parse(expires) - Date.now()) / 1000))
  return 0
}

/** OPA's generateRaiseErrorResult: the response http.send gives with `raise_error: false`. */
function errorResponse(
  code: 'eval_http_send_network_error' | 'eval_http_send_internal_error',
  message: string,
) {
  return new Obj().set('status_code', 0).set('error', new Obj().set('code', code).set('message', message))
}

/** The method as Go's url.Error names the operation: `Get`, `Post`. */
function goMethod(method: string): string {
  return method.slice(0, 1) + method.slice(1).toLowerCase()
}

/** Go's url.Error text: `Get "http://host/path": reason`. */
function urlErrorText(method: string, url: string, reason: string): string {
  return `${goMethod(method)} ${JSON.stringify(url)}: ${reason}`
}

/** True for the request's own timeout (AbortSignal.timeout), not the caller's cancellation. */
function isTimeout(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err.name === 'TimeoutError' || (err.cause as Error | undefined)?.name === 'TimeoutError')
  )
}

async function send(ctx: BuiltinContext, req: ObjectValue, location?: Location): Promise<Value> {
  const raiseError = raiseErrorOption(req)
  try {
    validateRequestKeys(req)
  } catch (err) {
    if (raiseError) throw err
    // OPA puts the whole evaluation error's text in the response, its location first.
    const where = goLocationText(location)
    const text = `eval_type_error: http.send: ${(err as Error).message}`
    return errorResponse('eval_http_send_internal_error', where ? `${where}: ${text}` : text)
  }
  const cacheKey = `http.send:${toJSONText(req)}`
  const intra = ctx.cache.get(cacheKey)
  if (intra !== undefined) return intra as Value
  const interKey = toJSONText(req)
  const cached = ctx.interQueryCache?.get(interKey)
  if (cached && cached.expiresAt > Date.now()) {
    ctx.cache.set(cacheKey, cached.value)
    return cached.value
  }
  const method = (stringOption(req, 'method') ?? '').toUpperCase()
  const rawURL = stringOption(req, 'url') ?? ''
  let url: URL
  try {
    // OPA's order: createHTTPRequest's options (the host check among them), the decode flags,
    // max_retry_attempts, and only then the client's refusal of the URL.
    checkRequestOptions(req)
    checkNetAllowed(ctx, hostOf(rawURL))
    strictBoolOption(req, 'force_json_decode')
    strictBoolOption(req, 'force_yaml_decode')
    retryAttempts(req)
    url = parseURL(method, rawURL)
  } catch (err) {
    if (raiseError || !(err instanceof Error)) throw err
    const code =
      err instanceof NetworkError ? 'eval_http_send_network_error' : 'eval_http_send_internal_error'
    return errorResponse(code, err.message)
  }
  // Bounded here (OPA has no bound): each attempt waits, and a query has a deadline anyway.
  const retries = Math.min(10, retryAttempts(req))
  let fetched: Fetched | undefined
  let failure: unknown
  for (let attempt = 0; attempt <= retries && !fetched; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 2_000)))
    try {
      fetched = await fetchOnce(ctx, req, url)
    } catch (err) {
      if (err instanceof BuiltinError) throw err
      failure = err
    }
  }
  if (!fetched) {
    if (isTimeout(failure)) {
      // OPA's handleHTTPSendErr rewords the client's timeout (`Get http://h/x: request timed
      // out`, the URL unquoted); with raise_error false the response carries Go's own url.Error.
      if (raiseError) throw new BuiltinError(`${goMethod(method)} ${rawURL}: request timed out`)
      return errorResponse(
        'eval_http_send_network_error',
        urlErrorText(
          method,
          rawURL,
          'context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        ),
      )
    }
    const cause =
      failure instanceof Error
        ? failure.cause instanceof Error
          ? failure.cause.message
          : failure.message
        : String(failure)
    const message = urlErrorText(method, rawURL, cause)
    if (raiseError) throw new BuiltinError(message)
    return errorResponse('eval_http_send_network_error', message)
  }
  const value = responseValue(req, fetched)
  ctx.cache.set(cacheKey, value)
  if (ctx.interQueryCache) {
    const forced = strictBoolOption(req, 'force_cache')
    const seconds = forced
      ? Number(req.get('force_cache_duration_seconds') ?? 0)
      : strictBoolOption(req, 'cache')
        ? freshness(fetched)
        : 0
    if (seconds > 0) ctx.interQueryCache.set(interKey, { value, expiresAt: Date.now() + seconds * 1000 })
  }
  return value
}

/** The host allow_net is checked against: Go's url.Parse host without the port ("" if none). */
function hostOf(raw: string): string {
  try {
    return urlHost(new URL(raw))
  } catch {
    return ''
  }
}

/** A failure Go's client reports as a *url.Error (OPA: `eval_http_send_network_error`). */
class NetworkError extends BuiltinError {}

/**
 * The request URL. Go parses most strings as a (relative) URL and its client then refuses a
 * missing or unknown scheme: `Get "nope": unsupported protocol scheme ""`.
 */
function parseURL(method: string, raw: string): URL {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {
    url = undefined
  }
  const scheme = url ? url.protocol.slice(0, -1) : (/^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1] ?? '')
  if (url === undefined || (scheme !== 'http' && scheme !== 'https'))
    throw new NetworkError(urlErrorText(method, raw, `unsupported protocol scheme ${JSON.stringify(scheme)}`))
  return url
}

export const httpSend = defineBuiltin({
  name: 'http.send',
  category: 'http',
  description: 'Returns a HTTP response to the given HTTP request.',
  args: [t.named('request', t.object(t.string, t.any), 'the HTTP request object')],
  result: t.named('response', t.object(t.any, t.any), 'the HTTP response object'),
  nondeterministic: true,
  async: true,
  impl: (ctx, [r], location) => send(ctx, objectOperand(r, 1), location),
})

/** The HTTP built-ins. */
export const HTTP = [httpSend] as const
