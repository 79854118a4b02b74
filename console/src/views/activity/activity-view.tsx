/**
 * Activity: the audit log (`GET /v2/activity`), newest first, with its filters (class, outcome,
 * text, time range) kept in the address; each record linked to what it changed. The first page
 * refreshes every 10 s; "Older" follows the service's cursor.
 */
import { useEffect, useState } from 'preact/hooks'
import type { ActivityPage, ActivityRecord } from '../../api/activity'
import { withQuery } from '../../api/client'
import { replaceParams } from '../../router'
import { ScrollTable } from '../../ui/scroll-table'
import { Empty, ErrorBox, Loading } from '../../ui/status-message'
import { useApi, useInterval } from '../../ui/use-api'
import type { ViewProps } from '../index'
import { ActivityFilterForm, filtersFromParams } from './activity-filters'
import { ActivityRow } from './activity-row'
import './activity.css'

const PAGE = 50
const REFRESH_MS = 10_000

export function ActivityView({ api, params }: ViewProps) {
  const filters = filtersFromParams(params)
  const key = JSON.stringify(filters)
  const first = useApi(
    (signal) =>
      api.raw<ActivityPage>('GET', withQuery('/v2/activity', { ...filters, limit: PAGE }), undefined, signal),
    [api, key],
  )
  const [older, setOlder] = useState<ActivityRecord[]>([])
  const [cursor, setCursor] = useState<string | undefined>(undefined)
  const [olderError, setOlderError] = useState<Error | undefined>(undefined)
  // A new first page (new filters, a refresh) starts the list again.
  useEffect(() => {
    setOlder([])
    setCursor(first.data?.cursor)
  }, [first.data])
  useInterval(first.reload, older.length === 0 ? REFRESH_MS : undefined)

  const loadOlder = async () => {
    if (!cursor) return
    try {
      const page = await api.raw<ActivityPage>(
        'GET',
        withQuery('/v2/activity', { ...filters, limit: PAGE, cursor }),
      )
      setOlder((o) => [...o, ...page.results])
      setCursor(page.cursor)
      setOlderError(undefined)
    } catch (err) {
      setOlderError(err as Error)
    }
  }
  const records = [...(first.data?.results ?? []), ...older]
  return (
    <section aria-labelledby="activity-title" class="activity">
      <h1 id="activity-title">Activity</h1>
      <ActivityFilterForm
        filters={filters}
        onApply={(next) => {
          replaceParams(next)
        }}
        onRefresh={first.reload}
      />
      {first.error && <ErrorBox error={first.error} />}
      {first.loading && !first.data && <Loading what="activity" />}
      {first.data?.partial && (
        <p class="muted">The text search ran out of time before the page was full: ask for older records.</p>
      )}
      {first.data && records.length === 0 && <Empty>No activity matches.</Empty>}
      {records.length > 0 && (
        <ScrollTable label="activity records">
          <table class="activity-table cards">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Request</th>
                <th scope="col">Outcome</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {records.map((r) => (
                <ActivityRow key={`${r.request.id}-${r.request.timestamp}`} record={r} />
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {olderError && <ErrorBox error={olderError} />}
      {cursor && (
        <p>
          <button type="button" class="secondary" onClick={loadOlder}>
            Older
          </button>
        </p>
      )}
    </section>
  )
}
