/**
 * The JWS algorithms identity-provider tokens may be signed with: asymmetric only. `none` would
 * let anyone mint a token, and HS* would let anyone holding the provider's public key do so (the
 * classic confusion of a public key used as an HMAC secret).
 */

/** Accepted `alg` values. */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const

const ACCEPTED: ReadonlySet<string> = new Set(ACCEPTED_ALGORITHMS)

/** True when `alg` is an accepted asymmetric algorithm. */
export function isAcceptedAlgorithm(alg: unknown): alg is string {
  return typeof alg === 'string' && ACCEPTED.has(alg)
}
