/**
 * The decision API's shapes (docs/service.md "Decision search", "Decision counts";
 * docs/decision-replay.md) and the requests the Decisions view makes.
 */
import type { ApiClient, Query } from './client'

/** The result kinds the service assigns (ADVICE is a filter value it never assigns). */
export const RESULT_KINDS = ['ALLOWED', 'DENIED', 'ERROR', 'UNKNOWN'] as const
export type ResultKind = (typeof RESULT_KINDS)[number]

/** One stored decision as the search and `GET /v1/decisions/{id}` answer it. */
export interface DecisionItem {
  decision_id: string
  cursor: string
  system_id?: string
  result_kind: string
  received: string
  timestamp?: string
  path?: string
  query?: string
  input?: unknown
  result?: unknown
  error?: unknown
  labels?: Record<string, string>
  bundles?: Record<string, { revision?: string }>
  revision?: string
  metrics?: Record<string, unknown>
  nd_builtin_cache?: unknown
  requested_by?: string
  filtered_fields?: string[]
  /** The event as the service stored it, as JSON text (numbers exactly as sent). */
  Decision?: string
}

export interface DecisionPage {
  items: DecisionItem[]
  cursor?: string
  partial?: boolean
}

export interface DecisionCounts {
  start_time: string
  end_time: string
  bucket_seconds: number
  kinds: string[]
  total: number
  totals: Record<string, number>
  buckets: Array<{ start_time: string; total: number; counts: Record<string, number> }>
}

export interface ReplayAnswer {
  system: string
  commit?: string
  replayed: number
  changed: number
  errors: number
  skipped: number
  incomplete: boolean
  changes: Array<{
    decision_id: string
    path: string
    changed: boolean
    before?: unknown
    after?: unknown
    error?: unknown
  }>
}

/** What the search form holds; also what the address holds (a shareable link). */
export interface DecisionFilters {
  search: string
  system: string
  kind: string
  /** A preset (`15m`, `1h`, `24h`, `7d`, `30d`, `all`) or `custom` (then `from`/`to`). */
  range: string
  /** `datetime-local` values (the reader's local time), for a custom range. */
  from: string
  to: string
}

/** The time range presets, in milliseconds (`all`: no bounds). */
export const RANGES: Array<{ id: string; label: string; ms?: number }> = [
  { id: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
  { id: 'all', label: 'All time' },
  { id: 'custom', label: 'Between…' },
]

/** The instants a range stands for, as ISO times, at `now`. */
export function rangeTimes(filters: DecisionFilters, now: number): { start?: string; end?: string } {
  if (filters.range === 'custom') {
    const start = localToIso(filters.from)
    const end = localToIso(filters.to)
    return { ...(start ? { start } : {}), ...(end ? { end } : {}) }
  }
  const preset = RANGES.find((r) => r.id === filters.range) ?? RANGES[1]!
  return preset.ms === undefined ? {} : { start: new Date(now - preset.ms).toISOString() }
}

function localToIso(value: string): string | undefined {
  if (!value) return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString()
}

/** The search's query parameters for `filters` (and a page cursor). */
export function searchQuery(filters: DecisionFilters, times: { start?: string; end?: string }): Query {
  return {
    search: filters.search.trim() || undefined,
    system: filters.system.trim() || undefined,
    result_kind: filters.kind || undefined,
    start_time: times.start,
    end_time: times.end,
  }
}

// The list shows no input and at most a short result: large events stay on the server.
const LIST_SHAPE: Query = { input_max_size: 0, result_max_size: 512, limit: 50 }

export function searchDecisions(
  api: ApiClient,
  query: Query,
  extra: Query,
  signal?: AbortSignal,
): Promise<DecisionPage> {
  return api.get<DecisionPage>('/v1/decisions', { ...query, ...LIST_SHAPE, ...extra }, signal)
}

export function getDecision(api: ApiClient, id: string, system: string | undefined, signal?: AbortSignal) {
  return api.get<DecisionItem>(`/v1/decisions/${encodeURIComponent(id)}`, { system }, signal)
}

export function getCounts(api: ApiClient, query: Query, end: string, signal?: AbortSignal) {
  const { search: _search, ...filters } = query
  return api.get<DecisionCounts>('/v1/decisions/counts', { ...filters, end_time: end }, signal)
}

export function replayDecision(
  api: ApiClient,
  body: { system: string; decision_id: string; modules?: Record<string, string>; commit?: string },
) {
  return api.post<ReplayAnswer>('/v1/logreplay', body)
}
