/**
 * Systems built from git. `sync(systemId)` fetches the origin (the mirror in the data folder),
 * resolves the pinned commit or the reference, records the commit in the sync state and rebuilds
 * the system; a failure is recorded instead and the last good commit stays built. `content(system)`
 * is what the bundle builder asks for: the files of the recorded commit under the origin's path,
 * with the SBOM (RepoRoots) in the manifest's metadata and the commit in the revision.
 */
import type { Logger } from 'pino'
import type { GitSyncRow, ServiceStore, SystemRow } from '../../store/service/index.js'
import {
  type BuildOutcome,
  type SourcedContent,
  SourceUnavailableError,
  STATUS_READY,
  STATUS_SOURCE_FAILED,
  type SystemSource,
} from '../bundle-builder.js'
import { existingMirror, type GitMirror, mirror, readTree, resolveReference } from '../git/index.js'
import { KeyedLock } from '../git/keyed-lock.js'
import { originCredentials } from '../git-origin/credentials.js'
import {
  DEFAULT_REFERENCE,
  type GitOrigin,
  type GitOriginFields,
  gitOrigin,
  originFieldsOf,
  originKey,
} from '../git-origin/origin.js'
import { sourceControlSecretReferences } from '../secrets/references.js'
import type { SecretVault } from '../secrets/vault.js'
import { type CommitContent, commitContent, isBundleFile } from './content.js'
import { type SourceFailure, sourceFailureOf } from './failure.js'
import { type SourceControlStatus, sourceControlStatus } from './sync-status.js'

export interface GitSourceOptions {
  store: ServiceStore
  secrets: SecretVault
  logger: Logger
  /** Mirrors live in `<dataDir>/git-mirrors/`. */
  dataDir: string
  timeoutMs: number
  maxRepositoryBytes: number
  /** `service.git.known_hosts`: ssh hosts named there are checked against these lines only (../git-origin/host-keys.ts). */
  knownHosts: readonly string[]
  /** Nodes a data.yaml may hold. */
  maxYamlNodes?: number
}

/** What one sync did. */
export interface SyncOutcome {
  /** The commit the system is built from now (the last good one when this sync failed). */
  commit?: string
  /** The reference it was resolved from (undefined for a pinned commit). */
  ref?: string
  /** The failure of this sync, if any: `{code, message}`. */
  error?: { code: string; message: string }
  /** The system's status after the rebuild. */
  status?: string
  errors: string[]
}

/** The spec's RepoRoots: where a bundle's content came from. */
export interface RepoRoots {
  repo: string
  ref: string
  commit: string
  path: string
  id: string
  roots: string[]
  timestamp: string
}

interface CachedCommit {
  key: string
  content: CommitContent
  committedAt: string
}

export class GitSource implements SystemSource {
  private readonly locks = new KeyedLock()
  /** The content of the last commit read per system: rebuilds without a new commit read nothing. */
  private readonly cache = new Map<string, CachedCommit>()
  private readonly inFlight = new Set<Promise<unknown>>()
  private readonly queued = new Map<string, Promise<SyncOutcome | undefined>>()
  private rebuild: (systemId: string) => Promise<BuildOutcome | undefined> = async () => {
    throw new Error('GitSource.rebuildWith was not called')
  }

  constructor(private readonly options: GitSourceOptions) {}

  /** Sets what rebuilds a system after a sync (the bundle builder, which itself reads `content`). */
  rebuildWith(rebuild: (systemId: string) => Promise<BuildOutcome | undefined>): void {
    this.rebuild = rebuild
  }

  /** Whether `system` is built from git. */
  isGitBacked(system: Pick<SystemRow, 'config'>): boolean {
    return originFieldsOf(system) !== undefined
  }

  /**
   * Fetches the origin of `systemId` and rebuilds it (`always`: after an API call, which may have
   * changed more than the origin; `when-changed`: polls and webhooks). Resolves to undefined when
   * the system does not exist or is not built from git. Syncs of one system run one after another.
   */
  sync(
    systemId: string,
    options: { rebuild: 'always' | 'when-changed' } = { rebuild: 'always' },
  ): Promise<SyncOutcome | undefined> {
    const running = options.rebuild === 'always' ? this.syncNow(systemId, true) : this.syncQueued(systemId)
    const tracked = running.finally(() => this.inFlight.delete(tracked))
    this.inFlight.add(tracked)
    return running
  }

  /**
   * A sync for a poll or a webhook: rebuilds only when the commit or the failure changed. A burst
   * of them makes one queued sync, not one each: a sync that has not started yet will see
   * everything pushed so far. One that is running may have fetched before the latest push, so a
   * caller arriving then queues the next one.
   */
  private syncQueued(systemId: string): Promise<SyncOutcome | undefined> {
    const waiting = this.queued.get(systemId)
    if (waiting) return waiting
    const running = this.locks.run(systemId, () => {
      this.queued.delete(systemId)
      return this.syncLocked(systemId, false)
    })
    this.queued.set(systemId, running)
    return running
  }

