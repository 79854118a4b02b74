/**
 * The files of a system's folder at a commit, and how a branch differs from the commit the system
 * follows: `GET …/master` (RepoFiles) and `GET …/branch` (RepoFileChanges). Paths are relative to
 * the origin's `path`, the same paths a commit writes, so what is read can be changed and
 * committed back as is.
 */
import { GitError, type GitMirror, readTree } from '../git/index.js'
import { branchName, commitOf } from '../git/refs.js'
import type { GitOrigin } from '../git-origin/origin.js'

/** The spec's RepoFiles. */
export interface RepoFiles {
  files: Record<string, string>
  branch?: string
  deleted_files?: string[]
}

/** The spec's RepoFileChanges, with the branch's head commit. */
export interface RepoFileChanges {
  branch: string
  commit: string
  /** Content of every file the branch added or changed. */
  files: Record<string, string>
  changed_files: string[]
  deleted_files: string[]
}

/** Reads text files; binary ones and ones over `maxFileBytes` are refused naming the file. */
async function folderFiles(
  repo: GitMirror,
  commit: string,
  origin: GitOrigin,
  maxFileBytes: number,
  missingFolderIsEmpty: boolean,
): Promise<Record<string, string>> {
  try {
    return (await readTree(repo, commit, origin.path, { maxFileBytes })).files
  } catch (error) {
    // A branch may have removed the whole folder: then every file of it is deleted.
    if (missingFolderIsEmpty && error instanceof GitError && error.code === 'path_not_found') return {}
    throw error
  }
}

/** The head of `branch` in the (fetched) mirror; `reference_not_found` naming the branch otherwise. */
export async function branchHead(repo: GitMirror, branch: string): Promise<{ name: string; commit: string }> {
  const name = branchName(branch)
  const commit = await commitOf(repo, `refs/heads/${name}`)
  if (commit === undefined) throw new GitError('reference_not_found', `branch ${name} not found`, 'branch')
  return { name, commit }
}

/** The short branch name an origin's reference stands for, when it names a branch. */
export function originBranch(origin: GitOrigin): string | undefined {
  const reference = origin.reference
  if (reference === undefined || reference.startsWith('refs/tags/')) return undefined
  return reference.startsWith('refs/heads/') ? reference.slice('refs/heads/'.length) : reference
}

/** RepoFiles of the commit the system follows, or of `branch` with what it deleted relative to that commit. */
export async function masterFiles(
  repo: GitMirror,
  origin: GitOrigin,
  baseCommit: string,
  branch: string | undefined,
  maxFileBytes: number,
): Promise<RepoFiles> {
  if (branch === undefined) {
    const files = await folderFiles(repo, baseCommit, origin, maxFileBytes, false)
    const name = originBranch(origin)
    return name === undefined ? { files } : { files, branch: name }
  }
  const head = await branchHead(repo, branch)
  const [files, base] = await Promise.all([
    folderFiles(repo, head.commit, origin, maxFileBytes, true),
    folderFiles(repo, baseCommit, origin, maxFileBytes, true),
  ])
  return {
    files,
    branch: head.name,
    deleted_files: Object.keys(base)
      .filter((p) => !(p in files))
      .sort(),
  }
}

/** What `branch` changed in the system's folder relative to the commit the system follows. */
export async function branchChanges(
  repo: GitMirror,
  origin: GitOrigin,
  baseCommit: string,
  branch: string,
  maxFileBytes: number,
): Promise<RepoFileChanges> {
  const head = await branchHead(repo, branch)
  const [files, base] = await Promise.all([
    folderFiles(repo, head.commit, origin, maxFileBytes, true),
    folderFiles(repo, baseCommit, origin, maxFileBytes, true),
  ])
  const changed = Object.keys(files)
    .filter((p) => base[p] !== files[p])
    .sort()
  return {
    branch: head.name,
    commit: head.commit,
    files: Object.fromEntries(changed.map((p) => [p, files[p]!])),
    changed_files: changed,
    deleted_files: Object.keys(base)
      .filter((p) => !(p in files))
      .sort(),
  }
}
