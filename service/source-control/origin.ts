/**
 * A system's git origin as the source-control endpoints use it: read from the stored system (404
 * or 400 when there is none), and compared with other systems' origins for the duplicate check of
 * verify-config. The origin itself (fields, defaults, folder): ../git-origin/origin.ts.
 */
import { badRequest, notFound } from '../../core/http/index.js'
import type { ServiceRepositories, SystemRow } from '../../store/service/index.js'
import { type GitOrigin, gitOrigin, originFieldsOf, originKey } from '../git-origin/origin.js'

/**
 * The stored system `id` and its origin.
 * @throws HttpError 404 when the system does not exist, 400 when it has no source control.
 */
export async function systemOrigin(
  store: ServiceRepositories,
  id: string,
): Promise<{ system: SystemRow; origin: GitOrigin }> {
  const system = await store.systems.get(id)
  if (!system) throw notFound(`system ${id} not found`)
  const fields = originFieldsOf(system)
  if (!fields)
    throw badRequest(
      `source_control: system ${id} has no source_control.origin; set it with PUT /v1/systems/${id}`,
    )
  return { system, origin: gitOrigin(fields) }
}

/** The id of another system (not `exceptId`) that follows the same repository, reference and folder. */
export async function duplicateOriginOwner(
  store: ServiceRepositories,
  origin: GitOrigin,
  exceptId: string,
): Promise<string | undefined> {
  const key = originKey(origin)
  for (const row of await store.systems.list()) {
    if (row.id === exceptId) continue
    const fields = originFieldsOf(row)
    if (!fields) continue
    try {
      if (originKey(gitOrigin(fields)) === key) return row.id
    } catch {
      // A stored origin with a path the endpoints refuse cannot be the same as a valid one.
    }
  }
  return undefined
}
