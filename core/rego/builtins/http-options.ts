/**
 * http.send's request object read as OPA's v1/topdown/http.go reads it, with its wording:
 * the key checks (`validateHTTPRequestOperand`, operand errors), `raise_error`, and the options
 * `createHTTPRequest` parses (string keys, Go's strconv.ParseBool on the term's text for booleans,
 * `parseTimeout`, headers). Which of these errors are raised and which become a response with
 * `raise_error: false` is decided in http.ts, as OPA's builtinHTTPSend does.
 */
import type { Location } from '../syntax/ast.js'
import { locationString } from '../syntax/source.js'
import type { ObjectValue, Value } from '../values/index.js'
import {
  formatValue,
  isNumberValue,
  isObject,
  numberText,
  toBigInt,
  typeName,
  Value as V,
} from '../values/index.js'
import { BuiltinError, OperandError } from './errors.js'
import { parseDuration } from './go-time.js'

/** The request keys OPA accepts (http.go `allowedKeyNames`). */
export const ALLOWED_KEYS = new Set([
  'method',
  'url',
  'body',
  'enable_redirect',
  'force_json_decode',
  'force_yaml_decode',
  'headers',
  'raw_body',
  'tls_use_system_certs',
  'tls_ca_cert',
  'tls_ca_cert_file',
  'tls_ca_cert_env_variable',
  'tls_client_cert',
  'tls_client_cert_file',
  'tls_client_cert_env_variable',
  'tls_client_key',
  'tls_client_key_file',
  'tls_client_key_env_variable',
  'tls_insecure_skip_verify',
  'tls_server_name',
  'timeout',
  'cache',
  'force_cache',
  'force_cache_duration_seconds',
  'raise_error',
  'caching_mode',
  'max_retry_attempts',
  'cache_ignored_headers',
])

/** Keys whose value must be a string (OPA checks them together, before anything else). */
const STRING_KEYS = new Set([
  'method',
  'url',
  'raw_body',
  'tls_ca_cert',
  'tls_ca_cert_file',
  'tls_ca_cert_env_variable',
  'tls_client_cert',
  'tls_client_cert_file',
  'tls_client_cert_env_variable',
  'tls_client_key',
  'tls_client_key_file',
  'tls_client_key_env_variable',
  'tls_server_name',
])

/** `raise_error` (default true); anything but a boolean is an error that is always raised. */
export function raiseErrorOption(req: ObjectValue): boolean {
  const v = req.get('raise_error')
  if (v === undefined) return true
  if (typeof v !== 'boolean') throw new BuiltinError('invalid value for raise_error field')
  return v
}

/** Unknown keys, then missing `method`/`url`: operand errors, so `eval_type_error`. */
export function validateRequestKeys(req: ObjectValue): void {
  const invalid = req.keys().filter((k) => typeof k !== 'string' || !ALLOWED_KEYS.has(k))
  if (invalid.length)
    throw new OperandError(1, `invalid request parameters(s): ${formatValue(V.set(invalid))}`)
  const missing = ['method', 'url'].filter((k) => !req.has(k))
  if (missing.length)
    throw new OperandError(1, `missing required request parameters(s): ${formatValue(V.set(missing))}`)
}

/**
 * Checks every option as createHTTPRequest does, in key order (OPA walks the object's sorted
 * keys and stops at the first bad one). Errors are plain built-in errors, except the timeout's
 * type, which OPA reports as an operand error.
 */
export function checkRequestOptions(req: ObjectValue): void {
  for (const key of req.keys()) {
    if (typeof key !== 'string') continue
    const v = req.get(key) as Value
    if (typeof v !== 'string' && STRING_KEYS.has(key))
      throw new BuiltinError(`${JSON.stringify(key)} must be a string`)
    if (key === 'enable_redirect' || key === 'tls_use_system_certs' || key === 'tls_insecure_skip_verify')
      goParseBool(formatValue(v))
    else if (key === 'headers') headerEntries(v)
    else if (key === 'timeout') timeoutNs(v)
  }
}

/** `max_retry_attempts` as executeHTTPRequest reads it: a non-negative integer, 0 when absent. */
export function retryAttempts(req: ObjectValue): number {
  const v = req.get('max_retry_attempts')
  if (v === undefined) return 0
  const n = isNumberValue(v) ? toBigInt(v) : undefined
  if (n === undefined || n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER))
    throw new BuiltinError(`invalid value ${formatValue(v)} for field "max_retry_attempts"`)
  return Number(n)
}

/** A string option, already checked by {@link checkRequestOptions}. */
export function stringOption(req: ObjectValue, key: string): string | undefined {
  const v = req.get(key)
  return typeof v === 'string' ? v : undefined
}

/** A boolean option as OPA reads it: Go's strconv.ParseBool of the term's text (`1` is true). */
export function boolOption(req: ObjectValue, key: string, fallback: boolean): boolean {
  const v = req.get(key)
  return v === undefined ? fallback : goParseBool(formatValue(v))
}

/** A boolean read with OPA's getBoolValFromReqObj (force_json_decode, cache, ...). */
export function strictBoolOption(req: ObjectValue, key: string): boolean {
  const v = req.get(key)
  if (v === undefined) return false
  if (typeof v !== 'boolean') throw new BuiltinError(`invalid value for ${JSON.stringify(key)} field`)
  return v
}

function goParseBool(text: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false
  throw new BuiltinError(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`)
}

/** The request's headers; every value must be a string (OPA: `invalid type for headers value`). */
export function headerEntries(v: Value | undefined): [string, string][] {
  if (v === undefined) return []
  if (!isObject(v)) throw new BuiltinError('invalid type for headers key')
  return v.entries().map(([k, value]) => {
    if (typeof value !== 'string') throw new BuiltinError(`invalid type for headers value ${goQuoted(value)}`)
    return [typeof k === 'string' ? k : formatValue(k), value]
  })
}

/** Go's `%q` of a value decoded by ast.JSON: numbers are json.Number (a string kind). */
function goQuoted(v: Value): string {
  if (isNumberValue(v)) return JSON.stringify(numberText(v))
  if (typeof v === 'boolean') return `%!q(bool=${v})`
  if (v === null) return '%!q(<nil>)'
  return `%!q(${typeName(v)})`
}

/** OPA's parseTimeout: nanoseconds from an integer, a digit string or a Go duration string. */
export function timeoutNs(v: Value): bigint {
  if (isNumberValue(v)) {
    const n = toBigInt(v)
    if (n === undefined || n > 2n ** 63n - 1n || n < -(2n ** 63n))
      throw new BuiltinError(`invalid timeout number value ${formatValue(v)}, must be int64`)
    return n
  }
  if (typeof v === 'string') {
    if (/^[+-]?\d+$/.test(v)) {
      const n = BigInt(v)
      if (n <= 2n ** 63n - 1n && n >= -(2n ** 63n)) return n
    }
    try {
      return parseDuration(v)
    } catch (err) {
      throw new BuiltinError(`invalid timeout value ${formatValue(v)}: ${(err as Error).message}`)
    }
  }
  throw new OperandError(1, `'timeout' must be one of {string, number} but got ${typeName(v)}`)
}

/** OPA's Location.String(): `file:row` when there is a file, else the text or `row:col`. */
export function goLocationText(location: Location | undefined): string | undefined {
  return location === undefined ? undefined : locationString(location)
}
