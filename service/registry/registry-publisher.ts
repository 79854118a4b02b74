/**
 * Publishes a system's bundles to its bundle registry: each build with a new revision is kept as
 * a version; without `manual_deployment` it is deployed at once (the discovery bundle always
 * is), and deploying uploads the version to the bucket at the system's `policy_path` or
 * `discovery_path`. Uploads run in the background, retried with capped exponential backoff
 * (p-retry); their state is stored per version, so the system's view shows a failing registry
 * while agents keep getting bundles from the service directly. Old versions are pruned beyond
 * `max_bundles`.
 */
import pRetry, { AbortError } from 'p-retry'
import type { Logger } from 'pino'
import type { BundleKind, RegistryBundleSummary, ServiceStore, SystemRow } from '../../store/service/index.js'
import type { ServiceMetrics } from '../metrics.js'
import { emptyUserProblem, readLogin } from '../secrets/login.js'
import type { SecretVault } from '../secrets/vault.js'
import {
  type BundleRegistryConfig,
  endpointOf,
  expandPath,
  keyProblem,
  registryConfigOf,
} from './registry-config.js'
import { versionsToPrune } from './retention.js'
import { objectUrl, S3Bucket } from './s3-bucket.js'

/** How uploads are retried. */
export interface UploadRetryOptions {
  /** Retries after the first attempt before the upload is marked failed. */
  retries: number
  minDelayMs: number
  maxDelayMs: number
  /** Milliseconds one PUT may take. */
  timeoutMs: number
}

export interface RegistryPublisherOptions {
  store: ServiceStore
  secrets: SecretVault
  logger: Logger
  metrics: ServiceMetrics
  retry: UploadRetryOptions
}

/** The upload state of a system's active version of one bundle. */
export interface RegistryUploadStatus {
  version: number
  revision: string
  state: string
  attempts: number
  error: string | null
  etag: string | null
  object: string | null
  uploaded_at: string | null
}

/** A version's upload state as the API shows it. */
export function uploadView(row: RegistryBundleSummary): Omit<RegistryUploadStatus, 'version' | 'revision'> {
  return {
    state: row.upload_state,
    attempts: row.upload_attempts,
    error: row.upload_error,
    etag: row.etag,
    object: row.uploaded_to,
    uploaded_at: row.uploaded_at,
  }
}

/** What one upload attempt needs, read afresh for each attempt (keys or paths may change). */
interface UploadJob {
  bucket: S3Bucket
  key: string
  url: string
  bytes: Uint8Array
}

const KINDS: readonly BundleKind[] = ['policy', 'discovery']

/** One per service; `stop()` before the store closes. */
export class RegistryPublisher {
  private readonly inFlight = new Map<
    string,
    { controller: AbortController; done: Promise<void>; version: number }
  >()
  /** Bookkeeping of builds, one chain per system and bundle, so versions are added and deployed in build order. */
  private readonly builds = new Map<string, Promise<void>>()
  private stopping = false

  constructor(private readonly options: RegistryPublisherOptions) {}

  /**
   * Called by the bundle builder after it stored a build. A new revision becomes a version (and
   * is deployed unless the registry wants manual deployment); the same revision rebuilt (after a
   * config change or a restart) re-uploads the active version if the bucket lacks it where the
   * config now says.
   */
  bundleBuilt(system: SystemRow, kind: BundleKind, revision: string, bytes: Uint8Array): Promise<void> {
    const key = uploadKey(system.id, kind)
    const previous = this.builds.get(key) ?? Promise.resolve()
    // NOTE(registry): two builds of one system finishing together (two quick PUTs) must not
    // deploy the older one last; the builder stores them in content order and calls in that order.
    const next = previous.then(() => this.recordBuild(system, kind, revision, bytes))
    const settled = next.catch(() => {})
    this.builds.set(key, settled)
    void settled.then(() => {
      if (this.builds.get(key) === settled) this.builds.delete(key)
    })
    return next
  }

