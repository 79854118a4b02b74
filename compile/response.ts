/**
 * Response bodies and their bytes. Single target: `{"result": {"query": Q, "masks"?: M}}`, or `{}` when
 * the filter never matches. Multitarget: `{"result": {"ucast"?, "postgresql"?, "mysql"?, "sqlserver"?,
 * "sqlite"?}}` (that key order), `{"result": {}}` when it never matches. JSON is written as Go's encoder
 * writes it: exact numbers, `<`, `>` and `&` escaped, a trailing newline, 2-space indent with `?pretty`.
 */
import { stringify } from 'lossless-json'
import type { Hint } from './hints.js'
import type { JsonObject, JsonValue, SqlDialect } from './types.js'
import type { UcastNode } from './ucast.js'

/** One target's answer: the condition (UCAST object or SQL string) and the masks. */
export interface TargetResult {
  query: UcastNode | Record<string, never> | string
  masks?: JsonObject
}

/** A response body before serialization. */
export interface CompileResponseBody {
  result?: TargetResult | Partial<Record<'ucast' | SqlDialect, TargetResult>> | JsonValue
  hints?: Hint[]
  metrics?: Record<string, number>
}

const MULTI_ORDER: ReadonlyArray<'ucast' | SqlDialect> = [
  'ucast',
  'postgresql',
  'mysql',
  'sqlserver',
  'sqlite',
]

/** A target's result object with `masks` only when there are masks. */
export function targetResult(query: TargetResult['query'], masks: JsonObject | undefined): TargetResult {
  return masks ? { query, masks } : { query }
}

/** The multitarget `result` object with its keys in the reference's order. */
export function multiTargetResult(
  results: ReadonlyMap<'ucast' | SqlDialect, TargetResult>,
): Partial<Record<'ucast' | SqlDialect, TargetResult>> {
  const out: Partial<Record<'ucast' | SqlDialect, TargetResult>> = {}
  for (const key of MULTI_ORDER) {
    const r = results.get(key)
    if (r) out[key] = r
  }
  return out
}

/** Adds `hints` (when any) and `metrics` (when asked) to a body. */
export function withExtras(
  body: CompileResponseBody,
  hints: readonly Hint[],
  metrics: Record<string, number> | undefined,
): CompileResponseBody {
  const out: CompileResponseBody = { ...body }
  if (hints.length > 0) out.hints = [...hints]
  if (metrics) out.metrics = metrics
  return out
}

/**
 * The bytes of a JSON body as Go's `json.Encoder` writes them (HTML-safe escapes, trailing newline).
 * @example serializeJson({result: {}}, false) // '{"result":{}}\n'
 */
export function serializeJson(body: unknown, pretty: boolean): string {
  const text = stringify(body, undefined, pretty ? 2 : undefined) ?? 'null'
  // `<`, `>` and `&` can only occur inside JSON strings, so replacing them keeps the JSON valid.
  return `${text.replace(/[<>&]/g, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`)}\n`
}
