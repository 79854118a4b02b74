/**
 * A system's git origin (`source_control.origin`, the spec's GitRepoConfig) as the source-control
 * endpoints use it: read from the stored system, with the reference defaulted and the folder
 * normalised, and compared with other systems' origins for the duplicate check of verify-config.
 */
import { badRequest, notFound } from '../../core/http/index.js'
import type { ServiceRepositories, SystemRow } from '../../store/service/index.js'
import { GitError } from '../git/index.js'
import { normaliseTreePath } from '../git/tree-path.js'

/** The spec's default reference when neither `reference` nor `commit` is set (Git.Common). */
export const DEFAULT_REFERENCE = 'refs/heads/master'

/** The GitRepoConfig fields (empty strings mean "not set", as the spec's required-but-empty fields do). */
export interface GitOriginFields {
  url: string
  reference?: string
  commit?: string
  credentials?: string
  path?: string
  ssh_credentials?: { private_key?: string; passphrase?: string }
}

/** An origin ready for the git layer. */
export interface GitOrigin {
  url: string
  /** The reference the system follows; undefined when a commit is pinned. */
  reference?: string
  /** The pinned commit; it takes precedence over any reference. */
  commit?: string
  /** The repository folder the system's files live in, without slashes at either end ('' = root). */
  path: string
  fields: GitOriginFields
}

/** Normalises the fields (a pinned commit wins; no reference means DEFAULT_REFERENCE). */
export function gitOrigin(fields: GitOriginFields): GitOrigin {
  let path: string
  try {
    path = normaliseTreePath(fields.path ?? '')
  } catch (error) {
    if (error instanceof GitError) throw badRequest(`path: ${error.message}`)
    throw error
  }
  const commit = fields.commit || undefined
  return {
    url: fields.url,
    commit,
    reference: commit === undefined ? fields.reference || DEFAULT_REFERENCE : undefined,
    path,
    fields,
  }
}

function originFieldsOf(row: SystemRow): GitOriginFields | undefined {
  const config = JSON.parse(row.config) as { source_control?: { origin?: GitOriginFields } }
  return config.source_control?.origin
}

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
  if (!fields?.url)
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
    if (!fields?.url) continue
    try {
      if (originKey(gitOrigin(fields)) === key) return row.id
    } catch {
      // A stored origin with a path the endpoints refuse cannot be the same as a valid one.
    }
  }
  return undefined
}

function originKey(origin: GitOrigin): string {
  const url = origin.url.replace(/\/+$/, '').replace(/\.git$/, '')
  return JSON.stringify([url, origin.commit ?? origin.reference, origin.path])
}
