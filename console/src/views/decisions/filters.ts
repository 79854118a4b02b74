/**
 * The search filters and the address: the address holds them (`#/decisions?q=…&kind=DENIED`),
 * so a search is a link to share, and a reload shows the same search.
 */
import type { DecisionFilters } from '../../api/decisions'

const DEFAULT_RANGE = '1h'

export function filtersFromParams(params: URLSearchParams): DecisionFilters {
  return {
    search: params.get('q') ?? '',
    system: params.get('system') ?? '',
    kind: params.get('kind') ?? '',
    range: params.get('range') ?? DEFAULT_RANGE,
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
  }
}

export function paramsFromFilters(filters: DecisionFilters): URLSearchParams {
  const params = new URLSearchParams()
  if (filters.search) params.set('q', filters.search)
  if (filters.system) params.set('system', filters.system)
  if (filters.kind) params.set('kind', filters.kind)
  if (filters.range !== DEFAULT_RANGE) params.set('range', filters.range)
  if (filters.range === 'custom') {
    if (filters.from) params.set('from', filters.from)
    if (filters.to) params.set('to', filters.to)
  }
  return params
}

/** True when the range ends now, so new decisions belong in it (the live tail makes sense). */
export function rangeIsLive(filters: DecisionFilters): boolean {
  return filters.range !== 'custom' || filters.to === ''
}
