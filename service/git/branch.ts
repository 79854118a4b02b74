/** A branch's state (its head commit) and its deletion on the remote. */
import { referenceNotFound } from './errors.js'
import { type GitMirror, mirrorLocks } from './mirror.js'
import { branchName, commitOf } from './refs.js'

export interface BranchState {
  branch: string
  commit: string
}

/** The branch's head on the remote (fetched first); `reference_not_found` when there is none. */
export async function branchState(repo: GitMirror, branch: string): Promise<BranchState> {
  const name = branchName(branch)
  await repo.fetch()
  const commit = await commitOf(repo, `refs/heads/${name}`)
  if (commit === undefined) throw referenceNotFound(`refs/heads/${name}`)
  return { branch: name, commit }
}

/** Deletes the branch on the remote and in the mirror; `reference_not_found` when it does not exist. */
export async function deleteBranch(repo: GitMirror, branch: string): Promise<void> {
  const name = branchName(branch)
  await branchState(repo, name)
  await repo.remoteCommand(() => ['push', '--quiet', '--', repo.remote.url, `:refs/heads/${name}`], 'push')
  await mirrorLocks.run(repo.path, () => repo.local(['update-ref', '-d', `refs/heads/${name}`]))
}
