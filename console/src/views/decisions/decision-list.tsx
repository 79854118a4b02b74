/**
 * `#/decisions`: the search, the counts chart, the live tail and the results with paging. The
 * filters live in the address (replaceParams), so the page is a link to this search.
 */
import { useMemo, useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client'
import { type DecisionFilters, rangeTimes, searchQuery } from '../../api/decisions'
import { replaceParams } from '../../router'
import { Empty, ErrorBox, Loading } from '../../ui/status-message'
import { useApi } from '../../ui/use-api'
import { CountsPanel } from './counts-panel'
import { filtersFromParams, paramsFromFilters, rangeIsLive } from './filters'
import { ResultsTable } from './results-table'
import { SearchForm } from './search-form'
import { MAX_ITEMS, TAIL_MS, useDecisionList } from './use-decision-list'

interface Props {
  api: ApiClient
  params: URLSearchParams
}

export function DecisionList({ api, params }: Props) {
  const paramsKey = params.toString()
  // Dependencies: `paramsKey` stands for `params`.
  const filters = useMemo(() => filtersFromParams(params), [paramsKey])
  // Each Search press searches again, even with the same filters.
  const [searches, setSearches] = useState(0)
  // The range's instants are fixed when the search is made, not on every render.
  // Dependencies: `searches` asks for a new search.
  const query = useMemo(() => searchQuery(filters, rangeTimes(filters, Date.now())), [filters, searches])
  const tailable = rangeIsLive(filters)
  const list = useDecisionList(api, query, tailable)
  const systems = useApi(
    (signal) =>
      api.get<Array<{ id: string; name: string }>>('/v1/systems', undefined, signal).catch(() => []),
    [api],
  )

  const apply = (next: DecisionFilters) => {
    setSearches((n) => n + 1)
    replaceParams(paramsFromFilters(next))
    // replaceState does not fire hashchange; tell the router.
  }

  const tailState = !tailable
    ? 'off: the range has ended'
    : list.newer.length > 0
      ? 'off while reading older pages'
      : list.live
        ? `on: new decisions appear every ${TAIL_MS / 1000} s`
        : 'paused'

  return (
    <section aria-labelledby="decisions-title" class="decisions-view">
      <h1 id="decisions-title">Decisions</h1>
      <SearchForm filters={filters} systems={systems.data} onApply={apply} />
      <CountsPanel api={api} filters={filters} query={query} arrivals={list.arrivals} />
      <div class="row tail">
        <p class="muted" role="status" aria-live="polite">
          Live tail {tailState}
          {list.fresh.size > 0 && `; ${list.fresh.size} new since the search`}.
        </p>
        {tailable && list.newer.length === 0 && (
          <button
            type="button"
            class="secondary"
            aria-pressed={!list.live}
            onClick={() => list.setLive(!list.live)}
          >
            {list.live ? 'Pause live tail' : 'Resume live tail'}
          </button>
        )}
      </div>
      {list.error && <ErrorBox error={list.error} />}
      {list.tailError && !list.error && <ErrorBox error={list.tailError} />}
      {list.loading && list.items.length === 0 && <Loading what="decisions" />}
      {!list.loading && !list.error && list.items.length === 0 && (
        <Empty>
          {list.partial ? 'Nothing found yet: the search stopped at its time budget.' : 'No decisions match.'}
        </Empty>
      )}
      {list.items.length > 0 && <ResultsTable items={list.items} now={list.now} fresh={list.fresh} />}
      {list.items.length >= MAX_ITEMS && (
        <p class="muted">The list keeps the newest {MAX_ITEMS}; use “Older decisions” for the rest.</p>
      )}
      <nav class="row pager" aria-label="Pages of decisions">
        <button type="button" class="secondary" disabled={list.newer.length === 0} onClick={list.showNewer}>
          Newer decisions
        </button>
        <button type="button" class="secondary" disabled={!list.older} onClick={list.showOlder}>
          {list.partial ? 'Continue the search' : 'Older decisions'}
        </button>
      </nav>
    </section>
  )
}
