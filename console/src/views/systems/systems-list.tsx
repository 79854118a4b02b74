/** Systems: the list, each with its type, status (and why when not Ready) and policies. */
import type { System } from '../../api/systems'
import { href } from '../../router'
import { ScrollTable } from '../../ui/scroll-table'
import { Empty, ErrorBox, Loading } from '../../ui/status-message'
import { useApi } from '../../ui/use-api'
import type { ViewProps } from '../index'
import { SystemStatus } from './status-badge'
import './systems.css'

export function SystemsList({ api }: ViewProps) {
  const systems = useApi((signal) => api.get<System[]>('/v1/systems', undefined, signal), [api])
  return (
    <section aria-labelledby="systems-title">
      <h1 id="systems-title">Systems</h1>
      {systems.error && <ErrorBox error={systems.error} />}
      {systems.loading && !systems.data && <Loading what="systems" />}
      {systems.data && systems.data.length === 0 && <Empty>No systems you may read.</Empty>}
      {systems.data && systems.data.length > 0 && (
        <ScrollTable label="systems">
          <table class="cards">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Policies</th>
                <th scope="col">Id</th>
              </tr>
            </thead>
            <tbody>
              {systems.data.map((s) => (
                <tr key={s.id}>
                  <td data-label="Name">
                    <a href={href('systems', s.id)}>{s.name}</a>
                  </td>
                  <td data-label="Type">{s.type}</td>
                  <td data-label="Status">
                    <SystemStatus system={s} brief />
                  </td>
                  <td data-label="Policies">{s.policies?.length ?? 0}</td>
                  <td data-label="Id">
                    <code>{s.id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
    </section>
  )
}
