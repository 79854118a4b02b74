/**
 * `--authentication token|tls` as OPA's server identifies callers: `token` takes the bearer token
 * of the `Authorization` header as the identity; `tls` takes the subject of the verified client
 * certificate (RFC 2253 order, as Go's `pkix.RDNSequence.String()`) and keeps the peer chain for
 * `input.client_certificates`. Neither refuses a request by itself: authentication only names the
 * caller, `--authorization basic` decides (OPA behaves the same way).
 */

import { X509Certificate } from 'node:crypto'
import type { TLSSocket } from 'node:tls'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../core/http/index.js'

export type AuthenticationScheme = 'off' | 'token' | 'tls'

/** One client certificate as `input.client_certificates` shows it (regent's form, see docs/run.md). */
export interface ClientCertificate {
  subject: string
  issuer: string
  serial_number: string
  not_before: string
  not_after: string
  /** The DER bytes, base64 (Go's `Raw`). */
  raw: string
}

/** The caller as authentication found it; kept on the request for the authorizer. */
export interface CallerIdentity {
  identity?: string
  clientCertificates?: ClientCertificate[]
}

const identities = new WeakMap<Request, CallerIdentity>()

/** What authentication found for this request (empty when it is off or found nothing). */
export function callerOf(request: Request): CallerIdentity {
  return identities.get(request) ?? {}
}

/** The middleware for a scheme; undefined for `off`. */
export function authenticationMiddleware(
  scheme: AuthenticationScheme,
): MiddlewareHandler<AppEnv> | undefined {
  if (scheme === 'off') return undefined
  return async (c, next) => {
    const found = scheme === 'token' ? bearerIdentity(c.req.header('Authorization')) : tlsIdentity(c.env)
    identities.set(c.req.raw, found)
    await next()
  }
}

/** OPA: `Authorization: Bearer <token>` (scheme case-insensitive); anything else is no identity. */
export function bearerIdentity(header: string | undefined): CallerIdentity {
  if (!header) return {}
  const space = header.indexOf(' ')
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return {}
  return { identity: header.slice(space + 1) }
}

// @hono/node-server hands the Node request to the app as `env.incoming`.
function tlsIdentity(env: unknown): CallerIdentity {
  const socket = (env as { incoming?: { socket?: Partial<TLSSocket> } } | undefined)?.incoming?.socket
  if (typeof socket?.getPeerCertificate !== 'function' || socket.authorized !== true) return {}
  const chain: X509Certificate[] = []
  let peer = socket.getPeerCertificate(true)
  const seen = new Set<string>()
  while (peer?.raw && !seen.has(peer.fingerprint256)) {
    seen.add(peer.fingerprint256)
    chain.push(new X509Certificate(peer.raw))
    peer = peer.issuerCertificate
  }
  const leaf = chain[0]
  if (!leaf) return {}
  return { identity: rfc2253(leaf.subject), clientCertificates: chain.map(describe) }
}

/**
 * Node prints a subject one attribute per line in certificate order; Go's `String()` joins them
 * most specific first with commas, escaping the RFC 2253 specials.
 */
export function rfc2253(subject: string): string {
  return subject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .map((line) => {
      const eq = line.indexOf('=')
      const value = line.slice(eq + 1).replace(/([,+"\\<>;])/g, '\\$1')
      return `${line.slice(0, eq)}=${value}`
    })
    .join(',')
}

function describe(cert: X509Certificate): ClientCertificate {
  return {
    subject: rfc2253(cert.subject),
    issuer: rfc2253(cert.issuer),
    serial_number: BigInt(`0x${cert.serialNumber}`).toString(10),
    not_before: new Date(cert.validFrom).toISOString(),
    not_after: new Date(cert.validTo).toISOString(),
    raw: cert.raw.toString('base64'),
  }
}
