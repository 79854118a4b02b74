/**
 * References: a full name (`refs/heads/x`, `refs/tags/v1`), a short branch or tag name, or a
 * commit SHA, resolved to a commit of the mirror. Names are checked against git's rules before git
 * sees them, and always passed fully qualified, so none is ever read as an option or a revision
 * expression (`main~1`, `HEAD@{1}`).
 */
import { invalidInput, referenceNotFound } from './errors.js'
import type { GitMirror } from './mirror.js'
import { runGit } from './run-git.js'

const COMMIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/** git's check-ref-format rules, for one name below `refs/`. */
export function isValidRefName(name: string): boolean {
  if (name === '' || name.length > 1024 || name.startsWith('-') || name.startsWith('/') || name.endsWith('/'))
    return false
  if (/[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\/|\.lock$|\.$/.test(name)) return false
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'))
}

/** A branch name as given by a user (`main` or `refs/heads/main`), checked, without `refs/heads/`. */
export function branchName(branch: string, field = 'branch'): string {
  const short = branch.startsWith('refs/heads/') ? branch.slice('refs/heads/'.length) : branch
  if (!isValidRefName(short) || short === 'HEAD')
    throw invalidInput(field, `branch ${JSON.stringify(branch)} is not a valid branch name`)
  return short
}

/** The full reference names a user's reference may stand for, most specific first. */
export function candidateRefs(reference: string, field = 'reference'): string[] {
  if (reference.startsWith('refs/')) {
    if (!isValidRefName(reference.slice(5)))
      throw invalidInput(field, `reference ${JSON.stringify(reference)} is not valid`)
    return [reference]
  }
  if (!isValidRefName(reference))
    throw invalidInput(field, `reference ${JSON.stringify(reference)} is not valid`)
  return [`refs/heads/${reference}`, `refs/tags/${reference}`]
}

/** The commit a name points at in the mirror, or undefined when it does not exist. */
export async function commitOf(repo: GitMirror, fullName: string): Promise<string | undefined> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', `${fullName}^{commit}`], {
    cwd: repo.path,
    timeoutMs: repo.timeoutMs,
  })
  return result.code === 0 ? result.stdout.toString('utf8').trim() : undefined
}

export interface ResolvedReference {
  commit: string
  /** The full reference name, or undefined when a commit SHA was given. */
  ref?: string
}

/** Resolves a reference or commit SHA to a commit of the mirror; `reference_not_found` otherwise. */
export async function resolveReference(
  repo: GitMirror,
  reference: string,
  field = 'reference',
): Promise<ResolvedReference> {
  if (COMMIT_SHA.test(reference)) {
    const commit = await commitOf(repo, reference)
    if (commit === undefined) throw referenceNotFound(reference)
    return { commit }
  }
  for (const ref of candidateRefs(reference, field)) {
    const commit = await commitOf(repo, ref)
    if (commit !== undefined) return { commit, ref }
  }
  throw referenceNotFound(reference)
}