  private async recordBuild(system: SystemRow, kind: BundleKind, revision: string, bytes: Uint8Array) {
    const config = registryConfigOf(system.config)
    if (!config) return
    const repo = this.options.store.registryBundles
    const latest = await repo.latest(system.id, kind)
    if (latest?.revision === revision) {
      await this.ensureActiveUploaded(system, kind, config)
      return
    }
    const version = await repo.add({
      system_id: system.id,
      kind,
      revision,
      bytes,
      built_at: new Date().toISOString(),
    })
    if (kind === 'discovery' || !config.manual_deployment) await this.deploy(system.id, kind, version)
    await this.prune(system.id, kind, config)
  }

  /** Makes `version` the active one and starts its upload; false when there is no such version. */
  async deploy(systemId: string, kind: BundleKind, version: number): Promise<boolean> {
    const at = new Date().toISOString()
    const found = await this.options.store.registryBundles.markDeployed(systemId, kind, version, at)
    if (found) this.startUpload(systemId, kind, version)
    return found
  }

  /** The upload state of each bundle's active version (absent kinds have none). */
  async status(systemId: string): Promise<Partial<Record<BundleKind, RegistryUploadStatus>>> {
    const result: Partial<Record<BundleKind, RegistryUploadStatus>> = {}
    for (const kind of KINDS) {
      const row = await this.options.store.registryBundles.active(systemId, kind)
      if (!row) continue
      result[kind] = { version: row.version, revision: row.revision, ...uploadView(row) }
    }
    return result
  }

  /** Resolves when no upload is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()].map((u) => u.done))
  }

  /** Aborts running uploads; their stored state stays pending and the next start resumes them. */
  async stop(): Promise<void> {
    this.stopping = true
    for (const upload of this.inFlight.values()) upload.controller.abort()
    await this.idle()
  }

  private async ensureActiveUploaded(system: SystemRow, kind: BundleKind, config: BundleRegistryConfig) {
    const active = await this.options.store.registryBundles.active(system.id, kind)
    if (!active) return
    const target = objectUrl(locationOf(config), objectKey(system, kind, config))
    if (active.upload_state === 'uploaded' && active.uploaded_to === target) return
    // A running upload reads the config again on its next attempt.
    if (this.inFlight.get(uploadKey(system.id, kind))?.version === active.version) return
    await this.options.store.registryBundles.setUpload(system.id, kind, active.version, {
      upload_state: 'pending',
      upload_attempts: 0,
      upload_error: null,
    })
    this.startUpload(system.id, kind, active.version)
  }

  private async prune(systemId: string, kind: BundleKind, config: BundleRegistryConfig): Promise<void> {
    const repo = this.options.store.registryBundles
    const versions = await repo.list(systemId, { kind, limit: 1_000_000 })
    const active = await repo.active(systemId, kind)
    const drop = versionsToPrune(versions, active?.version, config)
    await repo.delete(systemId, kind, drop)
  }

  private startUpload(systemId: string, kind: BundleKind, version: number): void {
    if (this.stopping) return
    const key = uploadKey(systemId, kind)
    // A newer deployment supersedes an upload still retrying: the bucket must end with the newest.
    this.inFlight.get(key)?.controller.abort()
    const controller = new AbortController()
    const done = this.upload(systemId, kind, version, controller.signal)
      .catch((err) =>
        this.options.logger.error({ err, system_id: systemId, kind, version }, 'registry upload crashed'),
      )
      .finally(() => {
        if (this.inFlight.get(key)?.controller === controller) this.inFlight.delete(key)
      })
    this.inFlight.set(key, { controller, done, version })
  }

