/**
 * Role bindings as the API sees them: validation of v1 and v2 input, the two views of a stored
 * binding, and the writes both versions share (checks against the roles and the systems, then
 * the store; the routes tell the authorizer once the transaction commits). v1 addresses a binding by resource and name; v2 by id.
 */
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { badRequest } from '../../core/http/index.js'
import {
  type GrantSubject,
  objectMeta,
  type ServiceRepositories,
  type StoredBinding,
} from '../../store/service/index.js'
import { roleById, roleByName } from './roles.js'

export const RESOURCE_KINDS = ['workspace', 'system', 'library'] as const

/** v1 path resource types and the resource kinds they stand for. */
export const V1_RESOURCE_TYPES: Record<string, string> = {
  systems: 'system',
  libraries: 'library',
  workspace: 'workspace',
}
const V1_TYPE_OF_KIND: Record<string, string> = {
  system: 'systems',
  library: 'libraries',
  workspace: 'workspace',
}

export const subjectSchema = z.strictObject({
  kind: z.enum(['user', 'token', 'claim']),
  id: z.string().min(1).max(256).optional(),
  claim_config: z
    .strictObject({
      identity_provider: z.string().max(256).optional(),
      key: z.string().min(1).max(256),
      value: z.string().min(1).max(1024),
    })
    .optional(),
})

export const v2BindingSchema = z.strictObject({
  id: z.string().min(1).max(128).optional(),
  // A workspace has no id: `{kind: workspace}` alone names it.
  resource_filter: z.strictObject({ kind: z.string().min(1), id: z.string().max(256).default('') }),
  role_id: z.string().min(1),
  subjects: z.array(subjectSchema).max(1000),
  metadata: z.unknown().optional(),
})

export const v1BindingSchema = z.strictObject({
  id: z.string().optional(),
  role_name: z.string().min(1),
  subjects: z.array(z.string().min(1).max(1024)).max(1000),
  description: z.string().max(4096).default(''),
  metadata: z.unknown().optional(),
})

type SubjectInput = z.output<typeof subjectSchema>

/** A v2 subject as stored. @throws HttpError 400 naming the field. */
export function subjectFromV2(input: SubjectInput, field: string): GrantSubject {
  if (input.kind === 'claim') {
    if (!input.claim_config) throw badRequest(`${field}.claim_config: required for a claim subject`)
    const { identity_provider = '', key, value } = input.claim_config
    return { kind: 'claim', provider: identity_provider, key, value }
  }
  if (!input.id) throw badRequest(`${field}.id: required for a ${input.kind} subject`)
  return { kind: input.kind, id: input.id }
}

export function subjectToV2(subject: GrantSubject) {
  if (subject.kind !== 'claim') return { kind: subject.kind, id: subject.id }
  return {
    kind: 'claim',
    claim_config: {
      ...(subject.provider ? { identity_provider: subject.provider } : {}),
      key: subject.key,
      value: subject.value,
    },
  }
}

/**
 * v1 subjects are strings: `token:<id>`, `user:<id>` (or a bare user id, as DAS's e-mail
 * subjects), `claim:<key>=<value>` or `claim:<provider>/<key>=<value>`.
 */
export function subjectFromV1(text: string, field: string): GrantSubject {
  const colon = text.indexOf(':')
  const kind = colon === -1 ? 'user' : text.slice(0, colon)
  const rest = colon === -1 ? text : text.slice(colon + 1)
  if (kind === 'token' || kind === 'user') {
    if (rest === '') throw badRequest(`${field}: empty ${kind} id`)
    return { kind, id: rest }
  }
  if (kind === 'claim') {
    const eq = rest.indexOf('=')
    if (eq <= 0 || eq === rest.length - 1) throw badRequest(`${field}: expected claim:[provider/]key=value`)
    const slash = rest.slice(0, eq).indexOf('/')
    return {
      kind: 'claim',
      provider: slash === -1 ? '' : rest.slice(0, slash),
      key: rest.slice(slash + 1, eq),
      value: rest.slice(eq + 1),
    }
  }
  return { kind: 'user', id: text } // a user id that contains a colon
}

export function subjectToV1(subject: GrantSubject): string {
  if (subject.kind === 'claim')
    return `claim:${subject.provider ? `${subject.provider}/` : ''}${subject.key}=${subject.value}`
  return `${subject.kind}:${subject.id}`
}

export function sameSubject(a: GrantSubject, b: GrantSubject): boolean {
  return subjectToV1(a) === subjectToV1(b)
}

/** The v2 view (`RoleBinding`). */
export function bindingToV2(binding: StoredBinding) {
  return {
    id: binding.id,
    resource_filter: { kind: binding.resourceKind, id: binding.resourceId },
    role_id: binding.role,
    subjects: binding.subjects.map(subjectToV2),
    metadata: objectMeta(binding.meta),
  }
}

/** The v1 view (`RoleBinding` v1). */
export function bindingToV1(binding: StoredBinding) {
  return {
    id: binding.name,
    role_name: roleById(binding.role)?.v1Name ?? binding.role,
    subjects: binding.subjects.map(subjectToV1),
    description: binding.description,
    metadata: objectMeta(binding.meta),
  }
}

/** The v1 resource type of a resource kind. */
export function v1TypeOf(kind: string): string {
  return V1_TYPE_OF_KIND[kind] ?? kind
}

/** A fresh binding id. */
export function newBindingId(): string {
  return randomBytes(12).toString('hex')
}

/**
 * Checks a binding before it is written: a known resource kind, an existing system, a known
 * role of that kind. @throws HttpError 400 naming the field (`fields` maps our names to the
 * caller's version's field names).
 */
export async function checkBinding(
  tx: ServiceRepositories,
  binding: Pick<StoredBinding, 'role' | 'resourceKind' | 'resourceId'>,
  fields: { kind: string; id: string; role: string },
): Promise<void> {
  if (!(RESOURCE_KINDS as readonly string[]).includes(binding.resourceKind))
    throw badRequest(
      `${fields.kind}: unknown resource kind "${binding.resourceKind}" (expected workspace, system or library)`,
    )
  if (binding.resourceKind === 'system' && !(await tx.systems.get(binding.resourceId)))
    throw badRequest(`${fields.id}: system "${binding.resourceId}" does not exist`)
  if (binding.resourceKind === 'library' && !(await tx.libraries.get(binding.resourceId)))
    throw badRequest(`${fields.id}: library "${binding.resourceId}" does not exist`)
  const role = roleById(binding.role)
  if (!role) throw badRequest(`${fields.role}: unknown role "${binding.role}"`)
  if (role.resource_kind !== binding.resourceKind)
    throw badRequest(
      `${fields.role}: role ${role.id} applies to ${role.resource_kind} resources, not ${binding.resourceKind}`,
    )
}

/** Resolves a v1 role name (short name or v2 id) under a resource kind. @throws HttpError 400 */
export function v1Role(name: string, resourceKind: string): string {
  const role = roleByName(name, resourceKind)
  if (!role) throw badRequest(`role_name: unknown role "${name}"`)
  return role.id
}
