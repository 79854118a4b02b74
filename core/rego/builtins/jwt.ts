/**
 * io.jwt.*: decoding, signature verification (HS, RS, PS, ES, EdDSA), verification with claim
 * constraints (decode_verify), and signing. Messages follow OPA's where its tests check them.
 */
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import {
  isNumberValue,
  isObject,
  ObjectValue as Obj,
  parseJSON,
  toDecimal,
  toJSONText,
} from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { decodeBase64Url } from './encoding.js'
import { BuiltinError } from './errors.js'
import { goJSONDecodeError } from './go-json-error.js'
import { checkConstraints, validHeader } from './jwt-constraints.js'
import {
  isJwsAlg,
  type JwsAlg,
  keysToTry,
  publicKeys,
  signingJwk,
  signWithJwk,
  type VerifyKey,
  verifySignature,
} from './jwt-keys.js'
import { objectOperand, stringOperand } from './operands.js'

/** A JWS split into its parts; the payload stays encoded, since only some built-ins read it. */
interface DecodedJwt {
  header: ObjectValue
  /** The payload as base64url text. */
  encodedPayload: string
  signature: Buffer
  /** `header.payload`, the signed input. */
  input: string
}

function b64(part: string, what: string): Buffer {
  try {
    return decodeBase64Url(part)
  } catch (err) {
    throw new BuiltinError(
      `JWT ${what} had invalid encoding: ${err instanceof Error ? err.message : String(err)}`,
    )
  }
}

/** The three base64url parts of a compact JWS (OPA's decodeJWT), none decoded yet. */
interface JwtParts {
  header: string
  payload: string
  signature: string
}

function splitJwt(token: string): JwtParts {
  if (!token.includes('.')) throw new BuiltinError('encoded JWT had no period separators')
  const parts = token.split('.')
  if (parts.length !== 3) throw new BuiltinError(`encoded JWT must have 3 sections, found ${parts.length}`)
  const [header = '', payload = '', signature = ''] = parts
  return { header, payload, signature }
}

/** OPA's extractJSONObject: `invalid JSON: <Go's decode error>`, or not an object. */
function jsonObject(text: string): ObjectValue {
  let v: Value
  try {
    v = parseJSON(text)
  } catch {
    throw new BuiltinError(`invalid JSON: ${goJSONDecodeError(text) ?? 'unexpected end of JSON input'}`)
  }
  if (!isObject(v)) throw new BuiltinError('decoded JSON type was not an Object')
  return v
}

/** The JOSE header (OPA's decodeHeader and validateJWTHeader). */
function decodeHeader(part: string): ObjectValue {
  const text = b64(part, 'header').toString('utf8')
  let header: ObjectValue
  try {
    header = jsonObject(text)
  } catch (err) {
    throw new BuiltinError(`bad JWT header: ${(err as Error).message}`)
  }
  if (header.has('enc')) throw new BuiltinError('JWT is a JWE object, which is not supported')
  return header
}

/** The signature bytes; the verify built-ins report a bad encoding without a prefix, as OPA does. */
function decodeSignature(part: string): Buffer {
  return decodeBase64Url(part)
}

/**
 * Splits a compact JWS and decodes its header and signature, one layer only, in OPA's
 * decode_verify order: header first, then signature. OPA's verify_* built-ins never read the
 * payload, so a payload that is not JSON is no error for them.
 */
export function decodeJwt(token: string): DecodedJwt {
  const parts = splitJwt(token)
  const header = decodeHeader(parts.header)
  const signature = decodeSignature(parts.signature)
  return { header, encodedPayload: parts.payload, signature, input: `${parts.header}.${parts.payload}` }
}

/** The payload's bytes as text. */
function payloadText(jwt: DecodedJwt): string {
  return b64(jwt.encodedPayload, 'payload').toString('utf8')
}

/** The payload as the claims object OPA requires (`extractJSONObject`). */
function claims(text: string): ObjectValue {
  return jsonObject(text)
}

/**
 * io.jwt.decode's reading, in OPA's order (header, payload, signature): a `cty: JWT` payload is
 * another token, quoted as jwt.io quotes it.
 */
