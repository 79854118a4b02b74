/**
 * `/v1/systems`: protected deployments. Creating a system also creates its agent token (bound
 * to that system only) and builds its bundles; PUT updates only the fields sent (the type
 * cannot change) and creates with a given id only under `If-None-Match: *`.
 */
import { randomBytes } from 'node:crypto'
import { Hono } from 'hono'
import { RE2JS } from 're2js'
import { badRequest, conflict, notFound, readStructuredBody } from '../../core/http/index.js'
import {
  type Actor,
  AlreadyExistsError,
  modifiedBy,
  objectMeta,
  type PolicyRow,
  type ServiceRepositories,
  type SystemRow,
  type TokenRow,
} from '../../store/service/index.js'
import { creatorBindings } from '../authz/inherit.js'
import { STATUS_BUILD_FAILED } from '../bundle-builder.js'
import { assertSecretsExist, sourceControlSecretReferences } from '../secrets/references.js'
import { type SystemFields, storedConfig, systemFieldsSchema } from '../system-config.js'
import { insertSystem } from '../systems/insert-system.js'
import type { Principal, ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope, validateBody } from '../validation.js'
import { tokenView } from './tokens.js'

/** The API shape of a system (`systems.v1.SystemConfig`). */
export function systemView(row: SystemRow, extras: { token?: TokenRow; policies?: PolicyRow[] } = {}) {
  const errors = row.status_errors ? (JSON.parse(row.status_errors) as string[]) : []
  return {
    ...(JSON.parse(row.config) as Record<string, unknown>),
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    errors:
      errors.length === 0
        ? {}
        : {
            bundle: {
              waiting: false,
              errors: errors.map((message) => ({
                code: STATUS_BUILD_FAILED,
                message,
                timestamp: row.last_modified_at,
              })),
            },
          },
    policies: (extras.policies ?? []).map((p) => ({
      id: p.path,
      type: 'rego',
      enforcement: { enforced: true, type: 'opa' },
      modules: Object.keys(JSON.parse(p.modules) as object).map((name) => ({ name })),
    })),
    authz: { role_bindings: [] },
    tokens: extras.token ? [tokenView(extras.token)] : [],
    metadata: objectMeta(row),
  }
}

function requireNameAndType(fields: SystemFields): { name: string; type: string } {
  const missing = (['name', 'type'] as const).filter((k) => fields[k] === undefined)
  if (missing.length > 0) {
    throw badRequest(
      `invalid system: ${missing.map((k) => `${k}: required`).join(', ')}`,
      missing.map((k) => `${k}: required`),
    )
  }
  return { name: fields.name!, type: fields.type! }
}

/** Routes of `/v1/systems` (the agent-facing ones live in bundles.ts and assets.ts). */
export function systemRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store, builder } = deps
  const app = new Hono<ServiceEnv>()

  async function view(tx: ServiceRepositories, row: SystemRow) {
    const [token, policies] = await Promise.all([
      tx.tokens.findForSystem(row.id),
      tx.policies.listForSystem(row.id),
    ])
    return systemView(row, { token, policies })
  }

  async function create(id: string, fields: SystemFields, actor: Actor, principal: Principal) {
    const { name, type } = requireNameAndType(fields)
    const inherited = creatorBindings(deps.authorizer, principal, id)
    try {
      await store.transaction((tx) =>
        insertSystem(tx, deps.agentTokenKey, { id, name, type, fields }, actor, { bindings: inherited }),
      )
      if (inherited.length > 0) deps.authorizer.changed()
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw conflict(err.message)
      throw err
    }
    await builder.rebuild(id)
    return view(store, (await store.systems.get(id))!)
  }

  app.get('/v1/systems', async (c) => {
    const type = c.req.query('type')
    const namePattern = c.req.query('name')
    let nameFilter: RE2JS | undefined
    if (namePattern) {
      try {
        nameFilter = RE2JS.compile(namePattern)
      } catch (err) {
        throw badRequest(`name: invalid regular expression: ${(err as Error).message}`)
      }
    }
    const rows = (await store.systems.list(type ? { type } : {})).filter(
      (row) => !nameFilter || nameFilter.test(row.name),
    )
    if (c.req.query('compact') === 'true') {
      return envelope(
        c,
        rows.map((r) => ({ id: r.id, name: r.name, type: r.type, status: r.status })),
      )
    }
    return envelope(c, await Promise.all(rows.map((row) => view(store, row))))
  })

  app.post('/v1/systems', async (c) => {
    const fields = validateBody(systemFieldsSchema, await readStructuredBody(c), 'system')
    if (fields.id !== undefined)
      throw badRequest(
        'id: set by the service on POST; use PUT /v1/systems/{id} with If-None-Match: * to choose it',
      )
    const id = randomBytes(16).toString('hex')
    return envelope(c, await create(id, fields, { by: c.var.principal.id, through: 'api' }, c.var.principal))
  })

  app.get('/v1/systems/:system', async (c) => {
    const id = checkId(c.req.param('system'), 'system id')
    const row = await store.systems.get(id)
    if (!row) throw notFound(`system ${id} not found`)
    return envelope(c, await view(store, row))
  })

  app.put('/v1/systems/:system', async (c) => {
    const id = checkId(c.req.param('system'), 'system id')
    const fields = validateBody(systemFieldsSchema, await readStructuredBody(c), 'system')
    if (fields.id !== undefined && fields.id !== id)
      throw badRequest(`id: "${fields.id}" does not match the path's system id "${id}"`)
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const existing = await store.systems.get(id)
    if (createOnly) {
      if (existing) throw conflict(`system ${id} already exists`)
      return envelope(c, await create(id, fields, actor, c.var.principal))
    }
    if (!existing) throw notFound(`system ${id} not found (send If-None-Match: * to create it)`)
    if (fields.type !== undefined && fields.type !== existing.type) {
      throw badRequest(`type: a system's type cannot change (it is "${existing.type}")`)
    }
    await assertSecretsExist(store, sourceControlSecretReferences(fields.source_control))
    const config = { ...(JSON.parse(existing.config) as Record<string, unknown>), ...storedConfig(fields) }
    try {
      const version = await store.systems.update(id, {
        name: fields.name ?? existing.name,
        config: JSON.stringify(config),
        ...modifiedBy(actor),
      })
      if (version === undefined) throw notFound(`system ${id} not found`)
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw conflict(err.message)
      throw err
    }
    await builder.rebuild(id)
    return envelope(c, await view(store, (await store.systems.get(id))!))
  })

  app.delete('/v1/systems/:system', async (c) => {
    const id = checkId(c.req.param('system'), 'system id')
    const recursive = c.req.query('recursive') !== 'false'
    await store.transaction(async (tx) => {
      if (!(await tx.systems.delete(id))) throw notFound(`system ${id} not found`)
      await tx.tokens.deleteForSystem(id)
      await tx.bundles.deleteForSystem(id)
      await tx.agentStatus.deleteForSystem(id)
      await tx.grants.deleteForResource('system', id)
      if (recursive) {
        await tx.policies.deleteForSystem(id)
        await tx.dataDocuments.deleteForSystem(id)
        await tx.datasources.deleteForSystem(id)
      }
    })
    deps.authorizer.changed()
    return envelope(c)
  })
  return app
}
