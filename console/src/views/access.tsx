/**
 * Access: who holds which role on the workspace, a system or a library. Adding and removing
 * bindings is offered only where the service says the subject may (`authz.write` on that
 * resource); the API refuses it anyway when forced.
 */
import { useState } from 'preact/hooks'
import {
  type AccessResource,
  addBinding,
  bindingsPath,
  listBindings,
  listRoles,
  removeBinding,
} from '../api/access'
import type { PermissionCheck } from '../api/types'
import { usePermissions } from '../auth/permissions'
import { href } from '../router'
import { Empty, ErrorBox, Loading } from '../ui/status-message'
import { useApi } from '../ui/use-api'
import type { ViewProps } from './index'

/** `#/access/workspace`, `#/access/systems/<id>`, `#/access/libraries/<id>`. */
function resourceOf(rest: string[]): AccessResource | undefined {
  const [type, id = ''] = rest
  if (type === 'workspace') return { kind: 'workspace', id: '' }
  if (type === 'systems' && id) return { kind: 'system', id }
  if (type === 'libraries' && id) return { kind: 'library', id }
  return undefined
}

export function AccessView(props: ViewProps) {
  const resource = resourceOf(props.rest)
  return resource ? <ResourceAccess {...props} resource={resource} /> : <ResourcePicker {...props} />
}

function ResourcePicker({ api }: ViewProps) {
  const systems = useApi(
    (signal) => api.get<Array<{ id: string; name: string }>>('/v1/systems', undefined, signal),
    [api],
  )
  const libraries = useApi(
    (signal) => api.get<Array<{ id: string }>>('/v1/libraries', undefined, signal),
    [api],
  )
  return (
    <section aria-labelledby="access-title">
      <h1 id="access-title">Access</h1>
      <p>Choose what to see the role bindings of.</p>
      <ul class="plain">
        <li>
          <a href={href('access', 'workspace')}>The workspace</a>
        </li>
      </ul>
      <h2>Systems</h2>
      {systems.error && <ErrorBox error={systems.error} />}
      {systems.loading && !systems.data && <Loading what="systems" />}
      {systems.data?.length === 0 && <Empty>No systems you may read.</Empty>}
      <ul class="plain">
        {systems.data?.map((s) => (
          <li key={s.id}>
            <a href={href('access', 'systems', s.id)}>{s.name}</a> <code class="muted">{s.id}</code>
          </li>
        ))}
      </ul>
      <h2>Libraries</h2>
      {libraries.error && <ErrorBox error={libraries.error} />}
      {libraries.data?.length === 0 && <Empty>No libraries you may read.</Empty>}
      <ul class="plain">
        {libraries.data?.map((l) => (
          <li key={l.id}>
            <a href={href('access', 'libraries', l.id)}>{l.id}</a>
          </li>
        ))}
      </ul>
    </section>
  )
}

function resourceTitle(resource: AccessResource): string {
  return resource.kind === 'workspace' ? 'the workspace' : `${resource.kind} ${resource.id}`
}

function ResourceAccess({ api, resource }: ViewProps & { resource: AccessResource }) {
  const key = `${resource.kind}/${resource.id}`
  const bindings = useApi((signal) => listBindings(api, resource, signal), [api, key])
  const roles = useApi((signal) => listRoles(api, resource.kind, signal), [api, resource.kind])
  // The service decides what may be changed: a write and a removal on this resource.
  const checks: PermissionCheck[] =
    resource.kind === 'workspace'
      ? [
          {
            operation: 'POST',
            path: bindingsPath(resource),
            body: { resource_filter: { kind: 'workspace' } },
          },
          { operation: 'DELETE', path: bindingsPath(resource, 'any') },
        ]
      : [
          { operation: 'PUT', path: bindingsPath(resource, 'any') },
          { operation: 'DELETE', path: bindingsPath(resource, 'any') },
        ]
  const [mayAdd, mayRemove] = usePermissions(api, checks) ?? [false, false]
  const [actionError, setActionError] = useState<Error | undefined>(undefined)

  const remove = async (bindingKey: string) => {
    setActionError(undefined)
    try {
      await removeBinding(api, resource, bindingKey)
      bindings.reload()
    } catch (err) {
      setActionError(err as Error)
    }
  }

  return (
    <section aria-labelledby="access-title">
      <p>
        <a href={href('access')}>← Access</a>
      </p>
      <h1 id="access-title">Role bindings of {resourceTitle(resource)}</h1>
      {bindings.error && <ErrorBox error={bindings.error} />}
      {bindings.loading && !bindings.data && <Loading what="role bindings" />}
      {bindings.data?.length === 0 && <Empty>No role bindings on {resourceTitle(resource)}.</Empty>}
      {bindings.data && bindings.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Binding</th>
                <th scope="col">Role</th>
                <th scope="col">Subjects</th>
                {mayRemove && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {bindings.data.map((b) => (
                <tr key={b.key}>
                  <th scope="row">
                    <code>{b.key}</code>
                    {b.description && <div class="muted">{b.description}</div>}
                  </th>
                  <td>{b.role}</td>
                  <td>
                    {b.subjects.map((s) => (
                      <div key={s}>
                        <code>{s}</code>
                      </div>
                    ))}
                  </td>
                  {mayRemove && (
                    <td>
                      <button
                        type="button"
                        class="danger"
                        onClick={() => remove(b.key)}
                        aria-label={`Remove binding ${b.key}`}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {actionError && <ErrorBox error={actionError} />}
      {mayAdd && roles.data && (
        <AddBinding
          roles={roles.data.map((r) => ({ id: r.id, description: r.description }))}
          onAdd={async (name, role, subjects) => {
            await addBinding(api, resource, name, role, subjects)
            bindings.reload()
          }}
        />
      )}
    </section>
  )
}

function AddBinding({
  roles,
  onAdd,
}: {
  roles: Array<{ id: string; description: string }>
  onAdd: (name: string, role: string, subjects: string[]) => Promise<void>
}) {
  const [name, setName] = useState('')
  const [role, setRole] = useState(roles[0]?.id ?? '')
  const [subjects, setSubjects] = useState('')
  const [error, setError] = useState<Error | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setError(undefined)
    setBusy(true)
    try {
      const list = subjects
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter((s) => s !== '')
      if (list.length === 0) throw new Error('Name at least one subject.')
      await onAdd(name.trim(), role, list)
      setName('')
      setSubjects('')
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit} aria-labelledby="add-binding-title">
      <h2 id="add-binding-title">Add a role binding</h2>
      <label for="binding-name">Binding name</label>
      <input
        id="binding-name"
        required
        pattern="[A-Za-z0-9._-]+"
        value={name}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <label for="binding-role">Role</label>
      <select id="binding-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
        {roles.map((r) => (
          <option key={r.id} value={r.id}>
            {r.id}: {r.description}
          </option>
        ))}
      </select>
      <label for="binding-subjects">Subjects (token:ID, user:ID or claim:key=value; one per line)</label>
      <textarea
        id="binding-subjects"
        rows={3}
        required
        value={subjects}
        onInput={(e) => setSubjects((e.target as HTMLTextAreaElement).value)}
      />
      <div class="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add binding'}
        </button>
      </div>
      {error && <ErrorBox error={error} />}
    </form>
  )
}