  private syncNow(systemId: string, force: boolean): Promise<SyncOutcome | undefined> {
    return this.locks.run(systemId, () => this.syncLocked(systemId, force))
  }

  /** Waits for the syncs in progress (webhook syncs run unawaited): before the store closes. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inFlight])
  }

  private async syncLocked(systemId: string, force: boolean): Promise<SyncOutcome | undefined> {
    const { store } = this.options
    const system = await store.systems.get(systemId)
    const fields = system && originFieldsOf(system)
    if (!fields) {
      await store.gitSync.delete(systemId)
      return undefined
    }
    const key = stateKey(fields)
    const previous = await store.gitSync.get(systemId)
    // A changed origin (url, reference, commit, path) starts over: its old commit is not its content.
    const state = previous?.origin === key ? previous : undefined
    const now = () => new Date().toISOString()
    let error: SourceFailure | undefined
    try {
      const origin = gitOrigin(fields)
      const repo = await mirror(origin.url, await this.credentials(origin), this.mirrorOptions())
      const resolved = await this.resolve(repo, origin)
      // One instant: a successful attempt is the sync (two clock reads could differ by a millisecond).
      const syncedAt = now()
      await store.gitSync.put({
        system_id: systemId,
        origin: key,
        commit_sha: resolved.commit,
        ref: resolved.ref ?? null,
        synced_at: syncedAt,
        error_code: null,
        error: null,
        attempted_at: syncedAt,
      })
    } catch (err) {
      error = sourceFailureOf(err)
      this.options.logger.warn(
        { system_id: systemId, code: error.code, reason: error.message },
        'git sync failed',
      )
      await store.gitSync.put({
        system_id: systemId,
        origin: key,
        commit_sha: state?.commit_sha ?? null,
        ref: state?.ref ?? null,
        synced_at: state?.synced_at ?? null,
        error_code: error.code,
        error: error.message,
        attempted_at: now(),
      })
    }
    const recorded = await store.gitSync.get(systemId)
    const unchanged =
      state !== undefined &&
      recorded?.commit_sha === state.commit_sha &&
      recorded?.error_code === state.error_code &&
      recorded?.error === state.error
    // A poll that found nothing new does not rebuild (compiling a large repository every 30 s
    // would cost a core), unless the last build failed for a reason a retry may cure (storage).
    if (!force && unchanged && (system.status === STATUS_READY || system.status === STATUS_SOURCE_FAILED)) {
      return this.outcomeOf(recorded, error, {
        status: system.status,
        errors: parseErrors(system.status_errors),
      })
    }
    // The stored bundle is replaced only by one built from a newer content version.
    await store.systems.bumpContentVersion(systemId)
    const outcome = await this.rebuild(systemId)
    if (outcome === undefined) {
      // Deleted while we fetched: leave no state behind for a system that is gone.
      await this.forget(systemId)
      return undefined
    }
    return this.outcomeOf(await store.gitSync.get(systemId), error, outcome)
  }

  private outcomeOf(
    state: GitSyncRow | undefined,
    error: SourceFailure | undefined,
    build: { status: string; errors: string[] },
  ): SyncOutcome {
    return {
      ...(state?.commit_sha ? { commit: state.commit_sha } : {}),
      ...(state?.ref ? { ref: state.ref } : {}),
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
      status: build.status,
      errors: build.errors,
    }
  }

  private async resolve(repo: GitMirror, origin: GitOrigin) {
    if (origin.commit !== undefined) return resolveReference(repo, origin.commit, 'commit')
    return resolveReference(repo, origin.reference ?? DEFAULT_REFERENCE, 'reference')
  }

  /**
   * The origin's credentials (../git-origin/credentials.ts): HTTP logins and ssh keys from the
   * secrets it names, ssh host keys from `service.git.known_hosts` or trusted on first use and
   * recorded in the settings, as the source-control endpoints do.
   */
  private credentials(origin: GitOrigin) {
    const { store, secrets, knownHosts } = this.options
    return originCredentials(store, secrets, origin.fields, 'source_control.origin.', knownHosts)
  }

  private mirrorOptions() {
    return {
      dataDir: this.options.dataDir,
      timeoutMs: this.options.timeoutMs,
      maxRepositoryBytes: this.options.maxRepositoryBytes,
    }
  }

  /** What the latest syncs of a git-backed system did (`source_control_status`); undefined for others. */
  async status(system: SystemRow): Promise<SourceControlStatus | undefined> {
    const fields = originFieldsOf(system)
    if (!fields) return undefined
    const stored = await this.options.store.gitSync.get(system.id)
    // A state recorded for an earlier origin says nothing about the current one.
    return sourceControlStatus(stored?.origin === stateKey(fields) ? stored : undefined)
  }

