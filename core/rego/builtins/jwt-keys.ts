/**
 * JWS algorithms and keys for io.jwt.*: keys come as PEM certificates, PEM public keys, JWKs or
 * JWK sets; signing and verification use node:crypto synchronously.
 *
 * NOTE(builtins): jose's sign and verify functions are asynchronous (WebCrypto), while built-ins
 * run synchronously inside the evaluator, so the JWS primitives here use node:crypto directly.
 */
import {
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  verify as cryptoVerify,
  type KeyObject,
  timingSafeEqual,
  X509Certificate,
} from 'node:crypto'
import { BuiltinError } from './errors.js'

/** JWS algorithms OPA supports. */
export type JwsAlg =
  | 'HS256'
  | 'HS384'
  | 'HS512'
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA'

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' }

/** True for the algorithms above. */
export function isJwsAlg(alg: unknown): alg is JwsAlg {
  return typeof alg === 'string' && /^(HS|RS|PS|ES)(256|384|512)$|^EdDSA$/.test(alg)
}

/** A verification key: an HMAC secret or a public key (with its JWK kid/alg when known). */
export type VerifyKey =
  | { kind: 'secret'; secret: Buffer; kid?: string; alg?: string }
  | { kind: 'public'; key: KeyObject; kid?: string; alg?: string }

/**
 * The keys OPA tries for a token, as builtinJWTVerify and tokenConstraints.verify choose them:
 * when the header's `kid` names a key, that key alone (its verdict is final); otherwise every key
 * whose JWK `alg`, when it names one, is the header's `alg`.
 */
export function keysToTry(keys: VerifyKey[], kid: unknown, alg: unknown): VerifyKey[] {
  if (typeof kid === 'string' && kid !== '') {
    const named = keys.find((k) => k.kid === kid)
    if (named) return [named]
  }
  return keys.filter((k) => !k.alg || k.alg === alg)
}

function keyFamily(alg: JwsAlg): string {
  return alg.slice(0, 2)
}

/** Verifies `signature` over `input` with `alg`; false when the key does not fit the algorithm. */
export function verifySignature(alg: JwsAlg, input: string, signature: Buffer, key: VerifyKey): boolean {
  const family = keyFamily(alg)
  if (family === 'HS') {
    if (key.kind !== 'secret') return false
    const mac = createHmac(HASH[alg.slice(2)] as string, key.secret)
      .update(input)
      .digest()
    return mac.length === signature.length && timingSafeEqual(mac, signature)
  }
  if (key.kind !== 'public') return false
  const type = key.key.asymmetricKeyType
  try {
    switch (family) {
      case 'RS':
        return (
          type === 'rsa' && cryptoVerify(HASH[alg.slice(2)] as string, Buffer.from(input), key.key, signature)
        )
      case 'PS':
        return (
          (type === 'rsa' || type === 'rsa-pss') &&
          cryptoVerify(
            HASH[alg.slice(2)] as string,
            Buffer.from(input),
            {
              key: key.key,
              padding: constants.RSA_PKCS1_PSS_PADDING,
              saltLength: constants.RSA_PSS_SALTLEN_AUTO,
            },
            signature,
          )
        )
      case 'ES':
        return (
          type === 'ec' &&
          cryptoVerify(
            HASH[alg.slice(2)] as string,
            Buffer.from(input),
            { key: key.key, dsaEncoding: 'ieee-p1363' },
            signature,
          )
        )
      default:
        return (
          (type === 'ed25519' || type === 'ed448') &&
          cryptoVerify(null, Buffer.from(input), key.key, signature)
        )
    }
  } catch {
    return false
  }
}

/**
 * The JWK io.jwt.encode_sign signs with. OPA reads its key argument with jwk.Parse, which takes a
 * single JWK or a JWK set and signs with the set's first key: a set's `keys` must be an array of
 * JWK objects, and a set whose `keys` is empty (or null) is read as one JWK, which then fails.
 */
export function signingJwk(jwk: Record<string, unknown>): Record<string, unknown> {
  const keys = jwk.keys
  if (keys === undefined || keys === null) return jwk
  if (!Array.isArray(keys)) throw new BuiltinError('failed to parse a JWK key set: "keys" is not an array')
  if (keys.length === 0) return jwk
  for (const key of keys)
    if (typeof key !== 'object' || key === null || Array.isArray(key))
      throw new BuiltinError('failed to parse a JWK key set: a key is not an object')
  return keys[0] as Record<string, unknown>
}

