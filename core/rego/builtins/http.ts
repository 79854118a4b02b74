/**
 * http.send with OPA's request options: method, url, headers, body / raw_body, timeouts,
 * redirects, TLS (CA, client certificates, server name, skip verify), JSON / YAML decoding,
 * raise_error, retries, and caching (per query always; across queries with `cache` or
 * `force_cache`). Reaching the network is refused when the context's allow_net forbids the host.
 */
import { readFileSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { Agent, type Dispatcher, getGlobalDispatcher, request } from 'undici'
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import {
  formatValue,
  isNumberValue,
  isObject,
  ObjectValue as Obj,
  parseJSON,
  toDouble,
  toJSONText,
  Value as V,
} from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { parseYamlValue } from './encoding.js'
import { BuiltinError } from './errors.js'
import { parseDuration } from './go-time.js'
import { checkNetAllowed } from './net.js'
import { objectOperand } from './operands.js'

const ALLOWED_KEYS = new Set([
  'method',
  'url',
  'body',
  'raw_body',
  'headers',
  'enable_redirect',
  'force_json_decode',
  'force_yaml_decode',
  'tls_use_system_certs',
  'tls_ca_cert',
  'tls_ca_cert_file',
  'tls_ca_cert_env_variable',
  'tls_client_cert',
  'tls_client_cert_file',
  'tls_client_cert_env_variable',
  'tls_client_key',
  'tls_client_key_file',
  'tls_client_key_env_variable',
  'tls_insecure_skip_verify',
  'tls_server_name',
  'timeout',
  'cache',
  'force_cache',
  'force_cache_duration_seconds',
  'raise_error',
  'caching_mode',
  'max_retry_attempts',
  'cache_ignored_headers',
])

/** Default timeout when neither the request nor the context sets one (OPA: 5s). */
export const DEFAULT_HTTP_TIMEOUT_MS = 5_000

function setText(keys: string[]): string {
  return formatValue(V.set(keys))
}

/** Checks the request's keys as OPA does (type errors, raised even without strict mode). */
function validateRequest(req: ObjectValue): void {
  const keys = req.keys().map((k) => (typeof k === 'string' ? k : formatValue(k)))
  const invalid = keys.filter((k) => !ALLOWED_KEYS.has(k))
  if (invalid.length)
    throw new BuiltinError(`invalid request parameters(s): ${setText(invalid)}`, 'eval_type_error')
  const missing = ['method', 'url'].filter((k) => !req.has(k))
  if (missing.length)
    throw new BuiltinError(`missing required request parameters(s): ${setText(missing)}`, 'eval_type_error')
}

function str(req: ObjectValue, key: string): string | undefined {
  const v = req.get(key)
  if (v === undefined) return undefined
  if (typeof v !== 'string')
    throw new BuiltinError(`${JSON.stringify(key)} must be a string`, 'eval_type_error')
  return v
}

function bool(req: ObjectValue, key: string, fallback: boolean): boolean {
  const v = req.get(key)
  if (v === undefined) return fallback
  if (typeof v !== 'boolean')
    throw new BuiltinError(`${JSON.stringify(key)} must be a boolean`, 'eval_type_error')
  return v
}

/** PEM text from an inline value, a file, or an environment variable. */
function pem(req: ObjectValue, base: string): string | undefined {
  const inline = str(req, base)
  if (inline) return inline
  const file = str(req, `${base}_file`)
  if (file) return readFileSync(file, 'utf8')
  const env = str(req, `${base}_env_variable`)
  if (env) return process.env[env]
  return undefined
}

const agents = new Map<string, Agent>()

function agentFor(req: ObjectValue): Agent | undefined {
  const tls = {
    ca: pem(req, 'tls_ca_cert'),
    cert: pem(req, 'tls_client_cert'),
    key: pem(req, 'tls_client_key'),
    servername: str(req, 'tls_server_name'),
    rejectUnauthorized: !bool(req, 'tls_insecure_skip_verify', false),
  }
  if (!tls.ca && !tls.cert && !tls.key && !tls.servername && tls.rejectUnauthorized) return undefined
  const key = JSON.stringify(tls)
  let agent = agents.get(key)
  if (!agent) {
    agent = new Agent({ connect: Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined)) })
    agents.set(key, agent)
  }
  return agent
}