  private async upload(
    systemId: string,
    kind: BundleKind,
    version: number,
    signal: AbortSignal,
  ): Promise<void> {
    const repo = this.options.store.registryBundles
    const { retry, logger } = this.options
    const log = { system_id: systemId, kind, version }
    let attempts = 0
    try {
      await pRetry(
        async () => {
          attempts++
          const job = await this.prepare(systemId, kind, version)
          const etag = await job.bucket.put(job.key, job.bytes, 'application/gzip', signal)
          await repo.setUpload(systemId, kind, version, {
            upload_state: 'uploaded',
            upload_attempts: attempts,
            upload_error: null,
            uploaded_to: job.url,
            uploaded_at: new Date().toISOString(),
            etag,
          })
          this.options.metrics.registryUploads.inc({ kind, outcome: 'uploaded' })
          logger.info({ ...log, object: job.url, etag, attempts }, 'registry upload done')
        },
        {
          retries: retry.retries,
          minTimeout: retry.minDelayMs,
          maxTimeout: retry.maxDelayMs,
          factor: 2,
          randomize: true,
          signal,
          onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
            if (signal.aborted) return
            this.options.metrics.registryUploads.inc({ kind, outcome: 'failed' })
            await repo.setUpload(systemId, kind, version, {
              upload_state: retriesLeft > 0 ? 'retrying' : 'failed',
              upload_attempts: attemptNumber,
              upload_error: error.message,
            })
            logger.warn(
              { ...log, attempt: attemptNumber, retries_left: retriesLeft, reason: error.message },
              'registry upload failed',
            )
          },
        },
      )
    } catch (err) {
      if (this.stopping) return
      const superseded = signal.aborted || (err instanceof AbortError && err.message.startsWith('superseded'))
      const message = err instanceof Error ? err.message : String(err)
      await repo.setUpload(systemId, kind, version, {
        upload_state: superseded ? 'superseded' : 'failed',
        upload_attempts: attempts,
        upload_error: superseded ? null : message,
      })
      if (!superseded) logger.warn({ ...log, reason: message }, 'registry upload given up')
    }
  }

  /**
   * Reads what an attempt needs. Problems that waiting cannot fix (the system or its registry
   * gone, the version no longer active, a missing secret, a bad key) end the retries at once.
   */
  private async prepare(systemId: string, kind: BundleKind, version: number): Promise<UploadJob> {
    const { store, secrets, retry } = this.options
    const system = await store.systems.get(systemId)
    const config = system && registryConfigOf(system.config)
    if (!system || !config) throw new AbortError('superseded: the system or its bundle_registry was removed')
    const active = await store.registryBundles.active(systemId, kind)
    if (active?.version !== version) throw new AbortError(`superseded by version ${active?.version}`)
    const row = await store.registryBundles.get(systemId, kind, version)
    if (!row) throw new AbortError(`superseded: version ${version} was pruned`)
    const secretId = config.distribution_s3.access_keys
    const login = await readLogin(store, secrets, secretId)
    if (!login) {
      throw new AbortError(`bundle_registry.distribution_s3.access_keys: secret "${secretId}" does not exist`)
    }
    if (login.user === '') {
      throw new AbortError(
        `bundle_registry.distribution_s3.access_keys: ${emptyUserProblem(secretId, 'access key id', 'secret access key')}`,
      )
    }
    const key = objectKey(system, kind, config)
    const problem = keyProblem(key)
    if (problem) throw new AbortError(`bundle_registry.distribution_s3.${kind}_path: "${key}": ${problem}`)
    const location = locationOf(config)
    return {
      bucket: new S3Bucket(
        location,
        { accessKeyId: login.user, secretAccessKey: login.secret },
        retry.timeoutMs,
      ),
      key,
      url: objectUrl(location, key),
      bytes: row.bytes,
    }
  }
}

function uploadKey(systemId: string, kind: BundleKind): string {
  return `${kind}:${systemId}`
}

function locationOf(config: BundleRegistryConfig) {
  const s3 = config.distribution_s3
  return { endpoint: endpointOf(s3), region: s3.region, bucket: s3.bucket }
}

/** The object key of a system's bundle: its path template expanded. */
export function objectKey(system: SystemRow, kind: BundleKind, config: BundleRegistryConfig): string {
  const s3 = config.distribution_s3
  return expandPath(kind === 'policy' ? s3.policy_path : s3.discovery_path, {
    system_id: system.id,
    system_name: system.name,
    system_type: system.type,
  })
}
