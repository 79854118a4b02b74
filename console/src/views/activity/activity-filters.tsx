/** The activity filters: kept in the address (`#/activity?class=audit&q=…`), applied on submit. */
import { useState } from 'preact/hooks'
import type { ActivityFilters } from '../../api/activity'

/** The API's filters from the address; unknown values are left out. */
export function filtersFromParams(params: URLSearchParams): ActivityFilters {
  const cls = params.get('class')
  const outcome = params.get('outcome')
  const filters: ActivityFilters = {}
  if (cls === 'audit' || cls === 'activity') filters.class = cls
  if (outcome === 'allowed' || outcome === 'denied' || outcome === 'error') filters.outcome = outcome
  const q = params.get('q')?.trim()
  if (q) filters.query = q
  const from = params.get('from')
  const to = params.get('to')
  if (from && !Number.isNaN(Date.parse(from))) filters.start_time = new Date(from).toISOString()
  if (to && !Number.isNaN(Date.parse(to))) filters.end_time = new Date(to).toISOString()
  return filters
}

export function ActivityFilterForm({
  filters,
  onApply,
  onRefresh,
}: {
  filters: ActivityFilters
  onApply: (params: URLSearchParams) => void
  onRefresh: () => void
}) {
  const [cls, setCls] = useState(filters.class ?? '')
  const [outcome, setOutcome] = useState(filters.outcome ?? '')
  const [q, setQ] = useState(filters.query ?? '')
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const submit = (e: Event) => {
    e.preventDefault()
    const next = new URLSearchParams()
    if (cls) next.set('class', cls)
    if (outcome) next.set('outcome', outcome)
    if (q.trim()) next.set('q', q.trim())
    if (from) next.set('from', from)
    if (to) next.set('to', to)
    onApply(next)
  }
  return (
    <form class="row activity-filters" onSubmit={submit} aria-label="Activity filters">
      <div>
        <label for="activity-class">Class</label>
        <select id="activity-class" value={cls} onChange={(e) => setCls(e.currentTarget.value)}>
          <option value="">all</option>
          <option value="audit">audit (changes, refusals)</option>
          <option value="activity">activity (reads)</option>
        </select>
      </div>
      <div>
        <label for="activity-outcome">Outcome</label>
        <select id="activity-outcome" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>
          <option value="">all</option>
          <option value="allowed">allowed</option>
          <option value="denied">denied</option>
          <option value="error">error</option>
        </select>
      </div>
      <div>
        <label for="activity-query">Text</label>
        <input
          id="activity-query"
          value={q}
          placeholder="e.g. policies alice"
          onInput={(e) => setQ(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="activity-from">From</label>
        <input
          id="activity-from"
          type="datetime-local"
          value={from}
          onInput={(e) => setFrom(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="activity-to">To</label>
        <input
          id="activity-to"
          type="datetime-local"
          value={to}
          onInput={(e) => setTo(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Search</button>
      <button type="button" class="secondary" onClick={onRefresh}>
        Refresh
      </button>
    </form>
  )
}
