/**
 * A commit on a branch of a system's repository: written, committed and pushed by the git layer,
 * which serialises commits to one branch and redoes a push that lost a race once (then 409). A new
 * branch starts from what the system follows (its pinned commit, or its reference).
 */
import { commitFiles, type GitMirror } from '../git/index.js'
import type { GitOrigin } from '../git-origin/origin.js'
import type { CheckedCommit, CommitBody } from './commit-input.js'
import { originBranch } from './repo-files.js'

/** The spec's Commit, with the new commit's `sha`. */
export interface CommitAnswer extends CommitBody {
  sha: string
}

export async function commitToSystemBranch(
  repo: GitMirror,
  origin: GitOrigin,
  checked: CheckedCommit,
): Promise<CommitAnswer> {
  const { body } = checked
  const result = await commitFiles(repo, {
    branch: body.branch,
    base: origin.commit ?? origin.reference,
    files: checked.writes,
    filesToDelete: checked.deletes,
    author: body.author,
    email: body.email,
    message: body.message,
  })
  return { ...body, branch: result.branch, sha: result.commit }
}

/**
 * Whether a commit to `branch` moved what the system is built from: the branch its reference
 * names (a pinned commit or a tag never moves), so the system should sync now, not at the next
 * poll or webhook.
 */
export function movesFollowedBranch(origin: GitOrigin, branch: string): boolean {
  const short = (name: string) => (name.startsWith('refs/heads/') ? name.slice('refs/heads/'.length) : name)
  const followed = originBranch(origin)
  return followed !== undefined && short(followed) === short(branch)
}

/** The layer names repository paths (`files.<folder>/a.rego`); the request named them inside the folder. */
export function folderRelativeField(folder: string): (field: string) => string {
  const prefix = folder === '' ? '' : `${folder}/`
  return (field) => {
    const match = /^(files\.)(.*)$/.exec(field)
    if (match && prefix !== '' && match[2]!.startsWith(prefix))
      return `${match[1]}${match[2]!.slice(prefix.length)}`
    return field
  }
}
