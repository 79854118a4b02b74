/**
 * Opens the up-to-date mirror of a system's repository with the credentials its origin names and
 * the limits of `service.git`, and resolves the commit the system follows (the pinned commit, or
 * the head of its reference).
 */

import { GitError, type GitMirror, mirror, resolveReference } from '../git/index.js'
import { originCredentials } from '../git-origin/credentials.js'
import type { GitOrigin } from '../git-origin/origin.js'
import { parseGoDuration } from '../go-duration.js'
import type { ServiceDeps } from '../types.js'

/** What opening a repository needs from the service. */
export type RepositoryDeps = Pick<ServiceDeps, 'store' | 'secrets' | 'dataDir' | 'config'>

/** The mirror of `origin`'s repository, fetched. `prefix` is where the origin's fields sit in the request. */
export async function openRepository(
  deps: RepositoryDeps,
  origin: GitOrigin,
  prefix = '',
): Promise<GitMirror> {
  const credentials = await originCredentials(
    deps.store,
    deps.secrets,
    origin.fields,
    prefix,
    deps.config.git.known_hosts,
  )
  return mirror(origin.url, credentials, {
    dataDir: deps.dataDir,
    timeoutMs: parseGoDuration(deps.config.git.timeout) ?? 60_000,
    maxRepositoryBytes: deps.config.git.max_repository_bytes,
  })
}

/** The commit the origin stands for: its pinned commit, or the head of its reference. */
export async function originCommit(repo: GitMirror, origin: GitOrigin): Promise<string> {
  if (origin.commit !== undefined) {
    try {
      return (await resolveReference(repo, origin.commit, 'commit')).commit
    } catch (error) {
      if (error instanceof GitError && error.code === 'reference_not_found')
        throw new GitError(error.code, `commit ${origin.commit} is not in the repository`, 'commit')
      throw error
    }
  }
  return (await resolveReference(repo, origin.reference!, 'reference')).commit
}
