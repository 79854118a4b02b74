/**
 * `/v1/datasources`: configured external data feeds (service/datasources/). Ids are slash paths;
 * `systems/<sys>/<name…>` feeds that system's bundle at `data.<name…>`, any other id is a
 * workspace-level document at `/v1/data/<id>`. PUT validates the configuration exactly against
 * its category and stores it with defaults filled in; GET and List answer configurations with
 * their status (configurations hold secret ids, never values); DELETE removes the configuration
 * and its data. POST takes the data of a `rest` datasource, and runs any other one now.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import {
  type BodyLimits,
  badRequest,
  conflict,
  forbidden,
  mediaType,
  notFound,
  readBodyText,
  readStructuredBody,
  unsupportedMediaType,
} from '../../core/http/index.js'
import {
  type Actor,
  createdBy,
  type DatasourceRow,
  modifiedBy,
  objectMeta,
} from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import { categoryNamed } from '../datasources/categories.js'
import { itemCount } from '../datasources/decode.js'
import { libraryOfDatasource } from '../datasources/policy-library.js'
import type { DatasourceScheduler } from '../datasources/scheduler.js'
import { type DatasourceStatus, parseStatus, pendingStatus } from '../datasources/status.js'
import { datasourceText, writeDatasourceData } from '../datasources/store-data.js'
import { datasourceIdOf, validateDatasource } from '../datasources/validate.js'
import { parseJsonDocument } from '../json-document.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope, pathAfter } from '../validation.js'

const PREFIX = '/v1/datasources/'

/** Where a datasource's data can be read and where agents see it. */
function resourcesOf(row: DatasourceRow) {
  const library = row.category === 'policy-library' ? libraryOfDatasource(row.id) : undefined
  // A policy-library datasource places modules: the system's policy at its id (docs/libraries.md).
  if (library !== undefined)
    return [
      {
        kind: 'policy',
        path: `/v1/policies/${row.id}`,
        system: row.system_id,
        library: `/v1/libraries/${library}`,
      },
    ]
  const resource: Record<string, unknown> = { kind: 'data', path: `/v1/data/${row.id}` }
  if (row.system_id !== null) {
    resource.system = row.system_id
    resource.bundle_path = `data.${row.id.split('/').slice(2).join('.')}`
  }
  return [resource]
}

/** The API shape: the configuration plus id, executed, metadata, resources and status. */
export function datasourceView(row: DatasourceRow) {
  return {
    ...(JSON.parse(row.config) as Record<string, unknown>),
    id: row.id,
    executed: row.executed,
    metadata: objectMeta(row),
    resources: resourcesOf(row),
    status: parseStatus(row.status),
  }
}