/** Signs `input` with a private JWK (or an `oct` secret). */
export function signWithJwk(alg: JwsAlg, input: string, jwk: Record<string, unknown>): Buffer {
  const family = keyFamily(alg)
  if (family === 'HS') {
    if (jwk.kty !== 'oct' || typeof jwk.k !== 'string')
      throw new BuiltinError(`invalid key for ${alg}: expected an "oct" JWK`)
    return createHmac(HASH[alg.slice(2)] as string, Buffer.from(jwk.k, 'base64url'))
      .update(input)
      .digest()
  }
  let key: KeyObject
  try {
    key = createPrivateKey({ key: jwk as never, format: 'jwk' })
  } catch (err) {
    throw new BuiltinError(`failed to parse private JWK: ${err instanceof Error ? err.message : String(err)}`)
  }
  const data = Buffer.from(input)
  switch (family) {
    case 'RS':
      return cryptoSign(HASH[alg.slice(2)] as string, data, key)
    case 'PS': {
      const digestLength = Number(alg.slice(2)) / 8
      return cryptoSign(HASH[alg.slice(2)] as string, data, {
        key,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: digestLength,
      })
    }
    case 'ES':
      return cryptoSign(HASH[alg.slice(2)] as string, data, { key, dsaEncoding: 'ieee-p1363' })
    default:
      return cryptoSign(null, data, key)
  }
}

/** The first PEM block of `text` as Go's pem.Decode finds it (leading text skipped), or undefined. */
function firstPemBlock(text: string): { type: string; der: Buffer; rest: string } | undefined {
  for (let at = text.indexOf('-----BEGIN '); at !== -1; at = text.indexOf('-----BEGIN ', at + 1)) {
    const head = /^-----BEGIN ([^\r\n]*)-----[ \t]*\r?\n/.exec(text.slice(at))
    if (!head) continue
    const type = head[1] as string
    const bodyStart = at + head[0].length
    const end = text.indexOf(`-----END ${type}-----`, bodyStart)
    if (end === -1) continue
    const body = text.slice(bodyStart, end).replace(/\s+/g, '')
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) continue
    let restAt = end + `-----END ${type}-----`.length
    const newline = text.indexOf('\n', restAt)
    restAt = newline === -1 ? text.length : newline + 1
    return { type, der: Buffer.from(body, 'base64'), rest: text.slice(restAt) }
  }
  return undefined
}

/**
 * Public keys from a certificate, a PEM public key, a JWK or a JWK set, as OPA's
 * getKeysFromCertOrJWK reads them: only CERTIFICATE and PUBLIC KEY blocks, nothing after the
 * block. Go's x509 error texts are not reproduced past the generic `x509: malformed certificate`.
 */
export function publicKeys(text: string): VerifyKey[] {
  const block = firstPemBlock(text)
  if (block) {
    if (block.rest.length > 0) throw new BuiltinError('extra data after a PEM certificate block')
    if (block.type === 'CERTIFICATE') {
      try {
        return [{ kind: 'public', key: new X509Certificate(block.der).publicKey }]
      } catch {
        throw new BuiltinError('failed to parse a PEM certificate: x509: malformed certificate')
      }
    }
    if (block.type === 'PUBLIC KEY') {
      try {
        return [{ kind: 'public', key: createPublicKey({ key: block.der, format: 'der', type: 'spki' }) }]
      } catch {
        throw new BuiltinError('failed to parse a PEM public key: x509: malformed public key')
      }
    }
    throw new BuiltinError('failed to extract a Key from the PEM certificate')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new BuiltinError('failed to parse a JWK key (set)')
  }
  const list = Array.isArray((parsed as { keys?: unknown }).keys)
    ? (parsed as { keys: unknown[] }).keys
    : [parsed]
  const out: VerifyKey[] = []
  for (const jwk of list) {
    if (typeof jwk !== 'object' || jwk === null) throw new BuiltinError('failed to parse a JWK key (set)')
    const j = jwk as Record<string, unknown>
    // OPA skips a JWK whose `alg` is not a JWS algorithm it knows (an encryption key, say).
    if (typeof j.alg === 'string' && j.alg !== '' && !isJwsAlg(j.alg)) continue
    const named = {
      ...(typeof j.kid === 'string' ? { kid: j.kid } : {}),
      ...(typeof j.alg === 'string' ? { alg: j.alg } : {}),
    }
    try {
      if (j.kty === 'oct' && typeof j.k === 'string')
        out.push({ kind: 'secret', secret: Buffer.from(j.k, 'base64url'), ...named })
      else out.push({ kind: 'public', key: createPublicKey({ key: j as never, format: 'jwk' }), ...named })
    } catch {
      throw new BuiltinError('failed to parse a JWK key (set)')
    }
  }
  return out
}
