/**
 * `/v1/libraries`: policy libraries (docs/libraries.md), named sets of Rego modules under
 * `data.libraries.<id>` that systems import with a `policy-library` datasource
 * (`systems/<sys>/libraries/<id>`). The list holds the libraries the caller may read. PUT validates every module (parse errors and packages outside
 * the library's namespace: 400 naming module and line) and compiles the library with the others;
 * a stored change makes the datasources importing the library due at once, so their systems'
 * bundles follow without waiting a polling interval. DELETE refuses (409) while a datasource
 * imports the library, and removes the role bindings on it.
 */
import { Hono } from 'hono'
import { conflict, notFound, readStructuredBody } from '../../core/http/index.js'
import { type Actor, upsertedBy } from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import { libraryOfDatasource } from '../datasources/policy-library.js'
import { checkLibraryId, libraryModules, libraryView, validateLibrary } from '../libraries/library.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { envelope } from '../validation.js'

/** Routes of `/v1/libraries`. */
export function libraryRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store } = deps
  const app = new Hono<ServiceEnv>()

  /** The ids of the datasources importing `library`. */
  async function importers(library: string): Promise<string[]> {
    const rows = await store.datasources.list()
    return rows
      .filter((row) => row.category === 'policy-library' && libraryOfDatasource(row.id) === library)
      .map((row) => row.id)
  }

  app.get('/v1/libraries', async (c) => {
    const principal = c.var.principal
    const rows = (await store.libraries.list()).filter((row) =>
      deps.authorizer.allows(principal, 'libraries.read', { kind: 'library', id: row.id }),
    )
    return envelope(c, rows.map(libraryView))
  })

  app.get('/v1/libraries/:id', async (c) => {
    const id = checkLibraryId(c.req.param('id'))
    const row = await store.libraries.get(id)
    if (!row) throw notFound(`library ${id} not found`)
    return envelope(c, libraryView(row))
  })

  app.put('/v1/libraries/:id', async (c) => {
    const id = checkLibraryId(c.req.param('id'))
    const body = await readStructuredBody(c)
    const others = libraryModules(await store.libraries.list(), id)
    const content = validateLibrary(id, body, deps.validateModule, others)
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    await inChangeTransaction(c, store, async (tx) => {
      const existing = await tx.libraries.get(id)
      if (existing && createOnly) throw conflict(`library ${id} already exists`)
      await tx.libraries.upsert({
        id,
        description: content.description,
        modules: JSON.stringify(content.modules),
        ...upsertedBy(actor, existing),
      })
    })
    // The importing systems take the change at their datasources' next run: run them now.
    for (const datasource of await importers(id))
      deps.datasources.runNow(datasource).catch((err: unknown) => {
        deps.logger.debug({ datasource, err: (err as Error).message }, 'library import not run now')
      })
    return envelope(c, libraryView((await store.libraries.get(id))!))
  })

  app.delete('/v1/libraries/:id', async (c) => {
    const id = checkLibraryId(c.req.param('id'))
    const using = await importers(id)
    if (using.length > 0)
      throw conflict(
        `library ${id} is imported by datasource ${using.join(', ')}: delete ${using.length > 1 ? 'them' : 'it'} first`,
      )
    await inChangeTransaction(c, store, async (tx) => {
      if (!(await tx.libraries.delete(id))) throw notFound(`library ${id} not found`)
      // Bindings on the library go with it: a library made again later starts with no access.
      await tx.grants.deleteForResource('library', id)
    })
    deps.authorizer.changed()
    return envelope(c)
  })
  return app
}
