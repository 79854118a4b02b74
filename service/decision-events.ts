/**
 * Turning a decision-log upload (a JSON array of OPA decision events) into rows to store.
 * Parsing is lossless: numbers keep their exact text (OPA's `req_id` is a uint64 and may
 * exceed 2^53), unknown fields are kept, and each event is stored as its own JSON text.
 * A batch is checked first by the shared decision-event rules (core/decision-events, the same
 * the relay applies at intake), which also stop at the event cap before the rest of the body is
 * read; only then is each event parsed. A batch that breaks a rule is refused whole, naming the
 * first bad event and field.
 */
import { createHash } from 'node:crypto'
import { isLosslessNumber, parse, stringify } from 'lossless-json'
import {
  type EventSpans,
  EventsFormatError,
  OUTCOME,
  SPAN_FIELD,
  SPAN_OUTCOME,
  SPAN_STRIDE,
  splitEventSpans,
  TooManyEventsError,
} from '../core/decision-events/index.js'
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
  const split = splitBatch(text, context)
  const rows = new Array<NewDecision>(split.count)
  for (let k = 0; k < split.count; k++) rows[k] = decisionOf(split, k, context)
  return rows
}

/** Event text parsed between two yields to the event loop. */
const PARSE_SLICE_CHARS = 1024 * 1024

/**
 * The rows of one upload, as `decisionsFromBatch`, yielding to the event loop after each
 * megabyte of events parsed: a 64 MiB (inflated) batch then delays other requests by a slice,
 * not by the whole parse.
 */
export async function decisionsFromBatchYielding(
  text: string,
  context: BatchContext,
): Promise<NewDecision[]> {
  const split = splitBatch(text, context)
  const rows = new Array<NewDecision>(split.count)
  let parsed = 0
  for (let k = 0, at = 0; k < split.count; k++, at += SPAN_STRIDE) {
    rows[k] = decisionOf(split, k, context)
    parsed += split.spans[at + 1]! - split.spans[at]!
    if (parsed >= PARSE_SLICE_CHARS) {
      parsed = 0
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return rows
}

// Linear and bounded: one pass that stops at the first rule broken or at the event cap, so a
// body of 8 MiB of `{},` costs microseconds, not a parse of the whole body.
function splitBatch(text: string, context: BatchContext): EventSpans {
  try {
    return splitEventSpans(text, { maxEvents: context.maxEvents })
  } catch (err) {
    if (err instanceof TooManyEventsError) {
      throw payloadTooLarge(
        `a decision batch may hold at most ${context.maxEvents} events (service.limits.max_decisions_per_batch)`,
      )
    }
    if (err instanceof EventsFormatError) throw badRequest(`malformed decision batch: ${err.message}`)
    throw err
  }
}

/**
 * The row of event `k` of a split batch (valid JSON: the splitter checked it). The stored text is
 * the event in compact form. Without escapes in it, that is the text itself minus whitespace
 * between tokens, and the fields are the ones the splitter recorded (a second parse of every
 * event cost as much as its insert, docs/performance.md). Texts with escapes take the lossless
 * path, which also writes their strings in one canonical form, so equal events stay equal text.
 */
function decisionOf(split: EventSpans, k: number, context: BatchContext): NewDecision {
  const { text, spans } = split
  const at = k * SPAN_STRIDE
  const eventText = text.slice(spans[at]!, spans[at + 1])
  if (eventText.includes('\\')) {
    const event = parse(eventText) as Event
    return decisionRow(event, stringify(event) as string, context)
  }
  // No escapes anywhere in the event: every recorded field is a plain span of the text.
  const raw = withoutWhitespace(eventText)
  const outcome = spans[at + SPAN_OUTCOME]!
  return {
    decisionId: plainField(split, at + SPAN_FIELD.decisionId) ?? digestId(raw),
    systemId: context.tokenSystemId ?? plainField(split, at + SPAN_FIELD.systemLabel) ?? null,
    path: withoutLeadingSlashes(plainField(split, at + SPAN_FIELD.path)),
    resultKind:
      outcome & OUTCOME.error
        ? 'ERROR'
        : outcome & OUTCOME.allowed
          ? 'ALLOWED'
          : outcome & OUTCOME.denied
            ? 'DENIED'
            : 'UNKNOWN',
    tsUs: timestampMicros(plainField(split, at + SPAN_FIELD.timestamp)) ?? context.receivedUs,
    receivedUs: context.receivedUs,
    raw,
  }
}

/** `text` (without escapes) minus whitespace outside strings; `text` itself when there is none. */
function withoutWhitespace(text: string): string {
  // OPA sends compact JSON: one native search then spares the loop over every character.
  if (!WHITESPACE.test(text)) return text
  let out: string | undefined
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === QUOTE) inString = false
      continue
    }
    if (c === QUOTE) inString = true
    else if (c === 32 || c === 9 || c === 10 || c === 13) {
      out = (out ?? '') + text.slice(from, i)
      from = i + 1
    }
  }
  return out === undefined ? text : out + text.slice(from)
}

const QUOTE = 34
const WHITESPACE = /[ \t\n\r]/

// The event passed the shared rules: an object whose decision_id is absent, null or a valid string.
function decisionRow(event: Event, raw: string, context: BatchContext): NewDecision {
  const decisionId = event.decision_id
  const labels = isObject(event.labels) ? event.labels : {}
  const labelSystem = typeof labels['system-id'] === 'string' ? (labels['system-id'] as string) : null
  return {
    decisionId: typeof decisionId === 'string' ? decisionId : digestId(raw),
    systemId: context.tokenSystemId ?? labelSystem,
    path: withoutLeadingSlashes(typeof event.path === 'string' ? event.path : undefined),
    resultKind: resultKindOf(event),
    tsUs: timestampMicros(event.timestamp) ?? context.receivedUs,
    receivedUs: context.receivedUs,
    raw,
  }
}

/** The field whose start and end are at `slot` of a split batch, when it holds no escapes. */
function plainField({ text, spans }: EventSpans, slot: number): string | undefined {
  const start = spans[slot]!
  return start === -1 ? undefined : text.slice(start, spans[slot + 1])
}

// NOTE(service): OPA always sends a decision_id; for other producers a digest of the event makes
// retries of the same event dedupe.
function digestId(raw: string): string {
  return `sha256:${createHash('sha256').update(raw).digest('hex')}`
}

function withoutLeadingSlashes(path: string | undefined): string | null {
  return path === undefined ? null : path.replace(/^\/+/, '')
}