/** Routes of `/v1/datasources`. */
export function datasourceRoutes(
  deps: ServiceDeps,
  scheduler: DatasourceScheduler,
  limits: BodyLimits,
): Hono<ServiceEnv> {
  const { store, builder } = deps
  const app = new Hono<ServiceEnv>()

  app.get('/v1/datasources', async (c) => {
    // `?system=a,b` (as the authorization middleware reads it) or `?system=a&system=b`.
    const systems = (c.req.queries('system') ?? [])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '')
    const rows =
      systems.length === 0
        ? await store.datasources.list()
        : (await Promise.all(systems.map((s) => store.datasources.list(checkId(s, 'system'))))).flat()
    return envelope(c, rows.map(datasourceView))
  })

  app.get('/v1/datasources/*', async (c) => {
    const { id } = datasourceIdOf(pathAfter(c, PREFIX))
    const row = await store.datasources.get(id)
    if (!row) throw notFound(`datasource ${id} not found`)
    return envelope(c, datasourceView(row))
  })

  app.put('/v1/datasources/*', async (c) => {
    const { id, systemId } = datasourceIdOf(pathAfter(c, PREFIX))
    const body = await readStructuredBody(c, limits)
    const { category, config } = await validateDatasource(store, id, body)
    // Importing a library copies its sources into the system, where the system's readers see
    // them: only a caller who may read the library may import it.
    const library = category.category === 'policy-library' ? libraryOfDatasource(id) : undefined
    if (
      library !== undefined &&
      !deps.authorizer.allows(c.var.principal, 'libraries.read', { kind: 'library', id: library })
    )
      throw forbidden(
        `${c.var.principal.kind} ${c.var.principal.id} may not libraries.read on library ${library}: importing it needs that`,
      )
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    const now = new Date()
    const configText = JSON.stringify(config)
    const scheduled = category.mode === 'poll' && config.enabled === true ? 1 : 0
    await inChangeTransaction(c, store, async (tx) => {
      if (systemId !== null && !(await tx.systems.exists(systemId)))
        throw notFound(`system ${systemId} not found`)
      const existing = await tx.datasources.get(id)
      if (existing && createOnly) throw conflict(`datasource ${id} already exists`)
      // A changed configuration runs at once (and starts its backoff afresh); an unchanged one keeps its schedule.
      const changed = !existing || existing.config !== configText
      const fields = {
        id,
        category: category.category,
        config: configText,
        scheduled,
        executed: now.toISOString(),
        next_run_at: changed ? now.toISOString() : existing.next_run_at,
        failures: changed ? 0 : existing.failures,
      }
      if (existing) await tx.datasources.replaceConfig({ ...fields, ...modifiedBy(actor, now) })
      else {
        const waiting =
          category.mode === 'push' ? 'waiting for the first POST of data' : 'waiting for the first run'
        await tx.datasources.insert({
          ...fields,
          system_id: systemId,
          status: JSON.stringify(pendingStatus(waiting)),
          lease_owner: null,
          lease_until: null,
          ...createdBy(actor, now),
        })
      }
    })
    return envelope(c, datasourceView((await store.datasources.get(id))!))
  })

  app.post('/v1/datasources/*', async (c) => {
    const { id } = datasourceIdOf(pathAfter(c, PREFIX))
    const row = await store.datasources.get(id)
    if (!row) throw notFound(`datasource ${id} not found`)
    if (row.category !== 'rest') return envelope(c, await scheduler.runNow(id))
    return envelope(c, await pushData(c, row))
  })

  /** A `rest` datasource's data from the request body: validated JSON, stored with its status. */
  async function pushData(c: Context<ServiceEnv>, row: DatasourceRow): Promise<DatasourceStatus> {
    const config = JSON.parse(row.config) as { enabled?: boolean }
    if (config.enabled === false) throw conflict(`datasource ${row.id} is disabled: enable it to take data`)
    const type = mediaType(c)
    if (type !== 'application/json' && !type.endsWith('+json'))
      throw unsupportedMediaType(
        `Content-Type ${type || '(none)'} is not accepted: a rest datasource takes application/json`,
      )
    const text = await readBodyText(c, limits)
    if (text.trim() === '') throw badRequest('request body is required: the JSON document to store')
    const content = parseJsonDocument(text)
    const now = new Date().toISOString()
    const status: DatasourceStatus = {
      code: 'ok',
      message: '',
      last_attempt: now,
      last_success: now,
      duration: 0,
      size: Buffer.byteLength(text),
      items: itemCount(content),
    }
    const prepared = await datasourceText(content)
    const changed = await inChangeTransaction(c, store, async (tx) => {
      if (!(await tx.datasources.setStatus(row.id, JSON.stringify(status))))
        throw notFound(`datasource ${row.id} not found`)
      return writeDatasourceData(tx, row.id, row.system_id, prepared)
    })
    if (changed && row.system_id !== null) await builder.rebuild(row.system_id)
    return status
  }

  app.delete('/v1/datasources/*', async (c) => {
    const { id, systemId } = datasourceIdOf(pathAfter(c, PREFIX))
    const hadData = await inChangeTransaction(c, store, async (tx) => {
      const row = await tx.datasources.get(id)
      if (!row || !(await tx.datasources.delete(id))) throw notFound(`datasource ${id} not found`)
      const remove = categoryNamed(row.category)?.remove ?? ((t, at) => t.dataDocuments.delete(at))
      const deleted = await remove(tx, id)
      if (deleted && systemId !== null) await tx.systems.bumpContentVersion(systemId)
      return deleted
    })
    if (hadData && systemId !== null) await builder.rebuild(systemId)
    return envelope(c)
  })
  return app
}
