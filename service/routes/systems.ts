/**
 * `/v1/systems`: protected deployments. Creating a system also creates its agent token (bound
 * to that system only) and builds its bundles; PUT updates only the fields sent (the type
 * cannot change) and creates with a given id only under `If-None-Match: *`.
 */
import { randomBytes } from 'node:crypto'
import type { Context } from 'hono'
import { Hono } from 'hono'
import type { RE2JS } from 're2js'
import { badRequest, conflict, notFound, readStructuredBody } from '../../core/http/index.js'
import { re2 } from '../../core/rego/builtins/re2.js'
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
import { inChangeTransaction } from '../activity/change-transaction.js'
import { creatorBindings } from '../authz/inherit.js'
import { STATUS_BUILD_FAILED, STATUS_READY } from '../bundle-builder.js'
import type { SourceControlStatus } from '../git-source/sync-status.js'
import { registryConfigOf } from '../registry/registry-config.js'
import type { RegistryPublisher } from '../registry/registry-publisher.js'
import { assertSecretsExist, systemSecretReferences } from '../secrets/references.js'
import { type SystemFields, storedConfig, systemFieldsSchema } from '../system-config.js'
import { insertSystem } from '../systems/insert-system.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope, validateBody } from '../validation.js'
import { tokenView } from './tokens.js'

/** Upload states that mean the bucket does not hold the active version. */
const REGISTRY_TROUBLE = new Set(['retrying', 'failed'])

/** `errors.bundle_registry` when an active version's upload is failing. */
function registryErrors(registry: RegistryStatus | undefined) {
  const failing = Object.entries(registry ?? {}).filter(([, s]) => REGISTRY_TROUBLE.has(s.state))
  if (failing.length === 0) return {}
  return {
    bundle_registry: {
      waiting: failing.some(([, s]) => s.state === 'retrying'),
      errors: failing.map(([kind, s]) => ({
        code: 'BundleRegistryUploadFailed',
        message: `${kind} bundle version ${s.version}: ${s.error ?? 'upload failed'}`,
      })),
    },
  }
}

type RegistryStatus = Awaited<ReturnType<RegistryPublisher['status']>>

/** The API shape of a system (`systems.v1.SystemConfig`). */
export function systemView(
  row: SystemRow,
  extras: {
    token?: TokenRow
    policies?: PolicyRow[]
    registry?: RegistryStatus
    sourceControl?: SourceControlStatus
  } = {},
) {
  const errors = row.status_errors ? (JSON.parse(row.status_errors) as string[]) : []
  const bundleErrors =
    errors.length === 0
      ? {}
      : {
          bundle: {
            waiting: false,
            errors: errors.map((message) => ({
              code: row.status === STATUS_READY ? STATUS_BUILD_FAILED : row.status,
              message,
              timestamp: row.last_modified_at,
            })),
          },
        }
  return {
    ...(JSON.parse(row.config) as Record<string, unknown>),
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    errors: { ...bundleErrors, ...registryErrors(extras.registry) },
    ...(extras.registry ? { bundle_registry_status: extras.registry } : {}),
    ...(extras.sourceControl ? { source_control_status: extras.sourceControl } : {}),
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

  /** A system built from git is fetched first (the answer shows the outcome); others are rebuilt. */
  async function buildFromSource(id: string) {
    if ((await deps.gitSource.sync(id)) === undefined) await builder.rebuild(id)
  }

  async function view(tx: ServiceRepositories, row: SystemRow) {
    const [token, policies, registry, sourceControl] = await Promise.all([
      tx.tokens.findForSystem(row.id),
      tx.policies.listForSystem(row.id),
      registryConfigOf(row.config) ? deps.registry.status(row.id) : undefined,
      deps.gitSource.status(row),
    ])
    return systemView(row, { token, policies, registry, sourceControl })
  }

  async function create(c: Context<ServiceEnv>, id: string, fields: SystemFields, actor: Actor) {
    const { name, type } = requireNameAndType(fields)
    const inherited = creatorBindings(deps.authorizer, c.var.principal, id)
    try {
      await inChangeTransaction(c, store, (tx) =>
        insertSystem(tx, deps.agentTokenKey, { id, name, type, fields }, actor, { bindings: inherited }),
      )
      if (inherited.length > 0) deps.authorizer.changed()
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw conflict(err.message)
      throw err
    }
    await buildFromSource(id)
    return view(store, (await store.systems.get(id))!)
  }

  app.get('/v1/systems', async (c) => {
    const type = c.req.query('type')
    const namePattern = c.req.query('name')
    let nameFilter: RE2JS | undefined
    if (namePattern) {
      try {
        nameFilter = re2().compile(namePattern)
      } catch (err) {
        throw badRequest(`name: invalid regular expression: ${(err as Error).message}`)
      }
    }
    const principal = c.var.principal
    const rows = (await store.systems.list(type ? { type } : {})).filter(
      (row) =>
        (!nameFilter || nameFilter.test(row.name)) &&
        deps.authorizer.allows(principal, 'systems.read', { kind: 'system', id: row.id }),
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
    return envelope(c, await create(c, id, fields, { by: c.var.principal.id, through: 'api' }))
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
      return envelope(c, await create(c, id, fields, actor))
    }
    if (!existing) throw notFound(`system ${id} not found (send If-None-Match: * to create it)`)
    if (fields.type !== undefined && fields.type !== existing.type) {
      throw badRequest(`type: a system's type cannot change (it is "${existing.type}")`)
    }
    await assertSecretsExist(store, systemSecretReferences(fields))
    const config = { ...(JSON.parse(existing.config) as Record<string, unknown>), ...storedConfig(fields) }
    try {
      const version = await inChangeTransaction(c, store, (tx) =>
        tx.systems.update(id, {
          name: fields.name ?? existing.name,
          config: JSON.stringify(config),
          ...modifiedBy(actor),
        }),
      )
      if (version === undefined) throw notFound(`system ${id} not found`)
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw conflict(err.message)
      throw err
    }
    await buildFromSource(id)
    return envelope(c, await view(store, (await store.systems.get(id))!))
  })

  app.delete('/v1/systems/:system', async (c) => {
    const id = checkId(c.req.param('system'), 'system id')
    const recursive = c.req.query('recursive') !== 'false'
    await inChangeTransaction(c, store, async (tx) => {
      if (!(await tx.systems.delete(id))) throw notFound(`system ${id} not found`)
      await tx.tokens.deleteForSystem(id)
      await tx.bundles.deleteForSystem(id)
      await tx.registryBundles.deleteForSystem(id)
      await tx.agentStatus.deleteForSystem(id)
      await tx.grants.deleteForResource('system', id)
      await tx.gitSync.delete(id)
      if (recursive) {
        await tx.policies.deleteForSystem(id)
        await tx.dataDocuments.deleteForSystem(id)
        await tx.datasources.deleteForSystem(id)
      }
    })
    deps.authorizer.changed()
    await deps.gitSource.forget(id)
    return envelope(c)
  })
  return app
}
