/**
 * Access control, v2: `GET /v2/authz/roles?resource_kind=`, the flat binding collection
 * `/v2/authz/rolebindings` (POST with `id` replaces, without creates, `If-None-Match: *` never
 * updates) and subject edits (PUT adds, POST replaces, DELETE removes). Envelopes are
 * `{roles}`, `{rolebindings}` and `{rolebinding}` as the spec names them.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { z } from 'zod'
import { conflict, forbidden, notFound, readStructuredBody } from '../../core/http/index.js'
import { type Actor, type GrantSubject, objectMeta, type StoredBinding } from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import { resourceOf } from '../authz/authorizer.js'
import {
  bindingToV2,
  checkBinding,
  newBindingId,
  sameSubject,
  subjectFromV2,
  subjectSchema,
  v2BindingSchema,
} from '../authz/bindings.js'
import { resourceText } from '../authz/middleware.js'
import { BUILTIN_ROLES } from '../authz/roles.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, validateBody } from '../validation.js'

const subjectsBodySchema = z.strictObject({ subjects: z.array(subjectSchema).max(1000) })

const BUILTIN_META = objectMeta({
  created_at: '1970-01-01T00:00:00.000Z',
  created_by: 'regent',
  created_through: 'builtin',
  last_modified_at: '1970-01-01T00:00:00.000Z',
  last_modified_by: 'regent',
  last_modified_through: 'builtin',
})

/** True when a binding passes every given filter (values of one filter are alternatives). */
function matchesFilters(binding: StoredBinding, filters: Record<string, string[]>): boolean {
  const any = (name: string, test: (value: string) => boolean) => {
    const values = filters[name] ?? []
    return values.length === 0 || values.some(test)
  }
  const subjectId = (s: GrantSubject) => (s.kind === 'claim' ? undefined : s.id)
  return (
    any('resource_kind', (v) => binding.resourceKind === v) &&
    any('resource_id', (v) => binding.resourceId === v) &&
    any('role_id', (v) => binding.role === v) &&
    any('subject_kind', (v) => binding.subjects.some((s) => s.kind === v)) &&
    any('subject_id', (v) => binding.subjects.some((s) => subjectId(s) === v))
  )
}

