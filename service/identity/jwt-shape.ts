/**
 * Telling a JWT apart from an API token before anything is verified, and reading the two
 * unverified things verification needs to start: the header (`alg`, `kid`) and the `iss` that
 * picks the provider. Nothing read here is trusted; the verifier checks it all again.
 */
import { decodeJwt, decodeProtectedHeader, type JWSHeaderParameters } from 'jose'

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/** True when `token` is three base64url parts whose first decodes to a JSON header with `alg`. */
export function looksLikeJwt(token: string): boolean {
  if (!COMPACT_JWS.test(token)) return false
  try {
    return typeof decodeProtectedHeader(token).alg === 'string'
  } catch {
    return false
  }
}

/** The token's header and unverified `iss`, or undefined when the payload is not a JSON object. */
export function peekJwt(token: string): { header: JWSHeaderParameters; issuer: unknown } | undefined {
  try {
    return { header: decodeProtectedHeader(token) as JWSHeaderParameters, issuer: decodeJwt(token).iss }
  } catch {
    return undefined
  }
}
