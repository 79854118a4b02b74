/**
 * A per-repository bare mirror in the data folder. The first use fetches everything into a fresh
 * folder that is renamed into place only when complete (no half-cloned mirror is ever used); later
 * uses `fetch` only what changed. The mirror's size on disk is watched while git writes and checked
 * after, and a repository over the limit is removed with a `too_large` error.
 *
 * The remote URL is never stored in the mirror's config: every command names it, so no remote
 * settings (such as `mirror = true`, which would turn a push into a forced mirror push) apply.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { classifyGitFailure } from './classify.js'
import { dirSize } from './dir-size.js'
import { tooLarge } from './errors.js'
import { KeyedLock } from './keyed-lock.js'
import { type RemoteSession, withRemoteSession } from './remote-session.js'
import { parseRemoteUrl, type RemoteUrl } from './remote-url.js'
import { type GitResult, type GitRun, runGit } from './run-git.js'
import {
  DEFAULT_MAX_REPOSITORY_BYTES,
  DEFAULT_TIMEOUT_MS,
  type GitCredentials,
  type GitLimits,
} from './types.js'

export interface MirrorOptions extends GitLimits {
  /** The data folder; mirrors live in `<dataDir>/git-mirrors/<hash of the URL>`. */
  dataDir: string
}

/** Serialises fetches (and the fetch-and-push of commits) per mirror folder across the process. */
export const mirrorLocks = new KeyedLock()

/**
 * When each mirror folder was last handed out in this process. An operation reads a mirror after
 * `mirror()` returns, outside its lock, so the sweep (mirror-sweep.ts) leaves recently used ones be.
 */
export const mirrorLastOpened = new Map<string, number>()

const FETCH_REFSPECS = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']

export class GitMirror {
  readonly timeoutMs: number
  readonly maxRepositoryBytes: number

  constructor(
    readonly path: string,
    readonly remote: RemoteUrl,
    readonly credentials: GitCredentials | undefined,
    limits: GitLimits,
  ) {
    this.timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.maxRepositoryBytes = limits.maxRepositoryBytes ?? DEFAULT_MAX_REPOSITORY_BYTES
  }

  /** Runs a git command inside the mirror that does not talk to the remote; fails with a typed error. */
  async local(args: string[], run: Partial<GitRun> = {}, what = args[0]): Promise<GitResult> {
    const result = await runGit(args, { cwd: this.path, timeoutMs: this.timeoutMs, ...run }, what)
    if (result.code !== 0) throw classifyGitFailure(what ?? 'git', result.stderr, [])
    return result
  }

  /** Runs a git command that talks to the remote, with the credentials set up for just this command. */
  async remoteCommand(
    args: (session: RemoteSession) => string[],
    what: string,
    run: Partial<GitRun> = {},
  ): Promise<GitResult> {
    return withRemoteSession(this.remote, this.credentials, this.timeoutMs, async (session) => {
      const result = await runGit(
        args(session),
        { cwd: this.path, timeoutMs: this.timeoutMs, ...run, env: { ...session.env, ...run.env } },
        what,
      )
      if (result.code !== 0) throw classifyGitFailure(what, result.stderr, session.secrets)
      return result
    })
  }

  /** Brings the mirror up to date with the remote (caller holds the mirror's lock). */
  async fetchUnlocked(): Promise<void> {
    await this.fetchInto(this.path)
  }

  /** Brings the mirror up to date with the remote. */
  fetch(): Promise<void> {
    return mirrorLocks.run(this.path, () => this.fetchUnlocked())
  }

  async fetchInto(folder: string): Promise<void> {
    const limit = this.maxRepositoryBytes
    const overLimit = async () => {
      const size = await dirSize(folder)
      if (size > limit)
        throw tooLarge(
          `repository ${this.remote.url} takes more than ${limit} bytes (the mirror size limit)`,
          'url',
        )
    }
    try {
      await withRemoteSession(this.remote, this.credentials, this.timeoutMs, async (session) => {
        const result = await runGit(
          ['fetch', '--prune', '--quiet', '--no-write-fetch-head', '--', this.remote.url, ...FETCH_REFSPECS],
          { cwd: folder, timeoutMs: this.timeoutMs, env: session.env, watch: overLimit, watchEveryMs: 200 },
          'fetch',
        )
        if (result.code !== 0) throw classifyGitFailure('fetch', result.stderr, session.secrets)
      })
      await overLimit()
    } catch (error) {
      // A mirror over the limit is not kept: the limit bounds the disk, not just the answer.
      if ((error as { code?: string }).code === 'too_large')
        await rm(folder, { recursive: true, force: true })
      throw error
    }
  }
}

/** The folder holding every mirror. */
export function mirrorsRoot(dataDir: string): string {
  return join(dataDir, 'git-mirrors')
}

/** The folder name of the mirror of `url` (as parseRemoteUrl normalises it). */
export function mirrorFolderName(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 32)
}

function mirrorFolder(dataDir: string, url: string): string {
  const path = join(mirrorsRoot(dataDir), mirrorFolderName(url))
  mirrorLastOpened.set(path, Date.now())
  return path
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

/**
 * The mirror of `url` as it is on disk, without talking to the remote; undefined when there is
 * none yet. For reading what an earlier fetch brought (a rebuild from a known commit).
 */
export async function existingMirror(
  url: string,
  credentials: GitCredentials | undefined,
  options: MirrorOptions,
): Promise<GitMirror | undefined> {
  const remote = parseRemoteUrl(url)
  const path = mirrorFolder(options.dataDir, remote.url)
  return (await exists(path)) ? new GitMirror(path, remote, credentials, options) : undefined
}

/**
 * The mirror of `url`, up to date: cloned on first use, fetched incrementally afterwards.
 * Typed errors: invalid_input (URL), auth_failed, host_key_rejected, repository_unreachable,
 * timeout, too_large.
 */
export async function mirror(
  url: string,
  credentials: GitCredentials | undefined,
  options: MirrorOptions,
): Promise<GitMirror> {
  const remote = parseRemoteUrl(url)
  const path = mirrorFolder(options.dataDir, remote.url)
  const repo = new GitMirror(path, remote, credentials, options)
  await mirrorLocks.run(path, async () => {
    if (await exists(path)) {
      await repo.fetchUnlocked()
      return
    }
    await mkdir(mirrorsRoot(options.dataDir), { recursive: true })
    const fresh = `${path}.tmp-${randomBytes(6).toString('hex')}`
    try {
      const init = await runGit(['init', '--bare', '--quiet', fresh], { timeoutMs: repo.timeoutMs }, 'init')
      if (init.code !== 0) throw classifyGitFailure('init', init.stderr, [])
      await repo.fetchInto(fresh)
      await rename(fresh, path)
    } finally {
      await rm(fresh, { recursive: true, force: true })
    }
  })
  // Handed out now: the caller's reads come after the fetch (which may have queued a while).
  mirrorLastOpened.set(path, Date.now())
  return repo
}
