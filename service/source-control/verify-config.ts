/**
 * `verify-config`: checks that a GitRepoConfig works before a system is given it. The request is
 * validated as a system's origin is (only one of reference and commit, ssh rules), the `id` of the
 * entity being configured must be valid and no other system may already follow the same
 * repository, reference and folder; every secret it names must exist; then the repository is
 * fetched with those credentials and the reference (or pinned commit) resolved: its commit is
 * the answer's `sha`. The folder (`path`) must exist at that commit.
 */
import { badRequest, conflict } from '../../core/http/index.js'
import { parseRemoteUrl, readTree } from '../git/index.js'
import { gitOrigin } from '../git-origin/origin.js'
import { gitRepoSchema } from '../system-config.js'
import { checkId, validateBody } from '../validation.js'
import { answeringGitErrors, gitHttpError } from './git-http-error.js'
import { duplicateOriginOwner } from './origin.js'
import { openRepository, originCommit, type RepositoryDeps } from './repository.js'

/** The spec's VerifiedRepoConfig: the config as given, with `sha`. */
export interface VerifiedRepoConfig {
  url: string
  reference: string
  commit: string
  credentials: string
  path: string
  ssh_credentials?: { private_key: string; passphrase: string }
  sha: string
}

export async function verifyConfig(deps: RepositoryDeps, body: unknown): Promise<VerifiedRepoConfig> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('invalid verify-config request: (body): expected a JSON object')
  const { id, ...rest } = body as Record<string, unknown>
  if (typeof id !== 'string' || id === '')
    throw badRequest(
      'invalid verify-config request: id: required (the id of the system being configured, for the duplicate check)',
    )
  checkId(id, 'id')
  const fields = validateBody(gitRepoSchema, rest, 'verify-config request')
  try {
    // Refused first (a URL carrying a password, a remote helper): nothing below repeats or runs it.
    parseRemoteUrl(fields.url)
  } catch (error) {
    throw gitHttpError(error)
  }
  const origin = gitOrigin(fields)
  const other = await duplicateOriginOwner(deps.store, origin, id)
  if (other !== undefined)
    throw conflict(
      `id: system ${other} already follows ${fields.url} at ${origin.commit ?? origin.reference} under "${origin.path}"`,
    )
  const sha = await answeringGitErrors(async () => {
    const repo = await openRepository(deps, origin)
    const commit = await originCommit(repo, origin)
    // Only the listing matters here: a folder that is not there is the config's mistake.
    await readTree(repo, commit, origin.path, { include: () => false })
    return commit
  })
  return {
    url: fields.url,
    reference: fields.reference ?? '',
    commit: fields.commit ?? '',
    credentials: fields.credentials ?? '',
    path: fields.path ?? '',
    ...(fields.ssh_credentials ? { ssh_credentials: fields.ssh_credentials } : {}),
    sha,
  }
}
