/**
 * Activity search requests turned into store queries: v1's `ActivityPostRequest` body and v2's
 * query parameters (cursor, start_time, end_time, query, limit, class, outcome, order,
 * default_timezone, compact). Every 400 names the field.
 */
import { z } from 'zod'
import { badRequest } from '../../core/http/index.js'
import type { ActivityOutcome, ActivityPosition, ActivityQuery } from '../../store/service/index.js'

/** v1 `count` default and upper bound (spec: ActivityPostRequest). */
export const V1_DEFAULT_COUNT = 256
export const V1_MAX_COUNT = 4096
/** v2 `limit` default; the upper bound is V1_MAX_COUNT as well. */
export const V2_DEFAULT_LIMIT = 100

/** When only one end of the time range is given, the other is this far from it (as upstream). */
const DEFAULT_WINDOW_US = 3_600_000_000

const CLASSES = ['audit', 'activity'] as const

/** The v1 request body (spec: ActivityPostRequest, every field optional). */
export const activityPostRequestSchema = z.strictObject({
  class_type: z.enum(CLASSES, { error: 'expected audit or activity' }).optional(),
  count: z
    .number({ error: 'expected an integer' })
    .int({ error: 'expected an integer' })
    .min(1, { error: `expected 1 to ${V1_MAX_COUNT}` })
    .max(V1_MAX_COUNT, { error: `expected 1 to ${V1_MAX_COUNT}` })
    .optional(),
  forward: z.boolean({ error: 'expected true or false' }).optional(),
  start_time: z.string({ error: 'expected an RFC 3339 date-time' }).optional(),
  end_time: z.string({ error: 'expected an RFC 3339 date-time' }).optional(),
  request_id: z.string({ error: 'expected a string' }).optional(),
})

export type ActivityPostRequest = z.output<typeof activityPostRequestSchema>

const OFFSET = /(?:[zZ]|[+-]\d{2}:?\d{2})$/
const TIMEZONE = /^(?:[zZ]|([+-])(\d{1,2})(?::?(\d{2}))?)$/

/** `default_timezone` (`Z`, `+3:00`, `-07:00`, `+0530`) as a `±HH:MM` suffix. */
export function timezoneSuffix(text: string): string {
  const m = TIMEZONE.exec(text.trim())
  if (!m) throw badRequest(`default_timezone: expected Z or an offset such as -07:00, got "${text}"`)
  if (!m[1]) return 'Z'
  const hours = Number(m[2])
  const minutes = Number(m[3] ?? 0)
  if (hours > 14 || minutes > 59) throw badRequest(`default_timezone: offset out of range: "${text}"`)
  return `${m[1]}${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`
}

/**
 * A date-time in µs since the epoch; a time without an offset is read in `timezone` (default UTC).
 * @throws HttpError 400 naming `field`.
 */
export function parseTimeUs(text: string, field: string, timezone = 'Z'): number {
  const trimmed = text.trim()
  const withZone = OFFSET.test(trimmed) || !/T|\d:\d/.test(trimmed) ? trimmed : `${trimmed}${timezone}`
  const ms = Date.parse(withZone)
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(ms)) {
    throw badRequest(`${field}: expected an RFC 3339 date-time such as 2026-01-02T15:04:05Z, got "${text}"`)
  }
  return ms * 1000
}

/** The time range of a request: one given end alone makes a one-hour window (upstream's rule). */
function timeRange(
  startUs: number | undefined,
  endUs: number | undefined,
): { startUs?: number; endUs?: number } {
  if (startUs !== undefined && endUs !== undefined) {
    if (startUs > endUs) throw badRequest('start_time: must not be after end_time')
    return { startUs, endUs }
  }
  if (startUs !== undefined) return { startUs, endUs: startUs + DEFAULT_WINDOW_US }
  if (endUs !== undefined) return { startUs: endUs - DEFAULT_WINDOW_US, endUs }
  return {}
}

/** The store query of a v1 search. */
export function v1Query(request: ActivityPostRequest): ActivityQuery {
  const range = timeRange(
    request.start_time === undefined ? undefined : parseTimeUs(request.start_time, 'start_time'),
    request.end_time === undefined ? undefined : parseTimeUs(request.end_time, 'end_time'),
  )
  return {
    order: request.forward ? 'ASC' : 'DESC',
    limit: request.count ?? V1_DEFAULT_COUNT,
    ...range,
    ...(request.class_type ? { activityClass: request.class_type } : {}),
    ...(request.request_id !== undefined ? { requestId: request.request_id } : {}),
  }
}

