/**
 * Reading requests and writing responses as OPA's server does: boolean query parameters
 * (`?pretty`, `?metrics=true`), JSON bodies parsed without losing number precision, JSON written
 * with Go's HTML escaping (pretty output indented by two spaces and ending in a newline), and the
 * per-request `metrics` timers.
 */
import type { Context } from 'hono'
import {
  type AppEnv,
  type BodyLimits,
  badRequest,
  HttpError,
  payloadTooLarge,
  readBody,
} from '../core/http/index.js'
import { fromJS, parseJSON, toJSONText, type Value } from '../core/rego/values/index.js'
import { readYaml, YamlError } from '../core/yaml.js'

// The routes take OPA's per-request metrics from here with the rest of their HTTP helpers.
export { RequestMetrics } from '../core/request-metrics.js'

/**
 * A boolean query parameter as OPA's `getBoolParam` reads it: present without a value, or with a
 * value equal to `true` (any case) in any of its occurrences.
 */
export function boolParam(c: Context, name: string): boolean {
  const values = c.req.queries(name)
  if (!values || values.length === 0) return false
  if (values.length === 1 && values[0] === '') return true
  return values.some((v) => v.toLowerCase() === 'true')
}

/**
 * Refuses `?explain` (regent's server keeps no evaluation traces); `off` is accepted, and values OPA
 * does not know are ignored as OPA ignores them.
 */
export function refuseExplain(c: Context): void {
  const modes = c.req.queries('explain') ?? []
  const asked = modes.find((m) => ['notes', 'fails', 'full', 'debug'].includes(m))
  if (asked) throw badRequest(`explain=${asked} is not supported by regent run (use regent eval --explain)`)
}

/** A JSON response: `body` may hold Rego values anywhere; numbers are written exactly. */
export function jsonResponse(
  c: Context,
  body: Record<string, unknown>,
  pretty: boolean,
  status = 200,
): Response {
  const value = fromJS(withoutUndefined(body))
  return c.body(jsonText(value, pretty), status as 200, { 'Content-Type': 'application/json' })
}

/** The JSON text of a value as OPA writes it (`json.Marshal` / `MarshalIndent(v, "", "  ")`). */
export function jsonText(value: Value, pretty: boolean): string {
  return pretty
    ? `${toJSONText(value, { indent: '  ', escapeHTML: true })}\n`
    : toJSONText(value, { escapeHTML: true })
}

function withoutUndefined(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(body)) if (v !== undefined) out[k] = v
  return out
}

/**
 * The request body as text, inflated per `Content-Encoding` within the limits. A body that does
 * not inflate is a 400 worded as OPA's (`could not decompress the body: …`); 413 and 415 pass.
 */
export async function readText(c: Context<AppEnv>, limits: BodyLimits, prefix = ''): Promise<string> {
  try {
    return (await readBody(c, limits)).toString('utf8')
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) {
      throw badRequest(`${prefix}could not decompress the body: ${err.message}`)
    }
    throw err
  }
}

/** True when the request says its body is YAML (OPA looks for `yaml` anywhere in the type). */
export function isYamlBody(c: Context): boolean {
  return (c.req.header('Content-Type') ?? '').toLowerCase().includes('yaml')
}

/**
 * Parses a JSON (or, with `yaml`, YAML) document into a Rego value without losing big integers or
 * long decimals. Empty text is `undefined`.
 * @throws Error with the parser's message (callers add OPA's wording); HttpError 413 for YAML
 *   with more nodes than the default bound (core/yaml.ts).
 */
export function parseDocumentText(text: string, yaml: boolean): Value | undefined {
  if (text.trim() === '') return undefined
  if (!yaml) return parseJSON(text)
  try {
    // YAML as OPA's Go library reads it (1.1), integers exact, timestamps as text.
    const value = readYaml(text, { version: '1.1', intAsBigInt: true, timestampsAsStrings: true })
    return fromJS(value ?? null)
  } catch (err) {
    if (err instanceof YamlError && err.kind === 'too_many_nodes') {
      throw payloadTooLarge(`YAML body${err.where}: ${err.reason}`)
    }
    throw err
  }
}
