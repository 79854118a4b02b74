/**
 * `/v1/policies`: sets of Rego modules at slash paths (`{modules: {file: source}}`). Policies
 * under `systems/{id}/…` make up that system's bundle, which is rebuilt on every change. A
 * module that does not parse is refused with its error, and a system policy whose modules do not
 * compile together with the rest of the system's is refused with the compiler's errors.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { badRequest, conflict, notFound, readStructuredBody } from '../../core/http/index.js'
import { type Actor, objectMeta, type PolicyRow, upsertedBy } from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import { assertSystemCompiles } from '../systems/assert-system-compiles.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkSlashPath, envelope, pathAfter, systemOfPath, validateBody } from '../validation.js'

const PREFIX = '/v1/policies/'

const policyRequestSchema = z.strictObject({
  modules: z.record(z.string(), z.string({ error: 'expected the module source as a string' })),
  signature: z.unknown().optional(),
})

/** The API shape of a policy. */
export function policyView(row: PolicyRow) {
  return {
    id: row.path,
    modules: JSON.parse(row.modules) as Record<string, string>,
    metadata: objectMeta(row),
  }
}

/** Routes of `/v1/policies`. */
export function policyRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store, builder } = deps
  const app = new Hono<ServiceEnv>()

  /**
   * A system built from git takes its policies from its repository only: a pushed policy would
   * never reach its bundle, so it is refused instead of stored and silently ignored.
   */
  async function refuseGitBacked(systemId: string) {
    const system = await store.systems.get(systemId)
    if (system && deps.gitSource.isGitBacked(system))
      throw conflict(
        `system ${systemId} is built from git (source_control.origin): its policies come from the repository; ` +
          'commit the change there (POST /v1/systems/{id}/commits) instead of pushing it',
      )
  }

  app.get('/v1/policies', async (c) => {
    const prefix = c.req.query('prefix')
    const rows = await store.policies.list(prefix ? checkSlashPath(prefix, 'prefix') : undefined)
    return envelope(c, rows.map(policyView))
  })

  app.get('/v1/policies/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'policy path')
    const row = await store.policies.get(path)
    if (!row) throw notFound(`policy ${path} not found`)
    return envelope(c, policyView(row))
  })

  app.put('/v1/policies/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'policy path')
    const body = validateBody(policyRequestSchema, await readStructuredBody(c), 'policy')
    const errors: string[] = []
    for (const [file, source] of Object.entries(body.modules)) {
      const name = checkSlashPath(file, 'module file name')
      if (name !== file || !file.endsWith('.rego')) {
        errors.push(`modules.${file}: a module file name is a relative path ending in .rego`)
        continue
      }
      const problem = deps.validateModule(`${path}/${file}`, source)
      if (problem) errors.push(problem)
    }
    if (errors.length > 0) throw badRequest(`invalid policy ${path}: ${errors[0]}`, errors)
    const systemId = systemOfPath(path)
    if (systemId !== null) await refuseGitBacked(systemId)
    if (systemId !== null) await assertSystemCompiles(store, systemId, { [path]: body.modules })
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    await inChangeTransaction(c, store, async (tx) => {
      if (systemId !== null && !(await tx.systems.exists(systemId)))
        throw notFound(`system ${systemId} not found`)
      const existing = await tx.policies.get(path)
      if (existing && createOnly) throw conflict(`policy ${path} already exists`)
      await tx.policies.upsert({
        path,
        system_id: systemId,
        modules: JSON.stringify(body.modules),
        ...upsertedBy(actor, existing),
      })
      if (systemId !== null) await tx.systems.bumpContentVersion(systemId)
    })
    if (systemId !== null) await builder.rebuild(systemId)
    return envelope(c)
  })

  app.delete('/v1/policies/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'policy path')
    const systemId = systemOfPath(path)
    if (systemId !== null) await refuseGitBacked(systemId)
    await inChangeTransaction(c, store, async (tx) => {
      if (!(await tx.policies.delete(path))) throw notFound(`policy ${path} not found`)
      if (systemId !== null) await tx.systems.bumpContentVersion(systemId)
    })
    if (systemId !== null) await builder.rebuild(systemId)
    return envelope(c)
  })
  return app
}
