/** Systems: the list, each with its type and status. */
import { Empty, ErrorBox, Loading } from '../ui/status-message'
import { useApi } from '../ui/use-api'
import type { ViewProps } from './index'

interface SystemSummary {
  id: string
  name: string
  type: string
  description?: string
  status?: { code?: string; message?: string }
}

export function SystemsView({ api }: ViewProps) {
  const systems = useApi((signal) => api.get<SystemSummary[]>('/v1/systems', undefined, signal), [api])
  return (
    <section aria-labelledby="systems-title">
      <h1 id="systems-title">Systems</h1>
      {systems.error && <ErrorBox error={systems.error} />}
      {systems.loading && !systems.data && <Loading what="systems" />}
      {systems.data && systems.data.length === 0 && <Empty>No systems you may read.</Empty>}
      {systems.data && systems.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Id</th>
            </tr>
          </thead>
          <tbody>
            {systems.data.map((s) => (
              <tr key={s.id}>
                <td>{s.name}</td>
                <td>{s.type}</td>
                <td>
                  <code>{s.id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
