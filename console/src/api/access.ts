/**
 * Role bindings of one resource, read and written through the API version that addresses it:
 * v1's `/v1/authz/rolebindings/{systems|libraries}/{id}/{name}` for a system or a library (a
 * system's owner may manage its own), v2's `/v2/authz/rolebindings` for the workspace (which has
 * no id in v1's paths). Subjects are written as v1 writes them: `token:ID`, `user:ID`,
 * `claim:[provider/]key=value`.
 */
import type { ApiClient } from './client'

export type ResourceKind = 'workspace' | 'system' | 'library'

export interface AccessResource {
  kind: ResourceKind
  /** Empty for the workspace. */
  id: string
}

export interface Binding {
  /** What deletes it: the v1 name, or the v2 id for the workspace. */
  key: string
  role: string
  subjects: string[]
  description: string
}

export interface Role {
  id: string
  resource_kind: ResourceKind
  description: string
}

interface V1Binding {
  id: string
  role_name: string
  subjects: string[]
  description?: string
}

interface V2Subject {
  kind: 'user' | 'token' | 'claim'
  id?: string
  claim_config?: { identity_provider?: string; key: string; value: string }
}

interface V2Binding {
  id: string
  role_id: string
  subjects: V2Subject[]
}

const V1_TYPE: Record<Exclude<ResourceKind, 'workspace'>, string> = {
  system: 'systems',
  library: 'libraries',
}

/** The path of a binding collection (or one binding): v1 for systems and libraries, v2 for the workspace. */
export function bindingsPath(resource: AccessResource, name?: string): string {
  if (resource.kind === 'workspace')
    return name === undefined
      ? '/v2/authz/rolebindings'
      : `/v2/authz/rolebindings/${encodeURIComponent(name)}`
  const base = `/v1/authz/rolebindings/${V1_TYPE[resource.kind]}/${encodeURIComponent(resource.id)}`
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`
}

export function subjectText(s: V2Subject): string {
  if (s.kind === 'claim' && s.claim_config) {
    const { identity_provider: provider, key, value } = s.claim_config
    return `claim:${provider ? `${provider}/` : ''}${key}=${value}`
  }
  return `${s.kind}:${s.id ?? ''}`
}

/** A typed subject in v2's shape; throws with a message for the form when it is not one. */
export function parseSubject(text: string): V2Subject {
  const colon = text.indexOf(':')
  const kind = colon === -1 ? 'user' : text.slice(0, colon)
  const rest = colon === -1 ? text : text.slice(colon + 1)
  if ((kind === 'token' || kind === 'user') && rest !== '') return { kind, id: rest }
  if (kind === 'claim') {
    const eq = rest.indexOf('=')
    if (eq > 0 && eq < rest.length - 1) {
      const name = rest.slice(0, eq)
      const slash = name.indexOf('/')
      return {
        kind: 'claim',
        claim_config: {
          ...(slash === -1 ? {} : { identity_provider: name.slice(0, slash) }),
          key: slash === -1 ? name : name.slice(slash + 1),
          value: rest.slice(eq + 1),
        },
      }
    }
  }
  throw new Error(`"${text}" is not a subject: write token:ID, user:ID or claim:[provider/]key=value`)
}

export async function listBindings(
  api: ApiClient,
  resource: AccessResource,
  signal?: AbortSignal,
): Promise<Binding[]> {
  if (resource.kind === 'workspace') {
    const answer = await api.raw<{ rolebindings: V2Binding[] }>(
      'GET',
      '/v2/authz/rolebindings?resource_kind=workspace',
      undefined,
      signal,
    )
    return answer.rolebindings.map((b) => ({
      key: b.id,
      role: b.role_id,
      subjects: b.subjects.map(subjectText),
      description: '',
    }))
  }
  const list = await api.get<V1Binding[]>(bindingsPath(resource), undefined, signal)
  return list.map((b) => ({
    key: b.id,
    role: b.role_name,
    subjects: b.subjects,
    description: b.description ?? '',
  }))
}

export async function listRoles(api: ApiClient, kind: ResourceKind, signal?: AbortSignal): Promise<Role[]> {
  const answer = await api.raw<{ roles: Role[] }>(
    'GET',
    `/v2/authz/roles?resource_kind=${kind}`,
    undefined,
    signal,
  )
  return answer.roles
}

/** Adds a binding named `name` (v1) granting `role` to `subjects`. */
export async function addBinding(
  api: ApiClient,
  resource: AccessResource,
  name: string,
  role: string,
  subjects: string[],
): Promise<void> {
  const parsed = subjects.map(parseSubject)
  if (resource.kind === 'workspace') {
    await api.raw('POST', '/v2/authz/rolebindings', {
      id: name,
      resource_filter: { kind: 'workspace' },
      role_id: role,
      subjects: parsed,
    })
    return
  }
  await api.put(bindingsPath(resource, name), { role_name: role, subjects: parsed.map(subjectText) })
}

export async function removeBinding(api: ApiClient, resource: AccessResource, key: string): Promise<void> {
  await api.delete(bindingsPath(resource, key))
}