  /** The content of the recorded commit of a git-backed system (SystemSource). */
  async content(system: SystemRow): Promise<SourcedContent | undefined> {
    const fields = originFieldsOf(system)
    if (!fields) return undefined
    const { store } = this.options
    const stored = await store.gitSync.get(system.id)
    const state = stored?.origin === stateKey(fields) ? stored : undefined
    const problems: string[] = []
    if (state?.error) problems.push(`${state.error_code}: ${state.error}`)
    // A secret deleted or never created since the last sync: not Ready, even if the mirror is there.
    const references = sourceControlSecretReferences(JSON.parse(system.config).source_control)
    const missing = new Set(await store.secrets.missing(references.map((r) => r.id)))
    for (const ref of references.filter((r) => missing.has(r.id)))
      problems.push(`missing_secret: ${ref.field}: secret "${ref.id}" does not exist`)
    if (!state?.commit_sha) {
      if (problems.length === 0) problems.push(`not synced yet: waiting for the first fetch of ${fields.url}`)
      throw new SourceUnavailableError(problems)
    }
    const commit = state.commit_sha
    // A commit was recorded, so the origin was accepted when it was synced: it still is.
    const origin = gitOrigin(fields)
    const cached = await this.commitFiles(system.id, origin, commit)
    const roots: RepoRoots = {
      repo: origin.url,
      ref: state.ref ?? origin.reference ?? '',
      commit,
      path: origin.path,
      id: system.id,
      roots: cached.content.roots,
      timestamp: cached.committedAt,
    }
    return {
      modules: cached.content.modules,
      data: cached.content.data,
      revision: (digest) => `${commit}-${digest.slice(0, 16)}`,
      metadata: { sbom: { origins: [roots] } },
      ...(problems.length > 0 ? { sourceProblems: problems } : {}),
    }
  }

  /** The commit's content, read from the mirror once per commit (fetched first when the mirror lacks it). */
  private async commitFiles(systemId: string, origin: GitOrigin, commit: string): Promise<CachedCommit> {
    const key = `${originKey(origin)}@${commit}`
    const hit = this.cache.get(systemId)
    if (hit?.key === key) return hit
    const options = this.mirrorOptions()
    let repo = await existingMirror(origin.url, undefined, options)
    if (!repo || !(await hasCommit(repo, commit))) {
      // Another replica synced this commit, or the data folder is new: fetch it (credentials needed).
      const credentials = await this.credentials(origin).catch((err) => {
        throw new SourceUnavailableError([`${sourceFailureOf(err).code}: ${sourceFailureOf(err).message}`])
      })
      repo = await mirror(origin.url, credentials, options).catch((err) => {
        const failure = sourceFailureOf(err)
        throw new SourceUnavailableError([`${failure.code}: ${failure.message}`])
      })
    }
    let tree: Awaited<ReturnType<typeof readTree>>
    try {
      tree = await readTree(repo, commit, origin.path, { include: isBundleFile })
    } catch (err) {
      const failure = sourceFailureOf(err)
      throw new SourceUnavailableError([`${failure.code}: ${failure.message} (commit ${commit})`])
    }
    const content = commitContent(tree, origin.path, this.options.maxYamlNodes)
    const shown = await repo.local(['show', '-s', '--format=%cI', commit], {}, 'show')
    const entry = { key, content, committedAt: new Date(shown.stdout.toString('utf8').trim()).toISOString() }
    this.cache.set(systemId, entry)
    return entry
  }

  /** Forgets a deleted system's cached content and sync state. */
  async forget(systemId: string): Promise<void> {
    this.cache.delete(systemId)
    await this.options.store.gitSync.delete(systemId)
  }
}

/**
 * What the sync state of `fields` is kept for (originKey). A folder the origin refuses keys by its
 * raw text: its sync records that failure, and a fixed folder is a new origin.
 */
function stateKey(fields: GitOriginFields): string {
  try {
    return originKey(gitOrigin(fields))
  } catch {
    return JSON.stringify([
      fields.url,
      fields.commit || fields.reference || DEFAULT_REFERENCE,
      fields.path ?? '',
    ])
  }
}

function parseErrors(text: string | null): string[] {
  try {
    const value: unknown = text === null ? [] : JSON.parse(text)
    return Array.isArray(value) ? value.map(String) : []
  } catch {
    return []
  }
}

async function hasCommit(repo: GitMirror, commit: string): Promise<boolean> {
  return repo.local(['cat-file', '-e', `${commit}^{commit}`], {}, 'cat-file').then(
    () => true,
    () => false,
  )
}
