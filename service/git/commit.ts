/**
 * Commits files to a branch and pushes, without a working tree: blobs are written into the
 * mirror's object store, a private index starts from the parent's tree, and `commit-tree` makes
 * the commit. The branch is created from a base reference when it does not exist. A push that
 * loses a race (non-fast-forward) is redone once on the new head — the change is "these files
 * have this content", so it applies to any head — and reported as a conflict if it loses again.
 * Commits to one repository and branch are serialised in the process.
 */
import { GitError, invalidInput, referenceNotFound } from './errors.js'
import { KeyedLock } from './keyed-lock.js'
import { type GitMirror, mirrorLocks } from './mirror.js'
import { withPrivateDir } from './private-dir.js'
import { branchName, commitOf, resolveReference } from './refs.js'
import { checkFilePath } from './tree-path.js'

export interface CommitRequest {
  /** The branch to commit on (`main` or `refs/heads/main`). */
  branch: string
  /** Where a new branch starts (a reference or a commit SHA); required when the branch may not exist. */
  base?: string
  /** Repository-relative path → new content. */
  files: Record<string, string>
  /** Repository-relative paths to remove (absent ones are ignored). */
  filesToDelete: string[]
  author: string
  email: string
  message: string
}

export interface CommitResult {
  commit: string
  branch: string
  parent: string
  /** True when this commit created the branch. */
  createdBranch: boolean
  /** How many pushes it took (2 when the first lost a race). */
  attempts: number
}

const commitLocks = new KeyedLock()

function checkPerson(value: string, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || /[<>\u0000-\u001f]/.test(value))
    throw invalidInput(field, `${field} must be a non-empty line without < or >`)
  return value.trim()
}

export async function commitFiles(repo: GitMirror, request: CommitRequest): Promise<CommitResult> {
  const branch = branchName(request.branch)
  const author = checkPerson(request.author, 'author')
  const email = checkPerson(request.email, 'email')
  if (typeof request.message !== 'string' || request.message.trim() === '')
    throw invalidInput('message', 'message must not be empty')
  const writes = Object.entries(request.files ?? {}).map(([path, content]) => {
    if (typeof content !== 'string')
      throw invalidInput(`files.${path}`, `content of ${JSON.stringify(path)} must be a string`)
    return [checkFilePath(path, `files.${path}`), content] as const
  })
  const deletes = (request.filesToDelete ?? []).map((path) => checkFilePath(path, 'files_to_delete'))
  const identity = {
    GIT_AUTHOR_NAME: author,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: author,
    GIT_COMMITTER_EMAIL: email,
  }

  return commitLocks.run(`${repo.path}#${branch}`, async () => {
    for (let attempt = 1; ; attempt++) {
      await repo.fetch()
      const head = await commitOf(repo, `refs/heads/${branch}`)
      let parent = head
      if (parent === undefined) {
        if (request.base === undefined) throw referenceNotFound(`refs/heads/${branch}`)
        parent = (await resolveReference(repo, request.base, 'base')).commit
      }
      const commit = await buildCommit(repo, parent, writes, deletes, request.message, identity)
      try {
        await repo.remoteCommand(
          () => ['push', '--quiet', '--', repo.remote.url, `${commit}:refs/heads/${branch}`],
          'push',
        )
      } catch (error) {
        if (error instanceof GitError && error.code === 'conflict') {
          if (attempt < 2) continue
          throw new GitError(
            'conflict',
            `branch ${branch} moved while committing, twice; fetch it and try again (${error.message})`,
            'branch',
          )
        }
        throw error
      }
      await mirrorLocks.run(repo.path, () => repo.local(['update-ref', `refs/heads/${branch}`, commit]))
      return { commit, branch, parent, createdBranch: head === undefined, attempts: attempt }
    }
  })
}

async function buildCommit(
  repo: GitMirror,
  parent: string,
  writes: ReadonlyArray<readonly [string, string]>,
  deletes: readonly string[],
  message: string,
  identity: Record<string, string>,
): Promise<string> {
  return withPrivateDir(async (dir) => {
    const env = { GIT_INDEX_FILE: `${dir.path}/index` }
    await repo.local(['read-tree', parent], { env })
    const lines: string[] = []
    for (const path of deletes) lines.push(`0 ${'0'.repeat(40)}\t${path}`)
    for (const [path, content] of writes) {
      const { stdout } = await repo.local(['hash-object', '-w', '--stdin'], { input: content })
      lines.push(`100644 ${stdout.toString('utf8').trim()}\t${path}`)
    }
    if (lines.length > 0)
      await repo.local(['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` })
    const tree = (await repo.local(['write-tree'], { env })).stdout.toString('utf8').trim()
    // The index replaces silently when a file and a folder would share a name (writing `a/b`
    // where `a` is a file drops `a`, and the other way round a whole folder): refuse instead.
    const before = await treeEntries(repo, parent)
    const after = await treeEntries(repo, tree)
    for (const line of lines) {
      const [meta, path] = line.split('\t') as [string, string]
      if (meta.startsWith('100644') && after.get(path) !== meta.split(' ')[1])
        throw invalidInput(`files.${path}`, `file ${JSON.stringify(path)} clashes with another file written`)
    }
    const deleted = new Set(deletes)
    for (const path of before.keys())
      if (!after.has(path) && !deleted.has(path))
        throw invalidInput(
          'files',
          `writing these files would replace ${JSON.stringify(path)}; delete it explicitly`,
        )
    const { stdout } = await repo.local(['commit-tree', tree, '-p', parent, '-F', '-'], {
      env: identity,
      input: message.endsWith('\n') ? message : `${message}\n`,
    })
    return stdout.toString('utf8').trim()
  })
}

/** Path → blob id of every file in a tree. */
async function treeEntries(repo: GitMirror, treeish: string): Promise<Map<string, string>> {
  const { stdout } = await repo.local(['ls-tree', '-r', '-z', treeish])
  const entries = new Map<string, string>()
  for (const record of stdout.toString('utf8').split('\u0000')) {
    if (record === '') continue
    const tab = record.indexOf('\t')
    entries.set(record.slice(tab + 1), record.slice(0, tab).split(' ')[2]!)
  }
  return entries
}
