/**
 * Verification of identity-provider JWTs. The provider is picked by the token's (unverified)
 * `iss`; then jose checks the signature against that provider's keys with asymmetric algorithms
 * only, and the issuer, audience, `exp` (required), `nbf` and `iat` with the provider's clock
 * tolerance. A verified token is the user named by the provider's `user_claim`.
 *
 * Failures are IdentityErrors whose messages say what is wrong with the token without quoting it
 * (the token is a credential; even an expired one is not echoed).
 */
import { type JWTPayload, errors as joseErrors, jwtVerify } from 'jose'
import type { Principal } from '../types.js'
import { ACCEPTED_ALGORITHMS, isAcceptedAlgorithm } from './algorithms.js'
import type { IdentityProviderConfig } from './config.js'
import { peekJwt } from './jwt-shape.js'
import { type KeyResolver, providerKeySet } from './key-sets.js'
import { KeysUnavailableError } from './remote-key-set.js'

/** Why a JWT was not accepted: 401 for the token, 503 when the provider's keys cannot be had. */
export class IdentityError extends Error {
  constructor(
    message: string,
    readonly status: 401 | 503 = 401,
    /** For 503: seconds after which asking again may succeed. */
    readonly retryAfterSeconds = 5,
  ) {
    super(message)
    this.name = 'IdentityError'
  }
}

interface Provider {
  config: IdentityProviderConfig
  keys: KeyResolver
}

/** Verifies JWTs of the configured providers. */
export class IdentityVerifier {
  private readonly byIssuer: ReadonlyMap<string, Provider>

  /** @throws Error when a provider's JWKS file cannot be read. */
  constructor(providers: readonly IdentityProviderConfig[]) {
    this.byIssuer = new Map(
      providers.map((config) => [config.issuer, { config, keys: providerKeySet(config) }]),
    )
  }

  /** True when at least one provider is configured. */
  get enabled(): boolean {
    return this.byIssuer.size > 0
  }

  /**
   * The user a JWT stands for.
   * @throws IdentityError saying why the token is not accepted.
   */
  async verify(token: string): Promise<Principal> {
    const peeked = peekJwt(token)
    if (!peeked) throw new IdentityError('malformed JWT: its header or payload is not base64url JSON')
    const alg = peeked.header.alg
    if (!isAcceptedAlgorithm(alg)) {
      throw new IdentityError(
        `JWT signed with algorithm ${quote(alg)}, which is not accepted (use one of ${ACCEPTED_ALGORITHMS.join(', ')})`,
      )
    }
    if (typeof peeked.issuer !== 'string') throw new IdentityError('JWT has no "iss" claim')
    const provider = this.byIssuer.get(peeked.issuer)
    if (!provider)
      throw new IdentityError(
        `no identity provider is configured for the JWT's issuer ${quote(peeked.issuer)}`,
      )
    const { config } = provider
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, provider.keys, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: [...ACCEPTED_ALGORITHMS],
        clockTolerance: config.clock_tolerance_seconds,
        requiredClaims: ['exp'],
      }))
    } catch (err) {
      throw describeFailure(err, config, peeked.header.kid)
    }
    const user = payload[config.user_claim]
    if (typeof user !== 'string' || user === '') {
      throw new IdentityError(
        `JWT of identity provider ${config.id} has no string "${config.user_claim}" claim to name the user by`,
      )
    }
    return { kind: 'user', id: user, roles: new Set(), systemId: null, provider: config.id, claims: payload }
  }
}

/** An IdentityError for what jose (or fetching the keys) refused. */
function describeFailure(err: unknown, config: IdentityProviderConfig, kid: unknown): IdentityError {
  const who = `identity provider ${config.id}`
  if (err instanceof KeysUnavailableError) return new IdentityError(err.message, 503, err.retryAfterSeconds)
  if (err instanceof joseErrors.JWTExpired) return new IdentityError(`JWT of ${who} has expired`)
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case 'nbf':
        return new IdentityError(`JWT of ${who} is not valid yet (nbf is in the future)`)
      case 'iat':
        return new IdentityError(`JWT of ${who} was issued in the future (iat)`)
      case 'aud':
        return new IdentityError(
          `JWT of ${who} is not meant for this service: its "aud" does not include ${[config.audience].flat().join(' or ')}`,
        )
      case 'exp':
        return new IdentityError(`JWT of ${who} has no valid "exp" claim (tokens must expire)`)
      default:
        return new IdentityError(`JWT of ${who} has an invalid "${err.claim}" claim (${err.reason})`)
    }
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) {
    const named = typeof kid === 'string' ? `key id ${quote(kid)}` : 'no key id'
    return new IdentityError(`JWT names ${named}, which matches no key of ${who} (after refreshing its keys)`)
  }
  if (err instanceof joseErrors.JWKSMultipleMatchingKeys) {
    return new IdentityError(`JWT has no key id and ${who} has several keys for its algorithm`)
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return new IdentityError(`JWT signature does not verify with the keys of ${who}`)
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return new IdentityError('JWT algorithm is not accepted')
  if (err instanceof joseErrors.JWKSTimeout) {
    return new IdentityError(`the keys of ${who} could not be fetched in time`, 503)
  }
  if (err instanceof joseErrors.JWTInvalid || err instanceof joseErrors.JWSInvalid) {
    return new IdentityError(`malformed JWT: ${err.message}`)
  }
  if (
    err instanceof joseErrors.JWKSInvalid ||
    (err instanceof joseErrors.JOSEError && err.code === 'ERR_JOSE_GENERIC')
  ) {
    // What jose says when the JWKS response is not a 200 with a key set.
    return new IdentityError(`the keys of ${who} are unavailable: ${err.message}`, 503)
  }
  if (err instanceof joseErrors.JOSEError)
    return new IdentityError(`JWT of ${who} is not accepted (${err.code})`)
  // Anything else is a failure to get the keys (network error, bad JWKS response, unreadable file).
  return new IdentityError(`the keys of ${who} are unavailable: ${(err as Error).message}`, 503)
}

function quote(value: unknown): string {
  return JSON.stringify(String(value).slice(0, 100))
}
