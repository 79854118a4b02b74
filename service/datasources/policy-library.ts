/**
 * Category `policy-library`: a library stored in the service (docs/libraries.md) imported into a
 * system. The spec gives the category no fields of its own, so the id names the library: a
 * `policy-library` datasource is `systems/<system>/libraries/<library>`. Each run copies the
 * library's current modules into the system as the policy at the datasource's id (bundle path
 * `libraries/<library>/<file>`, the folder of their packages `data.libraries.<library>`), after
 * checking that they compile with the system's other policies; a run that fails (library gone,
 * compile error) keeps the last good copy, so a library change never breaks a system's bundle.
 */
import { z } from 'zod'
import { badRequest } from '../../core/http/index.js'
import type { ServiceRepositories } from '../../store/service/index.js'
import { upsertedBy } from '../../store/service/index.js'
import { checkModuleSet, describeRegoError } from '../policy-validation.js'
import { printable } from '../validation.js'
import { common, poller } from './mixins.js'
import { DATASOURCE_ACTOR } from './store-data.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const schema = z.strictObject({ category: z.literal('policy-library'), ...common, ...poller })

/** The folder of a system's datasource ids that import libraries. */
export const LIBRARY_FOLDER = 'libraries'

/** The library a `policy-library` datasource id imports, or undefined when the id is not of that form. */
export function libraryOfDatasource(id: string): string | undefined {
  const segments = id.split('/')
  if (segments.length !== 4 || segments[0] !== 'systems' || segments[2] !== LIBRARY_FOLDER) return undefined
  return segments[3]
}

/**
 * Checks a `policy-library` datasource's id at PUT: `systems/<system>/libraries/<library>` with
 * the library stored.
 * @throws HttpError 400 naming the id.
 */
async function checkTarget(id: string, store: ServiceRepositories): Promise<void> {
  const library = libraryOfDatasource(id)
  if (library === undefined)
    throw badRequest(
      `invalid datasource: id: a policy-library datasource is systems/<system>/${LIBRARY_FOLDER}/<library>, not "${printable(id)}"`,
    )
  if (!(await store.libraries.get(library)))
    throw badRequest(
      `invalid datasource: id: library "${printable(library)}" does not exist (PUT /v1/libraries/${library} first)`,
    )
}

async function fetchLibrary(_config: unknown, ctx: FetchContext): Promise<Fetched> {
  const library = libraryOfDatasource(ctx.datasourceId)
  if (library === undefined) throw new RunError(`config error: id: ${ctx.datasourceId} names no library`)
  const row = await ctx.store.libraries.get(library)
  if (!row) throw new RunError(`library error: library ${library} does not exist (deleted?)`)
  const modules = JSON.parse(row.modules) as Record<string, string>
  return { content: modules, size: Buffer.byteLength(row.modules) }
}

/**
 * Stores a run's modules as the system's policy at the datasource's id (inside the caller's
 * transaction); resolves to true when they changed (the system's bundle must be rebuilt).
 * @throws RunError `compile error: …` when they do not compile with the system's other policies.
 */
async function landModules(
  tx: ServiceRepositories,
  id: string,
  systemId: string | null,
  content: unknown,
): Promise<boolean> {
  if (systemId === null) throw new RunError(`config error: id: ${id} belongs to no system`)
  const modules = content as Record<string, string>
  const text = JSON.stringify(modules)
  const existing = await tx.policies.get(id)
  if (existing?.modules === text) return false
  const set: Record<string, string> = {}
  for (const policy of await tx.policies.listForSystem(systemId)) {
    if (policy.path === id) continue
    for (const [file, source] of Object.entries(JSON.parse(policy.modules) as Record<string, string>))
      set[`${policy.path}/${file}`] = source
  }
  for (const [file, source] of Object.entries(modules)) set[`${id}/${file}`] = source
  const [first, ...more] = checkModuleSet(set)
  if (first)
    throw new RunError(
      `compile error: the library does not compile with system ${systemId}'s policies: ${describeRegoError(first)}${
        more.length > 0 ? ` (and ${more.length} more)` : ''
      }`,
    )
  const actor = { by: `${DATASOURCE_ACTOR.by}:${id}`, through: DATASOURCE_ACTOR.through }
  await tx.policies.upsert({ path: id, system_id: systemId, modules: text, ...upsertedBy(actor, existing) })
  await tx.systems.bumpContentVersion(systemId)
  return true
}

/** Removes what a `policy-library` datasource stored (DELETE of the datasource); true when something was. */
async function removeModules(tx: ServiceRepositories, id: string): Promise<boolean> {
  return tx.policies.delete(id)
}

/** The `policy-library` category. */
export const policyLibraryCategory = defineCategory({
  category: 'policy-library',
  schema,
  mode: 'poll',
  fetch: fetchLibrary,
  checkTarget,
  land: landModules,
  remove: removeModules,
})
