/**
 * Turning a decision-log upload (a JSON array of OPA decision events) into rows to store.
 * Parsing is lossless: numbers keep their exact text (OPA's `req_id` is a uint64 and may
 * exceed 2^53), unknown fields are kept, and each event is stored as its own JSON text.
 * A batch that is not an array of objects is refused whole, naming the first bad event.
 */
import { createHash } from 'node:crypto'
import { isLosslessNumber, parse, stringify } from 'lossless-json'
import { badRequest, payloadTooLarge } from '../core/http/index.js'
import type { NewDecision } from '../store/service/index.js'

/** Result kinds the service assigns (ADVICE is accepted as a filter but never assigned). */
export const RESULT_KINDS = ['ALLOWED', 'DENIED', 'ERROR', 'UNKNOWN', 'ADVICE'] as const

type Event = Record<string, unknown>

const isObject = (v: unknown): v is Event =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v)

/**
 * The result kind of an event: ERROR when `error` is set; ALLOWED/DENIED from a boolean result
 * or a boolean `result.allowed`; UNKNOWN otherwise.
 */
export function resultKindOf(event: Event): string {
  if (event.error !== undefined && event.error !== null) return 'ERROR'
  const result = event.result
  if (typeof result === 'boolean') return result ? 'ALLOWED' : 'DENIED'
  if (isObject(result) && typeof result.allowed === 'boolean') return result.allowed ? 'ALLOWED' : 'DENIED'
  return 'UNKNOWN'
}

/**
 * Microseconds since the epoch of an RFC 3339 timestamp (fractions beyond microseconds are
 * dropped), or undefined when it does not parse.
 */
export function timestampMicros(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i.exec(text.trim())
  if (!match) return undefined
  const seconds = Date.parse(`${match[1]}${match[3]!.toUpperCase()}`)
  if (Number.isNaN(seconds)) return undefined
  const fraction = (match[2] ?? '').slice(0, 6).padEnd(6, '0')
  return seconds * 1000 + Number(fraction)
}

/** How an upload is attributed and bounded. */
export interface BatchContext {
  /** The system of the uploading agent token; null for an administrator (labels decide). */
  tokenSystemId: string | null
  receivedUs: number
  maxEvents: number
}

/**
 * The rows of one upload.
 * @throws HttpError 400 when the text is not a JSON array of objects (nothing is stored),
 *   413 past `maxEvents`.
 */
export function decisionsFromBatch(text: string, context: BatchContext): NewDecision[] {
  let parsed: unknown
  try {
    parsed = parse(text)
  } catch (err) {
    throw badRequest(`malformed decision batch: ${(err as Error).message}`)
  }
  if (!Array.isArray(parsed)) {
    throw badRequest(`a decision batch must be a JSON array of events, got ${describe(parsed)}`)
  }
  if (parsed.length > context.maxEvents) {
    throw payloadTooLarge(
      `a decision batch may hold at most ${context.maxEvents} events, got ${parsed.length}`,
    )
  }
  return parsed.map((event, i) => {
    if (!isObject(event))
      throw badRequest(`event ${i} of the batch must be a JSON object, got ${describe(event)}`)
    return decisionRow(event, i, context)
  })
}

function decisionRow(event: Event, index: number, context: BatchContext): NewDecision {
  const raw = stringify(event) as string
  let decisionId = event.decision_id
  if (decisionId === undefined || decisionId === null) {
    // NOTE(service): OPA always sends one; for other producers a digest of the event makes retries of the same event dedupe.
    decisionId = `sha256:${createHash('sha256').update(raw).digest('hex')}`
  } else if (typeof decisionId !== 'string' || decisionId === '' || decisionId.length > 256) {
    throw badRequest(`event ${index}: decision_id must be a non-empty string of at most 256 characters`)
  }
  const path = typeof event.path === 'string' ? event.path.replace(/^\/+/, '') : null
  const labels = isObject(event.labels) ? event.labels : {}
  const labelSystem = typeof labels['system-id'] === 'string' ? (labels['system-id'] as string) : null
  return {
    decisionId: decisionId as string,
    systemId: context.tokenSystemId ?? labelSystem,
    path,
    resultKind: resultKindOf(event),
    tsUs: timestampMicros(event.timestamp) ?? context.receivedUs,
    receivedUs: context.receivedUs,
    raw,
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  if (isLosslessNumber(value)) return 'a number'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
