/**
 * A provider's JWKS URL as a key resolver: jose's remote key set (cached for
 * `jwks_cache_seconds`, refetched for an unknown `kid` at most once per
 * `jwks_refresh_cooldown_seconds`), plus a cooldown after a failed fetch.
 *
 * NOTE(identity): jose remembers only successful fetches. While the JWKS endpoint is down, every
 * request that needs keys would fetch again, each waiting up to `jwks_timeout_ms`: a login storm
 * becomes a load on the provider and a queue of slow 503s. For `jwks_failure_cooldown_seconds`
 * after a failed fetch, requests are answered from the keys last fetched when they hold the
 * token's key, and otherwise fail at once with KeysUnavailableError (503), without fetching.
 */
import {
  type CryptoKey,
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors as joseErrors,
} from 'jose'
import type { IdentityProviderConfig } from './config.js'
import type { KeyResolver } from './key-sets.js'

/** The provider's keys cannot be had now: the last fetch failed and its cooldown is running. */
export class KeysUnavailableError extends Error {
  constructor(
    message: string,
    /** Seconds until the next fetch may be tried. */
    readonly retryAfterSeconds: number,
  ) {
    super(message)
    this.name = 'KeysUnavailableError'
  }
}

/** Errors that say the fetched keys do not fit the token, not that fetching failed. */
function isKeyMismatch(err: unknown): boolean {
  return (
    err instanceof joseErrors.JWKSNoMatchingKey ||
    err instanceof joseErrors.JWKSMultipleMatchingKeys ||
    err instanceof joseErrors.JOSENotSupported ||
    err instanceof joseErrors.JOSEAlgNotAllowed
  )
}

/** A resolver for `provider.jwks_url` (which must be set). */
export function remoteKeySet(provider: IdentityProviderConfig, now: () => number = Date.now): KeyResolver {
  let fetches = 0
  const remote = createRemoteJWKSet(new URL(provider.jwks_url!), {
    timeoutDuration: provider.jwks_timeout_ms,
    cooldownDuration: provider.jwks_refresh_cooldown_seconds * 1000,
    cacheMaxAge: provider.jwks_cache_seconds * 1000,
    [customFetch]: (url, init) => {
      fetches++
      return fetch(url, init)
    },
  })
  const cooldownMs = provider.jwks_failure_cooldown_seconds * 1000
  let failedAt: number | undefined

  return async (header, token) => {
    const sinceFailure = failedAt === undefined ? Number.POSITIVE_INFINITY : now() - failedAt
    if (sinceFailure < cooldownMs) {
      const last = remote.jwks()
      if (last !== undefined) {
        try {
          return (await createLocalJWKSet(last)(header, token)) as CryptoKey
        } catch (err) {
          if (!(err instanceof joseErrors.JWKSNoMatchingKey)) throw err
        }
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((cooldownMs - sinceFailure) / 1000))
      throw new KeysUnavailableError(
        `the keys of identity provider ${provider.id} are unavailable: fetching its JWKS failed ${Math.floor(sinceFailure / 1000)} s ago; the next attempt is in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      )
    }
    const fetchesBefore = fetches
    try {
      const key = (await remote(header, token)) as CryptoKey
      failedAt = undefined
      return key
    } catch (err) {
      if (fetches !== fetchesBefore && !isKeyMismatch(err)) failedAt = now()
      throw err
    }
  }
}
