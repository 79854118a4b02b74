/** A system's data documents (as its bundle places them) and its datasources with their status. */
import type { ApiClient } from '../../api/client'
import { idPath } from '../../api/client'
import type { Datasource, System } from '../../api/systems'
import { JsonView } from '../../ui/json-view'
import { ScrollTable } from '../../ui/scroll-table'
import { Empty } from '../../ui/status-message'
import { TimeAgo } from '../../ui/time'
import { useApi } from '../../ui/use-api'
import { LoadedSection } from './loaded'

export function SystemData({ api, system }: { api: ApiClient; system: System }) {
  const data = useApi(
    (signal) => api.get<unknown>(`/v1/data/systems/${idPath(system.id)}`, undefined, signal),
    [api, system.id],
  )
  const sources = useApi(
    (signal) => api.get<Datasource[]>('/v1/datasources', { system: system.id }, signal),
    [api, system.id],
  )
  return (
    <>
      <section aria-labelledby="data-title">
        <h2 id="data-title">Data</h2>
        <LoadedSection loaded={data} what="this system's data">
          {(d) => <JsonView value={d} label="data of the system" />}
        </LoadedSection>
      </section>
      <section aria-labelledby="datasources-title">
        <h2 id="datasources-title">Datasources</h2>
        <LoadedSection loaded={sources} what="datasources">
          {(list) =>
            list.length === 0 ? (
              <Empty>No datasources.</Empty>
            ) : (
              <ScrollTable label="datasources">
                <table class="cards">
                  <thead>
                    <tr>
                      <th scope="col">Id</th>
                      <th scope="col">Category</th>
                      <th scope="col">Status</th>
                      <th scope="col">Last attempt</th>
                      <th scope="col">Last success</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((d) => (
                      <tr key={d.id}>
                        <td data-label="Id">
                          <code>{d.id}</code>
                        </td>
                        <td data-label="Category">{d.category}</td>
                        <td data-label="Status">
                          <span
                            class={`badge ${d.status?.code === 'ok' ? 'good' : d.status?.code ? 'bad' : 'warn'}`}
                          >
                            {d.status?.code ?? 'not run'}
                          </span>
                          {d.status?.message && <span class="muted"> {d.status.message}</span>}
                        </td>
                        <td data-label="Last attempt">
                          <TimeAgo at={d.status?.last_attempt} />
                        </td>
                        <td data-label="Last success">
                          <TimeAgo at={d.status?.last_success} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollTable>
            )
          }
        </LoadedSection>
      </section>
    </>
  )
}