/** Routes of `/v2/authz`. */
export function authzV2Routes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store, authorizer } = deps
  const app = new Hono<ServiceEnv>()
  const actorOf = (c: Context<ServiceEnv>): Actor => ({ by: c.var.principal.id, through: 'api' })
  const answer = (c: Context<ServiceEnv>, binding: StoredBinding) =>
    c.json({ request_id: c.var.requestId, rolebinding: bindingToV2(binding) })

  /**
   * Refuses (403) unless the caller may take `action` on the resource of `binding` as stored.
   * The authorization middleware decided on its index of bindings, which may lag a change made
   * through another replica; this check reads the binding in the route's own transaction.
   */
  const assertMayManage = (
    c: Context<ServiceEnv>,
    action: string,
    binding: Pick<StoredBinding, 'resourceKind' | 'resourceId'>,
  ) => {
    const resource = resourceOf(binding.resourceKind, binding.resourceId)
    const principal = c.var.principal
    if (!authorizer.allows(principal, action, resource)) {
      throw forbidden(
        `${principal.kind} ${principal.id} may not ${action} on ${resourceText({ resources: [resource] })}: no role binding grants it`,
      )
    }
  }

  app.get('/v2/authz/roles', (c) => {
    const kinds = c.req.queries('resource_kind') ?? []
    const roles = BUILTIN_ROLES.filter((r) => kinds.length === 0 || kinds.includes(r.resource_kind)).map(
      (r) => ({
        id: r.id,
        resource_kind: r.resource_kind,
        description: r.description,
        inherit_roles: r.inherit_roles,
        metadata: BUILTIN_META,
      }),
    )
    return c.json({ request_id: c.var.requestId, roles })
  })

  app.get('/v2/authz/rolebindings', async (c) => {
    const filters: Record<string, string[]> = {}
    for (const name of ['resource_kind', 'resource_id', 'role_id', 'subject_kind', 'subject_id'])
      filters[name] = (c.req.queries(name) ?? []).flatMap((v) => v.split(',')).filter((v) => v !== '')
    const bindings = (await store.grants.list()).filter((b) => matchesFilters(b, filters))
    return c.json({ request_id: c.var.requestId, rolebindings: bindings.map(bindingToV2) })
  })

  app.post('/v2/authz/rolebindings', async (c) => {
    const body = validateBody(v2BindingSchema, await readStructuredBody(c), 'role binding')
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const id = body.id === undefined ? newBindingId() : checkId(body.id, 'id')
    const subjects = body.subjects.map((s, i) => subjectFromV2(s, `subjects.${i}`))
    const written = await inChangeTransaction(c, store, async (tx) => {
      const existing = body.id === undefined ? undefined : await tx.grants.get(id)
      if (existing) assertMayManage(c, 'authz.write', existing)
      if (existing && createOnly) throw conflict(`role binding ${id} already exists`)
      const binding = {
        id,
        // A binding made through v2 is named by its id in the v1 view, unless v1 named it first.
        name: existing?.name ?? id,
        description: existing?.description ?? '',
        role: body.role_id,
        resourceKind: body.resource_filter.kind,
        resourceId: body.resource_filter.id,
        subjects,
      }
      assertMayManage(c, 'authz.write', binding)
      await checkBinding(tx, binding, {
        kind: 'resource_filter.kind',
        id: 'resource_filter.id',
        role: 'role_id',
      })
      await tx.grants.put(binding, actorOf(c))
      return (await tx.grants.get(id))!
    })
    authorizer.changed()
    return answer(c, written)
  })

  app.get('/v2/authz/rolebindings/:id', async (c) => {
    const id = c.req.param('id')
    const binding = await store.grants.get(id)
    if (!binding) throw notFound(`role binding ${id} not found`)
    assertMayManage(c, 'authz.read', binding)
    return answer(c, binding)
  })

  app.delete('/v2/authz/rolebindings/:id', async (c) => {
    const id = c.req.param('id')
    const deleted = await inChangeTransaction(c, store, async (tx) => {
      const existing = await tx.grants.get(id)
      if (!existing) return false
      assertMayManage(c, 'authz.write', existing)
      return tx.grants.delete(id)
    })
    // `If-Match: *` asks for success when the binding is already gone.
    if (!deleted && c.req.header('If-Match')?.trim() !== '*') throw notFound(`role binding ${id} not found`)
    if (deleted) authorizer.changed()
    return c.json({ request_id: c.var.requestId })
  })

  /** Applies `edit` to a binding's subjects: POST replaces, PUT adds, DELETE removes. */
  const editSubjects =
    (edit: (current: GrantSubject[], given: GrantSubject[]) => GrantSubject[]) =>
    async (c: Context<ServiceEnv>) => {
      const id = c.req.param('id')!
      const body = validateBody(subjectsBodySchema, await readStructuredBody(c), 'subjects')
      const given = body.subjects.map((s, i) => subjectFromV2(s, `subjects.${i}`))
      const written = await inChangeTransaction(c, store, async (tx) => {
        const binding = await tx.grants.get(id)
        if (!binding) throw notFound(`role binding ${id} not found`)
        assertMayManage(c, 'authz.write', binding)
        await tx.grants.put({ ...binding, subjects: edit(binding.subjects, given) }, actorOf(c))
        return (await tx.grants.get(id))!
      })
      authorizer.changed()
      return answer(c, written)
    }
  const unique = (list: GrantSubject[]) =>
    list.filter((s, i) => list.findIndex((t) => sameSubject(s, t)) === i)

  app.post(
    '/v2/authz/rolebindings/:id/subjects',
    editSubjects((_, given) => unique(given)),
  )
  app.put(
    '/v2/authz/rolebindings/:id/subjects',
    editSubjects((current, given) => unique([...current, ...given])),
  )
  app.delete(
    '/v2/authz/rolebindings/:id/subjects',
    editSubjects((current, given) => current.filter((s) => !given.some((g) => sameSubject(s, g)))),
  )
  return app
}
