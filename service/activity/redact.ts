/**
 * What of a request body goes into its activity record. Secret values never do:
 * - on secret routes (`/v1/secrets/…`) every member but `name` and `description` is replaced
 *   (service/secrets/redact.ts), and a body that cannot be parsed there is not recorded at all;
 * - anywhere, a field whose name is in SENSITIVE_FIELD_NAMES (at any depth, case and `-`/`_`
 *   ignored) has its value replaced by REDACTED;
 * - a body that is not JSON or YAML cannot be searched for such fields, so only its size is
 *   recorded; a body larger than the cap is not recorded either (its size is).
 * Response bodies are never recorded (a token's secret is only ever in a response).
 */
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json'
import { readYaml } from '../../core/yaml.js'
import { isSecretRoute, redactSecretBody } from '../secrets/redact.js'

/** What a redacted value is replaced by. */
export const REDACTED = '[redacted]'

/**
 * Field names whose values are never recorded, compared after lower-casing and turning `-` into
 * `_`. Extend here; docs/activity.md lists them.
 */
export const SENSITIVE_FIELD_NAMES: ReadonlySet<string> = new Set([
  'secret',
  'secrets',
  'password',
  'passwd',
  'passphrase',
  'private_key',
  'privatekey',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'bearer',
  'client_secret',
  'api_key',
  'apikey',
  'secret_key',
  'secret_access_key',
  'aws_secret_access_key',
  'session_token',
  'authorization',
])

// A body that deep is refused by the routes anyway; redaction stops there instead of recursing on.
const MAX_DEPTH = 200

/** True when `name` is a sensitive field name. */
export function isSensitiveField(name: string): boolean {
  return SENSITIVE_FIELD_NAMES.has(name.toLowerCase().replaceAll('-', '_'))
}

/** A copy of `value` with every sensitive field's value replaced by REDACTED. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_DEPTH) return REDACTED
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1))
  // lossless-json numbers are objects too; they have no sensitive fields.
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    out[key] = isSensitiveField(key) && v !== null && v !== '' ? REDACTED : redactValue(v, depth + 1)
  }
  return out
}

/** How a body is recorded. */
export interface BodyRecordOptions {
  /** Bytes of body text recorded at most (larger bodies are recorded by size only). */
  maxBytes: number
  /** The request's media type (lower case, without parameters). */
  mediaType: string
}

/**
 * The text recorded as `request_body` for `body` sent to `path`, or undefined when there was no
 * body. Never contains a secret value (see the file comment).
 * @example recordedBody('/v1/secrets/git/key', Buffer.from('{"secret":"x"}'), opts) // '{"secret":"[redacted]"}'
 */
export function recordedBody(
  path: string,
  body: Buffer | undefined,
  options: BodyRecordOptions,
): string | undefined {
  if (body === undefined || body.length === 0) return undefined
  if (body.length > options.maxBytes) {
    return `[not recorded: ${body.length} bytes, more than service.activity.max_body_bytes]`
  }
  const parsed = parseStructured(body.toString('utf8'), options.mediaType)
  if (parsed === undefined) {
    return isSecretRoute(path)
      ? `[not recorded: ${body.length} bytes on a secret route]`
      : `[not recorded: ${body.length} bytes, neither JSON nor YAML]`
  }
  // On a secret route every member but name and description goes (a value under a misspelt name too).
  return stringifyLossless(redactValue(redactSecretBody(path, parsed.value))) ?? ''
}

// JSON (kept number for number by lossless-json), else YAML; undefined when neither.
function parseStructured(text: string, mediaType: string): { value: unknown } | undefined {
  if (!mediaType.includes('yaml')) {
    try {
      return { value: parseLossless(text) }
    } catch {
      // not JSON: maybe YAML below
    }
  }
  try {
    const value = readYaml(text, { intAsBigInt: false, maxNodes: 100_000 })
    // Plain text parses as a YAML string; it may be anything, so it is not recorded.
    return value !== null && typeof value === 'object' ? { value } : undefined
  } catch {
    return undefined
  }
}