function decodeNested(token: string): [ObjectValue, ObjectValue, Buffer] {
  const parts = splitJwt(token)
  const header = decodeHeader(parts.header)
  const text = b64(parts.payload, 'payload').toString('utf8')
  if (header.get('cty') === 'JWT') return decodeNested(text.replace(/^["']+|["']+$/g, ''))
  const payload = claims(text)
  return [header, payload, b64(parts.signature, 'signature')]
}

export const jwtDecode = defineBuiltin({
  name: 'io.jwt.decode',
  category: 'tokens',
  description: 'Decodes a JSON Web Token and outputs it as an object.',
  args: [t.named('jwt', t.string, 'JWT token to decode')],
  result: t.named(
    'output',
    t.tuple(t.object(t.any, t.any), t.object(t.any, t.any), t.string),
    '`[header, payload, sig]`, where `header` and `payload` are objects; `sig` is the hexadecimal representation of the signature on the token.',
  ),
  impl: (_ctx, [j]) => {
    const [header, payload, signature] = decodeNested(stringOperand(j, 1))
    return [header, payload, signature.toString('hex')]
  },
})

function verifier(alg: JwsAlg, keyKind: 'secret' | 'public') {
  return defineBuiltin({
    name: `io.jwt.verify_${alg.toLowerCase()}`,
    category: 'tokens',
    description: `Verifies if a ${alg} JWT signature is valid.`,
    args: [
      t.named('jwt', t.string, `JWT token whose signature is to be verified`),
      t.named(
        keyKind === 'secret' ? 'secret' : 'certificate',
        t.string,
        keyKind === 'secret'
          ? 'plain text secret used to verify the signature'
          : 'PEM encoded certificate, PEM encoded public key, or the JWK key (set) used to verify the signature',
      ),
    ],
    result: t.named('result', t.boolean, '`true` if the signature is valid, `false` otherwise'),
    impl: (_ctx, [j, k]) => {
      // OPA's order: the token's shape, the key, the signature, then (not for HMAC) the header.
      const token = stringOperand(j, 1)
      if (keyKind === 'secret') {
        const secret = stringOperand(k, 2)
        const parts = splitJwt(token)
        const signature = decodeSignature(parts.signature)
        const key: VerifyKey = { kind: 'secret', secret: Buffer.from(secret, 'utf8') }
        return verifySignature(alg, `${parts.header}.${parts.payload}`, signature, key)
      }
      const parts = splitJwt(token)
      const keys = publicKeys(stringOperand(k, 2))
      const signature = decodeSignature(parts.signature)
      const header = decodeHeader(parts.header)
      validHeader(header)
      return keysToTry(keys, header.get('kid'), header.get('alg')).some((key) =>
        verifySignature(alg, `${parts.header}.${parts.payload}`, signature, key),
      )
    },
  })
}

const VERIFIERS = [
  verifier('HS256', 'secret'),
  verifier('HS384', 'secret'),
  verifier('HS512', 'secret'),
  verifier('RS256', 'public'),
  verifier('RS384', 'public'),
  verifier('RS512', 'public'),
  verifier('PS256', 'public'),
  verifier('PS384', 'public'),
  verifier('PS512', 'public'),
  verifier('ES256', 'public'),
  verifier('ES384', 'public'),
  verifier('ES512', 'public'),
  verifier('EdDSA', 'public'),
]

/** Compares an instant in ns with a NumericDate (seconds, maybe fractional): sign of now - date. */
function compareToSeconds(nowNs: bigint, seconds: Value): number {
  if (!isNumberValue(seconds)) throw new BuiltinError('value must be a number')
  const d = toDecimal(seconds)
  const scale = d.exp + 9
  const left = scale >= 0 ? nowNs : nowNs * 10n ** BigInt(-scale)
  const right = scale >= 0 ? d.coef * 10n ** BigInt(scale) : d.coef
  return left < right ? -1 : left > right ? 1 : 0
}

/** One layer's signature under the constraints: header valid, `alg` as required, a key verifies it. */
function signatureVerified(jwt: DecodedJwt, constraints: ObjectValue, keys: VerifyKey[]): boolean {
  if (!validHeader(jwt.header)) return false
  const alg = jwt.header.get('alg')
  if (!isJwsAlg(alg)) return false
  const wantAlg = constraints.get('alg')
  if (wantAlg !== undefined && wantAlg !== alg) return false
  return keysToTry(keys, jwt.header.get('kid'), alg).some((key) =>
    verifySignature(alg, jwt.input, jwt.signature, key),
  )
}

/** The audience check of OPA's `validAudience`: a string equal to the wanted one, or a list holding it. */
function audienceMet(tokenAud: Value | undefined, wanted: string): boolean {
  if (tokenAud === undefined) return wanted === ''
  if (typeof tokenAud === 'string') return tokenAud === wanted
  return Array.isArray(tokenAud) && tokenAud.some((a) => typeof a === 'string' && a === wanted)
}

/** The registered claims against the constraints, in OPA's order (iss, aud, exp, nbf). */
function claimsMet(ctx: BuiltinContext, payload: ObjectValue, constraints: ObjectValue): boolean {
  const iss = constraints.get('iss')
  if (typeof iss === 'string' && iss !== '' && payload.get('iss') !== iss) return false
  const aud = constraints.get('aud')
  if (!audienceMet(payload.get('aud'), typeof aud === 'string' ? aud : '')) return false
  const time = constraints.get('time')
  let now = ctx.timeNs
  if (time !== undefined && isNumberValue(time)) {
    const d = toDecimal(time)
    now = d.exp >= 0 ? d.coef * 10n ** BigInt(d.exp) : d.coef / 10n ** BigInt(-d.exp)
  }
  const exp = payload.get('exp')
  if (exp !== undefined) {
    if (!isNumberValue(exp)) throw new BuiltinError('exp value must be a number')
    if (compareToSeconds(now, exp) >= 0) return false
  }
  const nbf = payload.get('nbf')
  if (nbf !== undefined) {
    if (!isNumberValue(nbf)) throw new BuiltinError('nbf value must be a number')
    if (compareToSeconds(now, nbf) < 0) return false
  }
  return true
}

export const jwtDecodeVerify = defineBuiltin({
  name: 'io.jwt.decode_verify',
  category: 'tokens',
  description:
    'Verifies a JWT signature under parameterized constraints and decodes the claims if it is valid. Supports the following algorithms: HS256, HS384, HS512, RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512, and EdDSA.',
  args: [
    t.named(
      'jwt',
      t.string,
      'JWT token whose signature is to be verified and whose claims are to be checked',
    ),
    t.named('constraints', t.object(t.string, t.any), 'claim verification constraints'),
  ],
  result: t.named(
    'output',
    t.tuple(t.boolean, t.object(t.any, t.any), t.object(t.any, t.any)),
    '`[valid, header, payload]`: if the input token is verified and meets the requirements of `constraints` then `valid` is `true`; `header` and `payload` are objects containing the JOSE header and the JWT claim set; otherwise, `valid` is `false`, `header` and `payload` are `{}`',
  ),
  nondeterministic: true,
  impl: (ctx, [j, c]) => {
    const constraints = objectOperand(c, 2)
    // OPA checks the constraints before it reads the token.
    const keys = checkConstraints(constraints)
    const unverified = [false, new Obj(), new Obj()]
    let token = stringOperand(j, 1)
    // Each layer of a nested token (`cty: JWT`) must verify with the same keys, as in OPA.
    for (;;) {
      const jwt = decodeJwt(token)
      if (!signatureVerified(jwt, constraints, keys)) return unverified
      const text = payloadText(jwt)
      const cty = jwt.header.get('cty')
      if (typeof cty === 'string' && cty.toLowerCase() === 'jwt') {
        token = text
        continue
      }
      const payload = claims(text)
      return claimsMet(ctx, payload, constraints) ? [true, jwt.header, payload] : unverified
    }
  },
})

/** valyala/fastjson's name for a JSON value's type (jwsbb reads headers with it). */
function fastjsonType(v: Value): string {
  if (v === null) return 'null'
  if (typeof v === 'boolean') return String(v)
  if (isNumberValue(v)) return 'number'
  if (isObject(v)) return 'object'
  return 'array'
}

/** Compact JSON of a value with sets as arrays (what OPA signs). */
function claimsJSON(v: Value): string {
  return toJSONText(v, { escapeHTML: true })
}

function signToken(headerText: string, payloadText: string, keyText: string): string {
  let header: Value
  try {
    if (headerText.trim() === '')
      throw new BuiltinError("missing or invalid 'alg' header: cannot parse JSON: cannot parse empty string")
    header = parseJSON(headerText)
  } catch (err) {
    if (err instanceof BuiltinError) throw err
    throw new BuiltinError("missing or invalid 'alg' header: cannot parse JSON")
  }
  if (!isObject(header)) throw new BuiltinError("missing or invalid 'alg' header: cannot parse JSON")
  const alg = header.get('alg')
  if (alg === undefined)
    throw new BuiltinError('missing or invalid \'alg\' header: jwsbb: header "alg" not found')
  if (typeof alg !== 'string')
    throw new BuiltinError(
      `missing or invalid 'alg' header: value doesn't contain string; it contains ${fastjsonType(alg)}`,
    )
  if (!isJwsAlg(alg)) throw new BuiltinError(`unknown JWS algorithm: ${alg}`)
  // OPA (jwsbb.HeaderGetString): a payload must be JSON unless `typ` is a string other than JWT.
  const typ = header.get('typ')
  if (typeof typ !== 'string' || typ === 'JWT') {
    try {
      parseJSON(payloadText)
    } catch {
      throw new BuiltinError('type is JWT but payload is not JSON')
    }
  }
  let jwk: unknown
  try {
    jwk = JSON.parse(keyText)
  } catch {
    throw new BuiltinError('failed to parse a JWK key')
  }
  if (typeof jwk !== 'object' || jwk === null) throw new BuiltinError('failed to parse a JWK key')
  const input = `${Buffer.from(headerText, 'utf8').toString('base64url')}.${Buffer.from(payloadText, 'utf8').toString('base64url')}`
  return `${input}.${signWithJwk(alg, input, signingJwk(jwk as Record<string, unknown>)).toString('base64url')}`
}

export const jwtEncodeSignRaw = defineBuiltin({
  name: 'io.jwt.encode_sign_raw',
  category: 'tokens',
  description: 'Encodes and optionally signs a JSON Web Token.',
  args: [
    t.named('headers', t.string, 'JWS Protected Header'),
    t.named('payload', t.string, 'JWS Payload'),
    t.named('key', t.string, 'JSON Web Key (RFC7517)'),
  ],
  result: t.named('output', t.string, 'signed JWT'),
  nondeterministic: true,
  impl: (_ctx, [h, p, k]) => signToken(stringOperand(h, 1), stringOperand(p, 2), stringOperand(k, 3)),
})

export const jwtEncodeSign = defineBuiltin({
  name: 'io.jwt.encode_sign',
  category: 'tokens',
  description:
    'Encodes and optionally signs a JSON Web Token. Inputs are taken as objects, not encoded strings (see `io.jwt.encode_sign_raw`).',
  args: [
    t.named('headers', t.object(t.string, t.any), 'JWS Protected Header'),
    t.named('payload', t.object(t.string, t.any), 'JWS Payload'),
    t.named('key', t.object(t.string, t.any), 'JSON Web Key (RFC7517)'),
  ],
  result: t.named('output', t.string, 'signed JWT'),
  nondeterministic: true,
  impl: (_ctx, [h, p, k]) =>
    signToken(
      claimsJSON(objectOperand(h, 1)),
      claimsJSON(objectOperand(p, 2)),
      claimsJSON(objectOperand(k, 3)),
    ),
})

/** The io.jwt.* built-ins. */
export const JWT = [jwtDecode, jwtDecodeVerify, jwtEncodeSign, jwtEncodeSignRaw, ...VERIFIERS] as const
