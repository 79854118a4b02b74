/**
 * io.jwt.decode_verify's input checks, with OPA's wording (tokens.go `parseTokenConstraints`,
 * `validate` and `parseTokenHeader`): a malformed constraints object or JOSE header is an error,
 * not an unverified token. Keys are visited in sorted order, as OPA's object iteration does, so
 * the first offending key is the one OPA names.
 */
import type { ObjectValue, Value } from '../values/index.js'
import { isNumberValue, toDecimal } from '../values/index.js'
import { BuiltinError } from './errors.js'
import { publicKeys, type VerifyKey } from './jwt-keys.js'

const STRING_CONSTRAINTS = new Set(['secret', 'alg', 'iss', 'aud'])

/**
 * Throws OPA's error for the first bad constraint, then for a missing or doubled key constraint;
 * returns the keys the token may be signed with (a key that does not parse is an error here,
 * before the token is read).
 */
export function checkConstraints(constraints: ObjectValue): VerifyKey[] {
  let keyConstraints = 0
  const keys: VerifyKey[] = []
  for (const [key, value] of constraints.entries()) {
    const name = String(key)
    if (name === 'cert') {
      if (typeof value !== 'string') throw new BuiltinError('cert constraint: must be a string')
      keys.push(...publicKeys(value))
      keyConstraints++
    } else if (STRING_CONSTRAINTS.has(name)) {
      if (typeof value !== 'string') throw new BuiltinError(`${name} constraint: must be a string`)
      // OPA treats an empty secret as no secret.
      if (name === 'secret' && value !== '') {
        keys.push({ kind: 'secret', secret: Buffer.from(value, 'utf8') })
        keyConstraints++
      }
    } else if (name === 'time') {
      checkTime(value)
    } else {
      throw new BuiltinError(`unknown token validation constraint: ${name}`)
    }
  }
  if (keyConstraints > 1) throw new BuiltinError('duplicate key constraints')
  if (keyConstraints < 1) throw new BuiltinError('no key constraint')
  return keys
}

function checkTime(value: Value): void {
  if (!isNumberValue(value)) throw new BuiltinError('token time constraint: must be a number')
  if (toDecimal(value).coef < 0n) throw new BuiltinError('token time constraint: must not be negative')
}

/** The JOSE header parameters OPA understands; `crit` may name only these. */
const KNOWN_HEADERS = new Set(['alg', 'kid', 'typ', 'cty', 'crit'])

/**
 * Checks the JOSE header's known parameters (OPA errors on a wrongly typed one) and returns
 * whether the header is acceptable: `alg` present and non-empty, and `crit` naming only
 * parameters OPA understands (RFC 7515 §4.1.11).
 */
export function validHeader(header: ObjectValue): boolean {
  let alg = ''
  const crit = new Set<string>()
  for (const [key, value] of header.entries()) {
    const name = String(key)
    if (name === 'crit') {
      if (!Array.isArray(value)) throw new BuiltinError('crit: must be a list')
      // OPA skips non-string entries silently; an empty result is the error.
      for (const v of value) if (typeof v === 'string') crit.add(v)
      if (crit.size === 0) throw new BuiltinError('crit: must be a nonempty list')
    } else if (KNOWN_HEADERS.has(name)) {
      if (typeof value !== 'string') throw new BuiltinError(`${name}: must be a string`)
      if (name === 'alg') alg = value
    }
  }
  if (alg === '') return false
  for (const name of crit) if (!KNOWN_HEADERS.has(name) && header.has(name)) return false
  return true
}
