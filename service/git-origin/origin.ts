/**
 * A system's git origin (`source_control.origin`, the spec's GitRepoConfig), one reading for both
 * users of it: the source-control endpoints (commit, files, verify-config) and the git source that
 * builds systems from git. A system is built from git when its origin names a `url`; without one
 * it is built from what is pushed to `/v1/policies` and `/v1/data`.
 */
import { badRequest } from '../../core/http/index.js'
import type { SystemRow } from '../../store/service/index.js'
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

/**
 * Normalises the fields (a pinned commit wins; no reference means DEFAULT_REFERENCE).
 * @throws HttpError 400 naming `path` when the folder leaves the repository.
 */
export function gitOrigin(fields: GitOriginFields): GitOrigin {
  let path: string
  try {
    path = normaliseTreePath(fields.path ?? '')
  } catch (error) {
    if (error instanceof GitError) throw badRequest(`path: ${error.message}`)
    throw error
  }
  const url = fields.url.trim()
  const commit = fields.commit || undefined
  return {
    url,
    commit,
    reference: commit === undefined ? fields.reference || DEFAULT_REFERENCE : undefined,
    path,
    fields: { ...fields, url },
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/**
 * The origin fields of a stored system configuration, or undefined when it names no `url` (the
 * system is not built from git). Never throws: stored text that is not what the API wrote reads
 * as "no origin".
 */
export function originFieldsOf(row: Pick<SystemRow, 'config'>): GitOriginFields | undefined {
  let config: unknown
  try {
    config = JSON.parse(row.config)
  } catch {
    return undefined
  }
  const origin = (config as { source_control?: { origin?: unknown } } | null)?.source_control?.origin
  if (typeof origin !== 'object' || origin === null) return undefined
  const raw = origin as Record<string, unknown>
  const url = text(raw.url)?.trim() ?? ''
  if (url === '') return undefined
  const ssh = (typeof raw.ssh_credentials === 'object' && raw.ssh_credentials) || {}
  const sshFields = ssh as Record<string, unknown>
  return {
    url,
    reference: text(raw.reference),
    commit: text(raw.commit),
    credentials: text(raw.credentials),
    path: text(raw.path),
    ssh_credentials: { private_key: text(sshFields.private_key), passphrase: text(sshFields.passphrase) },
  }
}

/** What a sync state or a duplicate check compares: url (without `.git` or a trailing slash), what it follows, folder. */
export function originKey(origin: GitOrigin): string {
  const url = origin.url.replace(/\/+$/, '').replace(/\.git$/, '')
  return JSON.stringify([url, origin.commit ?? origin.reference, origin.path])
}