function timeoutMs(ctx: BuiltinContext, req: ObjectValue): number {
  const v = req.get('timeout')
  if (v === undefined) return ctx.httpTimeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS
  if (typeof v === 'string') return Number(parseDuration(v) / 1_000_000n)
  if (isNumberValue(v)) return Math.floor(toDouble(v) / 1e6)
  throw new BuiltinError('"timeout" must be a duration string or a number of nanoseconds', 'eval_type_error')
}

interface Fetched {
  status: number
  headers: Record<string, string[]>
  body: string
}

async function fetchOnce(ctx: BuiltinContext, req: ObjectValue, url: URL): Promise<Fetched> {
  const method = (str(req, 'method') ?? 'GET').toUpperCase()
  const headers: Record<string, string> = {}
  const h = req.get('headers')
  if (h !== undefined) {
    if (!isObject(h)) throw new BuiltinError('"headers" must be an object', 'eval_type_error')
    for (const [k, v] of h.entries()) headers[String(k)] = typeof v === 'string' ? v : toJSONText(v)
  }
  let body: string | undefined = str(req, 'raw_body')
  const bodyValue = req.get('body')
  if (body === undefined && bodyValue !== undefined && bodyValue !== null) {
    body = toJSONText(bodyValue)
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
      headers['Content-Type'] = 'application/json'
  }
  const ms = timeoutMs(ctx, req)
  const signals = [AbortSignal.timeout(ms)]
  if (ctx.signal) signals.push(ctx.signal)
  const dispatcher: Dispatcher = agentFor(req) ?? getGlobalDispatcher()
  const signal = AbortSignal.any(signals)
  const follow = bool(req, 'enable_redirect', false)
  let target = url
  let res = await request(target, { method: method as 'GET', headers, body, signal, dispatcher })
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
    res = await request(target, {
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
  if (bool(req, 'force_json_decode', false) || /[/+]json\b/.test(contentType)) {
    try {
      body = r.body === '' ? null : parseJSON(r.body)
    } catch {
      body = null
    }
  } else if (bool(req, 'force_yaml_decode', false) || /yaml/.test(contentType)) {
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

async function send(ctx: BuiltinContext, req: ObjectValue): Promise<Value> {
  validateRequest(req)
  const raiseError = bool(req, 'raise_error', true)
  const cacheKey = `http.send:${toJSONText(req)}`
  const intra = ctx.cache.get(cacheKey)
  if (intra !== undefined) return intra as Value
  const interKey = toJSONText(req)
  const cached = ctx.interQueryCache?.get(interKey)
  if (cached && cached.expiresAt > Date.now()) {
    ctx.cache.set(cacheKey, cached.value)
    return cached.value
  }
  let url: URL
  try {
    url = new URL(str(req, 'url') ?? '')
  } catch {
    throw new BuiltinError(`invalid URL ${JSON.stringify(str(req, 'url'))}`, 'eval_type_error')
  }
  checkNetAllowed(ctx, urlHost(url))
  const retries = Math.max(0, Math.min(10, Number(req.get('max_retry_attempts') ?? 0) || 0))
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
    const cause =
      failure instanceof Error
        ? failure.cause instanceof Error
          ? failure.cause.message
          : failure.message
        : String(failure)
    const message = `${(str(req, 'method') ?? 'GET').toUpperCase()} ${url.href}: ${cause}`
    if (raiseError) throw new BuiltinError(message)
    return new Obj()
      .set('status_code', 0)
      .set('error', new Obj().set('code', 'eval_http_send_network_error').set('message', message))
  }
  const value = responseValue(req, fetched)
  ctx.cache.set(cacheKey, value)
  if (ctx.interQueryCache) {
    const forced = bool(req, 'force_cache', false)
    const seconds = forced
      ? Number(req.get('force_cache_duration_seconds') ?? 0)
      : bool(req, 'cache', false)
        ? freshness(fetched)
        : 0
    if (seconds > 0) ctx.interQueryCache.set(interKey, { value, expiresAt: Date.now() + seconds * 1000 })
  }
  return value
}

export const httpSend = defineBuiltin({
  name: 'http.send',
  category: 'http',
  description: 'Returns a HTTP response to the given HTTP request.',
  args: [t.named('request', t.object(t.string, t.any), 'the HTTP request object')],
  result: t.named('response', t.object(t.any, t.any), 'the HTTP response object'),
  nondeterministic: true,
  async: true,
  impl: (ctx, [r]) => send(ctx, objectOperand(r, 1)),
})

/** The HTTP built-ins. */
export const HTTP = [httpSend] as const
