/**
 * Decision search requests (`analysis.v1.DecisionsGetRequest`, from a query string or a JSON
 * body) turned into a store query, including the `search` language documented in
 * docs/service.md: whitespace-separated terms, "quoted phrases", `field:value` terms and a
 * leading `-` to negate.
 */
import { z } from 'zod'
import { badRequest } from '../core/http/index.js'
import type { DecisionPosition, DecisionQuery, SearchTerm } from '../store/service/index.js'
import { RESULT_KINDS } from './decision-events.js'

/** The request fields (all optional, as the spec has them). */
export const decisionsRequestSchema = z.strictObject({
  compact: z.boolean().optional(),
  cursor: z.string().optional(),
  default_timezone: z.string().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
  limit: z.number().int().optional(),
  order: z.string().optional(),
  result_kind: z.string().optional(),
  search: z.string().optional(),
  stack: z.string().optional(),
  system: z.string().optional(),
  input_max_size: z.union([z.string(), z.number()]).optional(),
  result_max_size: z.union([z.string(), z.number()]).optional(),
})

export type DecisionsRequest = z.output<typeof decisionsRequestSchema>

/** A parsed search: the store query plus how to shape the items. */
export interface DecisionSearch {
  query: DecisionQuery
  compact: boolean
  inputMaxBytes?: number
  resultMaxBytes?: number
}

/** The request from query parameters (strings), validated like a JSON body. */
export function requestFromQuery(params: Record<string, string>): DecisionsRequest {
  const out: Record<string, unknown> = { ...params }
  if (params.limit !== undefined) {
    if (!/^-?\d+$/.test(params.limit)) throw badRequest(`limit: expected an integer, got "${params.limit}"`)
    out.limit = Number(params.limit)
  }
  if (params.compact !== undefined) {
    if (params.compact !== 'true' && params.compact !== 'false')
      throw badRequest('compact: expected true or false')
    out.compact = params.compact === 'true'
  }
  const result = decisionsRequestSchema.safeParse(out)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw badRequest(
      `${issue.path.join('.') || 'query'}: ${issue.code === 'unrecognized_keys' ? `unknown parameter ${issue.keys.join(', ')}` : issue.message}`,
    )
  }
  return result.data
}

/** Encodes a position as an opaque cursor. */
export function encodeCursor(position: DecisionPosition): string {
  return Buffer.from(`${position.tsUs}:${position.seq}`).toString('base64url')
}

/** Decodes a cursor, or undefined when it is not one. */
export function decodeCursor(cursor: string): DecisionPosition | undefined {
  const match = /^(-?\d{1,17}):(\d{1,17})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  return match ? { tsUs: Number(match[1]), seq: Number(match[2]) } : undefined
}

/**
 * The search a request describes.
 * @throws HttpError 400 naming the bad parameter.
 */
export function parseDecisionSearch(request: DecisionsRequest, maxLimit: number): DecisionSearch {
  // NOTE(service): the service has no stacks, so a stack filter could only ever match nothing;
  // it is refused rather than silently ignored or silently empty (issue 18, "Also").
  if (request.stack !== undefined && request.stack.trim() !== '') {
    throw badRequest(`stack: this service has no stacks (got "${request.stack}"); filter by system instead`)
  }
  const limit = request.limit ?? Math.min(100, maxLimit)
  if (limit < 1 || limit > maxLimit) throw badRequest(`limit: expected 1 to ${maxLimit}, got ${limit}`)
  const order = (request.order ?? 'DESC').toUpperCase()
  if (order !== 'ASC' && order !== 'DESC')
    throw badRequest(`order: expected ASC or DESC, got "${request.order}"`)
  const zone = parseTimezone(request.default_timezone)
  const query: DecisionQuery = { order, limit }
  if (request.start_time) query.startUs = parseTime(request.start_time, zone, 'start_time')
  if (request.end_time) query.endUs = parseTime(request.end_time, zone, 'end_time')
  query.resultKinds = parseResultKinds(request.result_kind)
  if (request.system)
    query.systemIds = request.system
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  if (request.cursor) {
    const after = decodeCursor(request.cursor)
    if (!after) throw badRequest('cursor: not a cursor returned by this service')
    query.after = after
  }
  const parsed = parseSearch(request.search ?? '')
  query.terms = parsed.terms
  if (parsed.systems) query.systemIds = intersect(query.systemIds, parsed.systems)
  if (parsed.kinds) query.resultKinds = intersect(query.resultKinds, parsed.kinds)
  return {
    query,
    compact: request.compact ?? false,
    inputMaxBytes: parseSize(request.input_max_size, 'input_max_size'),
    resultMaxBytes: parseSize(request.result_max_size, 'result_max_size'),
  }
}

function intersect(current: string[] | undefined, more: string[]): string[] {
  return current === undefined ? more : current.filter((v) => more.includes(v))
}

