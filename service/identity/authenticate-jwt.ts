/**
 * The step `authenticate()` takes for a bearer that is no API token: when it has the shape of a
 * JWT, it must verify with a configured identity provider (else 401, or 503 when the provider's
 * keys cannot be fetched); anything else is left to the token check's "invalid bearer token".
 */
import { serviceUnavailable, unauthorized } from '../../core/http/index.js'
import type { Principal } from '../types.js'
import { looksLikeJwt } from './jwt-shape.js'
import { IdentityError, type IdentityVerifier } from './verifier.js'

/**
 * The user `bearer` stands for, or undefined when it is not JWT-shaped.
 * @throws HttpError 401 (503) with the verifier's reason, which never quotes the token.
 */
export async function authenticateJwt(
  identity: IdentityVerifier,
  bearer: string,
): Promise<Principal | undefined> {
  if (!looksLikeJwt(bearer)) return undefined
  try {
    return await identity.verify(bearer)
  } catch (err) {
    if (!(err instanceof IdentityError)) throw err
    if (err.status === 503) throw serviceUnavailable(err.message, err.retryAfterSeconds)
    throw unauthorized(err.message)
  }
}
