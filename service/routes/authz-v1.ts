/**
 * Access control, v1: `GET /v1/authz/roles`, `GET /v1/authz/rolebindings` (resource type →
 * resource id → bindings), and bindings addressed by `{resourcetype}/{resource}/{rolebinding}`.
 * A view over the same grants as v2 (service/authz/bindings.ts).
 */
import { Hono } from 'hono'
import { badRequest, notFound, readStructuredBody } from '../../core/http/index.js'
import type { Actor } from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import {
  bindingToV1,
  checkBinding,
  newBindingId,
  subjectFromV1,
  V1_RESOURCE_TYPES,
  v1BindingSchema,
  v1Role,
  v1TypeOf,
} from '../authz/bindings.js'
import { BUILTIN_ROLES } from '../authz/roles.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope, validateBody } from '../validation.js'

function resourceKindOf(type: string): string {
  const kind = V1_RESOURCE_TYPES[type]
  if (!kind)
    throw badRequest(
      `resourcetype: unknown resource type "${type}" (expected systems, libraries or workspace)`,
    )
  return kind
}

/** Routes of `/v1/authz` (the permission check is in authz-evaluation.ts). */
export function authzV1Routes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store, authorizer } = deps
  const app = new Hono<ServiceEnv>()

  app.get('/v1/authz/roles', (c) => {
    const names = [...new Set(BUILTIN_ROLES.map((r) => r.v1Name))]
    return envelope(
      c,
      names.map((name) => ({ name })),
    )
  })

  app.get('/v1/authz/rolebindings', async (c) => {
    const result: Record<string, Record<string, unknown[]>> = {}
    for (const binding of await store.grants.list()) {
      const type = v1TypeOf(binding.resourceKind)
      const byResource = result[type] ?? {}
      result[type] = byResource
      const list = byResource[binding.resourceId] ?? []
      byResource[binding.resourceId] = list
      list.push(bindingToV1(binding))
    }
    return envelope(c, result)
  })

  app.get('/v1/authz/rolebindings/:type/:resource', async (c) => {
    const kind = resourceKindOf(c.req.param('type'))
    const resource = c.req.param('resource')
    const bindings = (await store.grants.list()).filter(
      (b) => b.resourceKind === kind && b.resourceId === resource,
    )
    return envelope(c, bindings.map(bindingToV1))
  })

  app.get('/v1/authz/rolebindings/:type/:resource/:name', async (c) => {
    const kind = resourceKindOf(c.req.param('type'))
    const { resource, name } = c.req.param()
    const binding = await store.grants.findByName(kind, resource, name)
    if (!binding) throw notFound(`role binding ${name} not found on ${c.req.param('type')}/${resource}`)
    return envelope(c, bindingToV1(binding))
  })

  app.put('/v1/authz/rolebindings/:type/:resource/:name', async (c) => {
    const kind = resourceKindOf(c.req.param('type'))
    const resource = c.req.param('resource')
    const name = checkId(c.req.param('name'), 'rolebinding')
    const body = validateBody(v1BindingSchema, await readStructuredBody(c), 'role binding')
    if (body.id !== undefined && body.id !== name)
      throw badRequest(`id: "${body.id}" does not match the path's role binding "${name}"`)
    const role = v1Role(body.role_name, kind)
    const subjects = body.subjects.map((s, i) => subjectFromV1(s, `subjects.${i}`))
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    const written = await inChangeTransaction(c, store, async (tx) => {
      const binding = {
        id: (await tx.grants.findByName(kind, resource, name))?.id ?? newBindingId(),
        name,
        description: body.description,
        role,
        resourceKind: kind,
        resourceId: resource,
        subjects,
      }
      await checkBinding(tx, binding, { kind: 'resourcetype', id: 'resource', role: 'role_name' })
      await tx.grants.put(binding, actor)
      return (await tx.grants.get(binding.id))!
    })
    authorizer.changed()
    return envelope(c, bindingToV1(written))
  })

  app.delete('/v1/authz/rolebindings/:type/:resource/:name', async (c) => {
    const kind = resourceKindOf(c.req.param('type'))
    const { resource, name } = c.req.param()
    const recursive = c.req.query('recursive')
    if (recursive !== undefined && recursive !== 'true' && recursive !== 'false')
      throw badRequest(`recursive: expected true or false, got "${recursive}"`)
    // A binding owns no other objects here, so `recursive` changes nothing once validated.
    await inChangeTransaction(c, store, async (tx) => {
      const binding = await tx.grants.findByName(kind, resource, name)
      if (!binding) throw notFound(`role binding ${name} not found on ${c.req.param('type')}/${resource}`)
      await tx.grants.delete(binding.id)
    })
    authorizer.changed()
    return envelope(c)
  })
  return app
}
