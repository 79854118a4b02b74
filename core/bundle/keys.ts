/**
 * Keys for bundle signatures, as OPA accepts them: HS256/384/512 take the secret's bytes;
 * RS, PS and ES 256/384/512 take PEM — private keys in PKCS#8, PKCS#1 or SEC1 for signing, public
 * keys in PKIX or PKCS#1, or an X.509 certificate, for verification. node:crypto parses every
 * PEM form; jose signs and verifies with the resulting KeyObject.
 */
import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto'
import { bundleError, reason } from './errors.js'

/** The JWS algorithms OPA supports for bundle signatures. */
export const SIGNING_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const

/** The default algorithm of `opa build`, `opa sign` and OPA's `keys` configuration. */
export const DEFAULT_SIGNING_ALGORITHM = 'RS256'

/**
 * The canonical name of a supported algorithm (case-insensitive), or a `BundleError` naming it.
 * @example checkAlgorithm('es256') // 'ES256'
 */
export function checkAlgorithm(algorithm: string | undefined, what: string): string {
  const name = (algorithm ?? DEFAULT_SIGNING_ALGORITHM).toUpperCase()
  if (!(SIGNING_ALGORITHMS as readonly string[]).includes(name)) {
    throw bundleError(
      'bundle_verification_key',
      `${what}: unsupported signing algorithm ${JSON.stringify(algorithm)} (use one of ${SIGNING_ALGORITHMS.join(', ')})`,
    )
  }
  return name
}

/** The key that signs with `algorithm`: the HMAC secret, or the parsed PEM private key. */
export function signingKey(key: string | Uint8Array, algorithm: string): KeyObject {
  try {
    if (algorithm.startsWith('HS'))
      return createSecretKey(typeof key === 'string' ? Buffer.from(key, 'utf8') : key)
    return createPrivateKey(typeof key === 'string' ? key : Buffer.from(key))
  } catch (err) {
    throw bundleError(
      'bundle_signing_error',
      `signing key is not usable for ${algorithm}: ${reason(err)} (expected ${algorithm.startsWith('HS') ? 'a secret' : 'a PEM private key'})`,
      err,
    )
  }
}

/** The key that verifies `algorithm`: the HMAC secret, or the PEM public key or certificate. */
export function verificationKey(key: string, algorithm: string, keyId: string): KeyObject {
  try {
    if (algorithm.startsWith('HS')) return createSecretKey(Buffer.from(key, 'utf8'))
    return createPublicKey(key)
  } catch (err) {
    throw bundleError(
      'bundle_verification_key',
      `verification key ${JSON.stringify(keyId)} is not usable for ${algorithm}: ${reason(err)}`,
      err,
    )
  }
}
