/**
 * Loads the counts for the chart (`GET /v1/decisions/counts`, the list's filters except the
 * search terms, which the counts do not take) and reloads them at most every 10 s while the
 * live tail brings decisions. A range without a start ("All time") is charted over 30 days.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { ApiClient, Query } from '../../api/client'
import { type DecisionCounts, type DecisionFilters, getCounts, rangeTimes } from '../../api/decisions'
import { ErrorBox } from '../../ui/status-message'
import { CountsChart } from './counts-chart'

const RELOAD_MS = 10_000
const UNBOUNDED_CHART_MS = 30 * 86_400_000

interface Props {
  api: ApiClient
  filters: DecisionFilters
  query: Query
  arrivals: number
}

export function CountsPanel({ api, filters, query, arrivals }: Props) {
  const [counts, setCounts] = useState<DecisionCounts | undefined>()
  const [error, setError] = useState<Error | undefined>()
  const [generation, setGeneration] = useState(0)
  const loadedAt = useRef(0)
  const key = JSON.stringify([filters, query])

  // New decisions: reload, but not more often than every RELOAD_MS.
  useEffect(() => {
    if (arrivals === 0) return
    const wait = Math.max(0, loadedAt.current + RELOAD_MS - Date.now())
    const timer = setTimeout(() => setGeneration((g) => g + 1), wait)
    return () => clearTimeout(timer)
  }, [arrivals])

  // Dependencies: `key` stands for the filters' content.
  useEffect(() => {
    const controller = new AbortController()
    const now = Date.now()
    const times = rangeTimes(filters, now)
    const end = times.end ?? new Date(now).toISOString()
    const start = times.start ?? new Date(Date.parse(end) - UNBOUNDED_CHART_MS).toISOString()
    loadedAt.current = now
    getCounts(api, { ...query, start_time: start }, end, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return
        setCounts(answer)
        setError(undefined)
      },
      (e: Error) => !controller.signal.aborted && setError(e),
    )
    return () => controller.abort()
  }, [api, key, generation])

  if (error) return <ErrorBox error={error} />
  if (!counts) return null
  return (
    <CountsChart
      counts={counts}
      note={
        query.search
          ? 'The chart counts every decision of the range, system and result; the search terms do not apply to it.'
          : undefined
      }
    />
  )
}