/** Encodes a position as an opaque cursor (it also carries the order it was made for). */
export function encodeActivityCursor(position: ActivityPosition, order: 'ASC' | 'DESC'): string {
  return Buffer.from(`a1:${order}:${position.tsUs}:${position.seq}`).toString('base64url')
}

function decodeActivityCursor(cursor: string): { order: 'ASC' | 'DESC'; position: ActivityPosition } {
  const m = /^a1:(ASC|DESC):(-?\d{1,17}):(\d{1,17})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (!m) throw badRequest('cursor: not a cursor returned by a previous activity search')
  return { order: m[1] as 'ASC' | 'DESC', position: { tsUs: Number(m[2]), seq: Number(m[3]) } }
}

const V2_PARAMS = new Set([
  'cursor',
  'start_time',
  'end_time',
  'query',
  'limit',
  'class',
  'outcome',
  'order',
  'default_timezone',
  'compact',
])
const OUTCOMES = new Set(['all', 'allowed', 'denied', 'error'])

/** A parsed v2 search: the store query and whether items are compact. */
export interface V2Search {
  query: ActivityQuery
  compact: boolean
}

/**
 * The v2 search given by query parameters.
 * @throws HttpError 400 naming the parameter.
 */
export function v2Search(params: Record<string, string>): V2Search {
  for (const key of Object.keys(params)) {
    if (!V2_PARAMS.has(key)) throw badRequest(`${key}: unknown parameter`)
  }
  const timezone = params.default_timezone === undefined ? 'Z' : timezoneSuffix(params.default_timezone)
  let order: 'ASC' | 'DESC' = 'DESC'
  if (params.order !== undefined) {
    const upper = params.order.toUpperCase()
    if (upper !== 'ASC' && upper !== 'DESC')
      throw badRequest(`order: expected ASC or DESC, got "${params.order}"`)
    order = upper
  }
  let limit = V2_DEFAULT_LIMIT
  if (params.limit !== undefined) {
    if (!/^\d{1,9}$/.test(params.limit)) throw badRequest(`limit: expected an integer, got "${params.limit}"`)
    limit = Number(params.limit)
    if (limit < 1 || limit > V1_MAX_COUNT)
      throw badRequest(`limit: expected 1 to ${V1_MAX_COUNT}, got ${limit}`)
  }
  if (params.class !== undefined && !(CLASSES as readonly string[]).includes(params.class)) {
    throw badRequest(`class: expected audit or activity, got "${params.class}"`)
  }
  const outcome = params.outcome ?? 'all'
  if (!OUTCOMES.has(outcome))
    throw badRequest(`outcome: expected all, allowed, denied or error, got "${outcome}"`)
  let compact = false
  if (params.compact !== undefined) {
    if (params.compact !== 'true' && params.compact !== 'false')
      throw badRequest('compact: expected true or false')
    compact = params.compact === 'true'
  }
  const startUs =
    params.start_time === undefined ? undefined : parseTimeUs(params.start_time, 'start_time', timezone)
  const endUs = params.end_time === undefined ? undefined : parseTimeUs(params.end_time, 'end_time', timezone)
  if (startUs !== undefined && endUs !== undefined && startUs > endUs) {
    throw badRequest('start_time: must not be after end_time')
  }
  const query: ActivityQuery = {
    order,
    limit,
    ...(startUs !== undefined ? { startUs } : {}),
    ...(endUs !== undefined ? { endUs } : {}),
    ...(params.class !== undefined ? { activityClass: params.class } : {}),
    ...(outcome !== 'all' ? { outcome: outcome as ActivityOutcome } : {}),
  }
  const terms = (params.query ?? '').split(/\s+/).filter((t) => t !== '')
  if (terms.length > 0) query.terms = terms
  if (params.cursor !== undefined && params.cursor !== '') {
    const cursor = decodeActivityCursor(params.cursor)
    if (cursor.order !== order) throw badRequest(`cursor: made for order ${cursor.order}, not ${order}`)
    query.after = cursor.position
  }
  return { query, compact }
}
