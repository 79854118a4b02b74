/**
 * Bearer-token authentication: a missing, unknown or expired token gets 401; a valid token
 * outside its `allow_path_patterns` gets 403 (what it may do is decided afterwards by
 * service/authz/). Secrets are compared by hash in constant time and never
 * logged (the request log line carries no headers).
 */
import type { MiddlewareHandler } from 'hono'
import type { RE2JS } from 're2js'
import { forbidden, unauthorized } from '../core/http/index.js'
import { re2 } from '../core/rego/builtins/re2.js'
import type { ServiceStore, TokenRow } from '../store/service/index.js'
import { isSharedSecretRoute } from './authz/route-table.js'
import { authenticateJwt } from './identity/authenticate-jwt.js'
import type { IdentityVerifier } from './identity/verifier.js'
import { hashesEqual, hashSecret } from './token-secrets.js'
import type { Principal, ServiceEnv } from './types.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

/**
 * Middleware that resolves the bearer token to `c.var.principal`: an API token, else (when
 * identity providers are configured) a JWT one of them signed.
 */
export function authenticate(
  store: ServiceStore,
  identity?: IdentityVerifier,
): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    // Webhooks carry no token: the route checks them against its shared secret (route-table.ts).
    if (isSharedSecretRoute(c.req.method, c.req.path)) return next()
    const header = c.req.header('Authorization')
    if (!header) throw unauthorized('missing Authorization: Bearer <token> header')
    const secret = BEARER.exec(header)?.[1]
    if (!secret) throw unauthorized('malformed Authorization header: expected "Bearer <token>"')
    const hash = hashSecret(secret)
    const row = await store.tokens.findByHashCached(hash)
    if (!row && identity?.enabled) {
      const user = await authenticateJwt(identity, secret)
      if (user) {
        c.set('principal', user)
        return next()
      }
    }
    // The lookup is by hash; compare again in constant time so equality is never decided byte by byte on the secret.
    if (!row || !hashesEqual(row.secret_hash, hash)) throw unauthorized('invalid bearer token')
    if (Date.parse(row.expires_at) <= Date.now()) throw unauthorized(`token ${row.id} has expired`)
    if (!pathAllowed(row, c.req.path)) throw forbidden(`token ${row.id} is not allowed on path ${c.req.path}`)
    c.set('principal', principalOf(row))
    await next()
  }
}

/**
 * The principal `authenticate` would set for this `Authorization` header, decided from the
 * store's read cache alone (no await): undefined whenever it would read the database, try a
 * JWT or refuse, so the caller (the bundle fast path) hands those requests to the app.
 */
export function cachedTokenPrincipal(
  store: ServiceStore,
  header: string | undefined,
  path: string,
): Principal | undefined {
  const secret = header === undefined ? undefined : BEARER.exec(header)?.[1]
  if (!secret) return undefined
  const hash = hashSecret(secret)
  const row = store.tokens.findByHashIfCached(hash)
  if (!row || !hashesEqual(row.secret_hash, hash)) return undefined
  if (Date.parse(row.expires_at) <= Date.now() || !pathAllowed(row, path)) return undefined
  return principalOf(row)
}

// One principal per cached row object: the row is reused while cached, and a new row (after any
// token write) gets a new principal, so nothing derived from an old row outlives it.
const principals = new WeakMap<TokenRow, Principal>()

function principalOf(row: TokenRow): Principal {
  let principal = principals.get(row)
  if (!principal) {
    principal = newPrincipal(row)
    principals.set(row, principal)
  }
  return principal
}

function newPrincipal(row: TokenRow): Principal {
  return { kind: 'token', id: row.id, roles: new Set(parseStringArray(row.roles)), systemId: row.system_id }
}

// Compiled allow_path_patterns per token row text; RE2 keeps user regexes linear-time.
const compiled = new Map<string, RE2JS[]>()
const MAX_CACHED = 1000

/** An empty list allows every path (as upstream); otherwise one pattern must match the whole path. */
export function pathAllowed(row: TokenRow, path: string): boolean {
  let patterns = compiled.get(row.allow_path_patterns)
  if (!patterns) {
    patterns = parseStringArray(row.allow_path_patterns).map((p) => {
      try {
        return re2().compile(p)
      } catch {
        return re2().compile('[^\\s\\S]') // validated on write; an unreadable pattern matches nothing
      }
    })
    if (compiled.size >= MAX_CACHED) compiled.clear()
    compiled.set(row.allow_path_patterns, patterns)
  }
  return patterns.length === 0 || patterns.some((re) => re.matches(path))
}

/** Validates an allow_path_patterns entry; returns the reason it is unusable, else undefined. */
export function checkPathPattern(pattern: string): string | undefined {
  try {
    re2().compile(pattern)
    return undefined
  } catch (err) {
    return (err as Error).message
  }
}

function parseStringArray(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text)
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
  } catch {
    return []
  }
}
