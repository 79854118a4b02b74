/**
 * `#/playground`: the compile playground. Pick a system, edit its modules, a rule path, an input
 * and a target; "Compile" (or Ctrl+Enter) asks `POST /v1/systems/{id}/compile/{rule path}` and
 * shows what the relay would answer. Compiling needs `data.read` on the system; the button is
 * disabled when the service says no, and the API refuses it anyway.
 */
import './playground.css'
import { useState } from 'preact/hooks'
import type { System } from '../../api/systems'
import { usePermissions } from '../../auth/permissions'
import { replaceParams } from '../../router'
import { Empty, ErrorBox, Loading } from '../../ui/status-message'
import { useApi } from '../../ui/use-api'
import type { ViewProps } from '../index'
import { PlaygroundForm } from './playground-form'

export function PlaygroundView({ api, params }: ViewProps) {
  const systems = useApi((signal) => api.get<System[]>('/v1/systems', undefined, signal), [api])
  const chosen = params.get('system') ?? systems.data?.[0]?.id ?? ''
  const allowed = usePermissions(
    api,
    chosen ? [{ operation: 'POST', path: `/v1/systems/${chosen}/compile/x` }] : [],
  )
  const [note, setNote] = useState('')
  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Compile playground</h1>
      <p class="muted">
        A filter policy, an input and a target: the SQL or UCAST a relay serving the system would answer, or
        its errors with their source lines. Edits stay in this page; nothing is saved.
      </p>
      {systems.error && <ErrorBox error={systems.error} />}
      {systems.loading && !systems.data && <Loading what="systems" />}
      {systems.data?.length === 0 && <Empty>No systems you may read.</Empty>}
      {systems.data && systems.data.length > 0 && (
        <div class="row">
          <div>
            <label for="playground-system">System</label>
            <select
              id="playground-system"
              value={chosen}
              onChange={(e) => {
                const next = new URLSearchParams(params)
                next.set('system', e.currentTarget.value)
                replaceParams(next)
                setNote(`Loaded the modules of ${e.currentTarget.value}`)
              }}
            >
              {systems.data.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.id})
                </option>
              ))}
            </select>
          </div>
        </div>
      )}
      <p class="visually-hidden" role="status" aria-live="polite">
        {note}
      </p>
      {allowed?.[0] === false && (
        <p class="error" role="alert">
          Your role bindings do not grant data.read on {chosen}: the playground cannot compile its policies.
        </p>
      )}
      {chosen && <PlaygroundForm key={chosen} api={api} system={chosen} allowed={allowed?.[0] !== false} />}
    </section>
  )
}
