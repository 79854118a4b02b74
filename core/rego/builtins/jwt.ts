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
import { decodeBase64 } from './encoding.js'
import { BuiltinError } from './errors.js'
import { checkConstraints, validHeader } from './jwt-constraints.js'
import {
  isJwsAlg,
  type JwsAlg,
  publicKeys,
  signWithJwk,
  type VerifyKey,
  verifySignature,
} from './jwt-keys.js'
import { objectOperand, stringOperand } from './operands.js'

/** A JWT split into its parts. */
interface DecodedJwt {
  header: ObjectValue
  payload: Value
  signature: Buffer
  /** `header.payload`, the signed input. */
  input: string
}

function b64(part: string, what: string): Buffer {
  try {
    return decodeBase64(part.replace(/=+$/, ''), true, false)
  } catch (err) {
    throw new BuiltinError(
      `JWT ${what} had invalid encoding: ${err instanceof Error ? err.message : String(err)}`,
    )
  }
}

/** Splits and decodes a compact JWS (following nested `cty: JWT` tokens). */
export function decodeJwt(token: string): DecodedJwt {
  if (!token.includes('.')) throw new BuiltinError('encoded JWT had no period separators')
  const parts = token.split('.')
  if (parts.length !== 3) throw new BuiltinError(`encoded JWT must have 3 sections, found ${parts.length}`)
  const [h = '', p = '', s = ''] = parts
  let header: Value
  try {
    header = parseJSON(b64(h, 'header').toString('utf8'))
  } catch (err) {
    if (err instanceof BuiltinError) throw err
    throw new BuiltinError('JWT header had invalid JSON')
  }
  if (!isObject(header)) throw new BuiltinError('JWT header must be an object')
  if (header.has('enc')) throw new BuiltinError('JWT is a JWE object, which is not supported')
  const signature = b64(s, 'signature')
  const rawPayload = b64(p, 'payload').toString('utf8')
  if (header.get('cty') === 'JWT') {
    // The payload is the JSON string of another token.
    let inner: Value
    try {
      inner = parseJSON(rawPayload)
    } catch {
      inner = rawPayload
    }
    if (typeof inner !== 'string') throw new BuiltinError('nested JWT payload must be a string')
    return decodeJwt(inner)
  }
  let payload: Value
  try {
    payload = parseJSON(rawPayload)
  } catch {
    throw new BuiltinError('JWT payload had invalid JSON')
  }
  return { header, payload, signature, input: `${h}.${p}` }
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
    const jwt = decodeJwt(stringOperand(j, 1))
    return [jwt.header, jwt.payload, jwt.signature.toString('hex')]
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
      const jwt = decodeJwt(stringOperand(j, 1))
      const keyText = stringOperand(k, 2)
      const keys: VerifyKey[] =
        keyKind === 'secret'
          ? [{ kind: 'secret', secret: Buffer.from(keyText, 'utf8') }]
          : publicKeys(keyText)
      return keys.some((key) => verifySignature(alg, jwt.input, jwt.signature, key))
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

function verifyConstraints(ctx: BuiltinContext, jwt: DecodedJwt, constraints: ObjectValue): boolean {
  if (!validHeader(jwt.header)) return false
  const alg = jwt.header.get('alg')
  if (!isJwsAlg(alg)) return false
  const wantAlg = constraints.get('alg')
  if (wantAlg !== undefined && wantAlg !== alg) return false
  const keys: VerifyKey[] = []
  const cert = constraints.get('cert')
  const secret = constraints.get('secret')
  if (typeof cert === 'string') keys.push(...publicKeys(cert))
  if (typeof secret === 'string') keys.push({ kind: 'secret', secret: Buffer.from(secret, 'utf8') })
  const kid = jwt.header.get('kid')
  const candidates = keys.filter(
    (k) => k.kind === 'secret' || k.kid === undefined || typeof kid !== 'string' || k.kid === kid,
  )
  if (!candidates.some((key) => verifySignature(alg, jwt.input, jwt.signature, key))) return false
  const payload = jwt.payload
  if (!isObject(payload)) return false
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
  const iss = constraints.get('iss')
  if (iss !== undefined && payload.get('iss') !== iss) return false
  const aud = constraints.get('aud')
  const tokenAud = payload.get('aud')
  if (aud === undefined) {
    if (tokenAud !== undefined) return false
  } else {
    const list = typeof tokenAud === 'string' ? [tokenAud] : Array.isArray(tokenAud) ? tokenAud : []
    if (!list.includes(aud as never)) return false
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
    checkConstraints(constraints)
    const jwt = decodeJwt(stringOperand(j, 1))
    if (!verifyConstraints(ctx, jwt, constraints)) return [false, new Obj(), new Obj()]
    return [true, jwt.header, jwt.payload]
  },
})

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
  if (!isJwsAlg(alg)) throw new BuiltinError(`unknown signature algorithm ${toJSONText(alg)}`)
  if (header.get('typ') === 'JWT') {
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
  return `${input}.${signWithJwk(alg, input, jwk as Record<string, unknown>).toString('base64url')}`
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
