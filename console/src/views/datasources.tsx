/**
 * Datasources: every datasource the subject may read, failing ones first, with the last attempt,
 * the last success and the error; a datasource's page shows its configuration (never a secret
 * value: the API returns secret ids only) and a button that runs it now (`POST`, shown only when
 * the subject may).
 */
import { useState } from 'preact/hooks'
import { ApiError, idPath } from '../api/client'
import { type Datasource, type DatasourceStatus, datasourceOrder } from '../api/datasources'
import { useAllowed } from '../auth/permissions'
import { href } from '../router'
import { JsonView } from '../ui/json-view'
import { Empty, ErrorBox, Loading } from '../ui/status-message'
import { TimeAgo } from '../ui/time'
import { useApi } from '../ui/use-api'
import type { ViewProps } from './index'

export function DatasourcesView(props: ViewProps) {
  return props.rest.length === 0 ? <DatasourceList {...props} /> : <DatasourceDetail {...props} />
}

const SERVICE_FIELDS = new Set(['id', 'status', 'executed', 'metadata', 'resources'])

function StatusBadge({ status }: { status: DatasourceStatus | undefined }) {
  const code = status?.code ?? 'unknown'
  const tone = code === 'ok' ? 'good' : code === 'error' ? 'bad' : 'warn'
  return <span class={`badge ${tone}`}>{code}</span>
}

/** The subject's datasources: all of the workspace's when it may list them, else its systems'. */
async function readableDatasources(api: ViewProps['api'], signal: AbortSignal): Promise<Datasource[]> {
  try {
    return await api.get<Datasource[]>('/v1/datasources', undefined, signal)
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 403) throw err
    const systems = await api.get<Array<{ id: string }>>('/v1/systems', undefined, signal)
    if (systems.length === 0) return []
    return api.get<Datasource[]>('/v1/datasources', { system: systems.map((s) => s.id).join(',') }, signal)
  }
}

function DatasourceList({ api }: ViewProps) {
  const list = useApi((signal) => readableDatasources(api, signal), [api])
  const rows = list.data ? [...list.data].sort(datasourceOrder) : undefined
  return (
    <section aria-labelledby="datasources-title">
      <h1 id="datasources-title">Datasources</h1>
      {list.error && <ErrorBox error={list.error} />}
      {list.loading && !rows && <Loading what="datasources" />}
      {rows && rows.length === 0 && <Empty>No datasources you may read.</Empty>}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Datasource</th>
                <th scope="col">Category</th>
                <th scope="col">Status</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Last success</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <a href={href('datasources', ...d.id.split('/'))}>{d.id}</a>
                    {d.enabled === false && <span class="muted"> (disabled)</span>}
                  </th>
                  <td>{d.category}</td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td>
                    <TimeAgo at={d.status?.last_attempt} />
                  </td>
                  <td>
                    <TimeAgo at={d.status?.last_success} />
                  </td>
                  <td class="message">{d.status?.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

function DatasourceDetail({ api, rest }: ViewProps) {
  const id = rest.join('/')
  const path = `/v1/datasources/${idPath(id)}`
  const loaded = useApi((signal) => api.get<Datasource>(path, undefined, signal), [api, path])
  const mayRun = useAllowed(api, { operation: 'POST', path })
  const [running, setRunning] = useState(false)
  const [runError, setRunError] = useState<Error | undefined>(undefined)

  const runNow = async () => {
    setRunning(true)
    setRunError(undefined)
    try {
      await api.post<DatasourceStatus>(path)
      loaded.reload()
    } catch (err) {
      setRunError(err as Error)
    } finally {
      setRunning(false)
    }
  }

  const d = loaded.data
  // The configuration as the user wrote it, without the fields the service adds.
  const config = d
    ? Object.fromEntries(Object.entries(d).filter(([key]) => !SERVICE_FIELDS.has(key)))
    : undefined
  return (
    <section aria-labelledby="datasource-title">
      <p>
        <a href={href('datasources')}>← Datasources</a>
      </p>
      <h1 id="datasource-title">{id}</h1>
      {loaded.error && <ErrorBox error={loaded.error} />}
      {loaded.loading && !d && <Loading what="the datasource" />}
      {d && (
        <>
          <h2>Status</h2>
          <dl class="facts">
            <dt>State</dt>
            <dd>
              <StatusBadge status={d.status} /> {d.status?.message}
            </dd>
            <dt>Last attempt</dt>
            <dd>
              <TimeAgo at={d.status?.last_attempt} />
            </dd>
            <dt>Last success</dt>
            <dd>
              <TimeAgo at={d.status?.last_success} />
            </dd>
            <dt>Duration</dt>
            <dd>{d.status?.duration === undefined ? '–' : `${d.status.duration} ms`}</dd>
            <dt>Size</dt>
            <dd>
              {d.status?.size === undefined ? '–' : `${d.status.size} bytes`}
              {d.status?.items === undefined ? '' : `, ${d.status.items} items`}
            </dd>
          </dl>
          {mayRun && d.category !== 'rest' && (
            <div class="row">
              <button type="button" onClick={runNow} disabled={running}>
                {running ? 'Running…' : 'Run now'}
              </button>
            </div>
          )}
          {runError && <ErrorBox error={runError} />}
          <h2>Configuration</h2>
          <JsonView value={config} label="Datasource configuration" />
        </>
      )}
    </section>
  )
}