function parseResultKinds(text: string | undefined): string[] | undefined {
  if (!text) return undefined
  const kinds = text
    .split(',')
    .map((k) => k.trim().toUpperCase())
    .filter(Boolean)
  if (kinds.includes('ALL')) return undefined
  for (const kind of kinds) {
    if (!(RESULT_KINDS as readonly string[]).includes(kind)) {
      throw badRequest(`result_kind: unknown kind "${kind}" (use ALL, ${RESULT_KINDS.join(', ')})`)
    }
  }
  return kinds
}

/** `Z`, `+3:00`, `-07:00` or `+0530` as `±HH:MM`; undefined when absent. */
function parseTimezone(text: string | undefined): string | undefined {
  if (!text) return undefined
  if (/^z$/i.test(text.trim())) return 'Z'
  const match = /^([+-])(\d{1,2})(?::?(\d\d))?$/.exec(text.trim())
  if (!match || Number(match[2]) > 14)
    throw badRequest(`default_timezone: expected an offset such as -07:00, +3:00 or Z, got "${text}"`)
  return `${match[1]}${match[2]!.padStart(2, '0')}:${match[3] ?? '00'}`
}

function parseTime(text: string, zone: string | undefined, field: string): number {
  let value = text.trim()
  // A time without an offset is local to the client: default_timezone says where that is.
  if (/^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?)?$/.test(value)) {
    if (!value.includes('T')) value += 'T00:00:00'
    value += zone ?? 'Z'
  }
  const ms = Date.parse(value)
  if (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(ms)) {
    throw badRequest(`${field}: expected an RFC 3339 date-time such as 2024-05-01T12:00:00Z, got "${text}"`)
  }
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? ''
  return ms * 1000 + Number(fraction.slice(3, 6).padEnd(3, '0'))
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  byte: 1,
  bytes: 1,
  kb: 1024,
  kilobyte: 1024,
  kilobytes: 1024,
}
SIZE_UNITS.mb = SIZE_UNITS.megabyte = SIZE_UNITS.megabytes = 1024 * 1024

function parseSize(value: string | number | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value === 'number') return value
  const match = /^(\d+)\s*([a-z]*)$/i.exec(value.trim())
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined
  if (!match || unit === undefined)
    throw badRequest(`${field}: expected a size such as 2000, 10 KB or 1 MB, got "${value}"`)
  return Number(match[1]) * unit
}

const MAX_TERMS = 20
const FIELD_PATH = /^[A-Za-z_][\w-]*(\.[\w-]+)*$/

/** The terms of a `search` string (see docs/service.md). */
export function parseSearch(text: string): { terms: SearchTerm[]; systems?: string[]; kinds?: string[] } {
  const tokens = tokenize(text)
  if (tokens.length > MAX_TERMS) throw badRequest(`search: at most ${MAX_TERMS} terms, got ${tokens.length}`)
  const terms: SearchTerm[] = []
  let systems: string[] | undefined
  let kinds: string[] | undefined
  for (const token of tokens) {
    const negate = token.negate
    if (token.field === undefined) {
      if (token.value !== '') terms.push({ kind: 'text', value: token.value, negate })
      continue
    }
    const field = token.field
    const value = token.value
    if (negate && ['system', 'system_id', 'result_kind', 'kind'].includes(field)) {
      throw badRequest(`search: ${field}: terms cannot be negated; list the wanted values instead`)
    }
    if (field === 'decision_id' || field === 'id') terms.push({ kind: 'decision_id', value, negate })
    else if (field === 'path') {
      const prefix = value.endsWith('*')
      terms.push({
        kind: 'path',
        value: (prefix ? value.slice(0, -1) : value).replace(/^\/+/, ''),
        prefix,
        negate,
      })
    } else if (field === 'system' || field === 'system_id') systems = intersect(systems, [value])
    else if (field === 'result_kind' || field === 'kind') kinds = intersect(kinds, [value.toUpperCase()])
    else if (FIELD_PATH.test(field)) terms.push({ kind: 'field', pointer: field.split('.'), value, negate })
    else
      throw badRequest(`search: "${field}" is not a field name (letters, digits, _ and - separated by dots)`)
  }
  return { terms, systems, kinds }
}

interface Token {
  field?: string
  value: string
  negate: boolean
}

// term := ['-'] [field ':'] (word | "quoted phrase")
function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  const pattern = /(-)?(?:([A-Za-z_][\w.-]*):)?(?:"((?:[^"\\]|\\.)*)"|(\S+))/g
  for (const match of text.matchAll(pattern)) {
    const value = match[3] !== undefined ? match[3].replace(/\\(.)/g, '$1') : match[4]!
    if (value.length > 256) throw badRequest('search: a term may be at most 256 characters')
    tokens.push({ negate: match[1] === '-', field: match[2], value })
  }
  return tokens
}
