/**
 * The verification keys of one provider, as a jose key resolver. A JWKS URL is fetched by jose's
 * remote key set (remote-key-set.ts): cached for `jwks_cache_seconds`, fetched again when a token
 * names a `kid` the cache lacks (at most once per `jwks_refresh_cooldown_seconds`, so a stream of
 * tokens with made-up key ids cannot turn the service into a load generator), each fetch bounded
 * by `jwks_timeout_ms`, and not retried for `jwks_failure_cooldown_seconds` after it failed.
 * A JWKS file is read at start and re-read, under the same cooldown, when a `kid` is unknown.
 */
import { readFileSync } from 'node:fs'
import {
  type CryptoKey,
  createLocalJWKSet,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
  errors as joseErrors,
} from 'jose'
import type { IdentityProviderConfig } from './config.js'
import { remoteKeySet } from './remote-key-set.js'

/** Resolves the key a token's header names (what jose's jwtVerify takes). */
export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>

/**
 * A resolver for `provider`'s keys.
 * @throws Error naming the provider when its JWKS file cannot be read or is not a JWKS.
 */
export function providerKeySet(provider: IdentityProviderConfig): KeyResolver {
  if (provider.jwks_url !== undefined) return remoteKeySet(provider)
  return fileKeySet(provider.jwks_file!, provider.id, provider.jwks_refresh_cooldown_seconds * 1000)
}

function fileKeySet(file: string, providerId: string, cooldownMs: number): KeyResolver {
  let local = createLocalJWKSet(readJwksFile(file, providerId))
  let readAt = Date.now()
  return async (header, token) => {
    try {
      return (await local(header, token)) as CryptoKey
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey) || Date.now() - readAt < cooldownMs) throw err
      // The provider may have rotated its keys since the file was read.
      local = createLocalJWKSet(readJwksFile(file, providerId))
      readAt = Date.now()
      return (await local(header, token)) as CryptoKey
    }
  }
}

function readJwksFile(file: string, providerId: string): JSONWebKeySet {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(
      `identity provider ${providerId}: jwks_file ${file} cannot be read as JSON: ${(err as Error).message}`,
    )
  }
  if (parsed === null || typeof parsed !== 'object' || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new Error(`identity provider ${providerId}: jwks_file ${file} is not a JWKS ({"keys": [...]})`)
  }
  return parsed as JSONWebKeySet
}
