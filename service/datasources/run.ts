/**
 * One run of a polled datasource up to the point of storing: fetch (through the category, under
 * the run's timeout, byte limit and request gate) → decode (inside the category) → optional Rego
 * filter. Everything that can go wrong becomes a RunError whose message the status shows.
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import { MissingSecretError, originCredentials } from '../git-origin/credentials.js'
import type { GitOriginFields } from '../git-origin/origin.js'
import { parseGoDuration } from '../go-duration.js'
import { parseJsonDocument } from '../json-document.js'
import { readLogin } from '../secrets/login.js'
import type { SecretVault } from '../secrets/vault.js'
import type { ClusterSettings } from './cluster-access.js'
import { itemCount } from './decode.js'
import { type DocumentText, decodeToText } from './decode-off-thread.js'
import type { WorkerFilter } from './decode-protocol.js'
import { filterBudget } from './filter.js'
import { applyFilter } from './filter-off-thread.js'
import { RequestGate } from './request-gate.js'
import { type DatasourceCategory, type Fetched, RunError } from './types.js'

/** Limits every run shares (service config `datasources:`). */
export interface RunLimits {
  /** Bytes one run may read. */
  maxBytes: number
  /** Nodes a YAML document may hold. */
  maxYamlNodes: number
  /** Milliseconds a run may take when its category configures no timeout. */
  defaultTimeoutMs: number
  /** The service's data folder (git mirrors live under it). */
  dataDir: string
  /** `service.git.known_hosts`: ssh hosts of git datasources named there are checked against these lines only. */
  knownHosts: readonly string[]
  /** `service.datasources.cluster`: how cluster/resources reaches the Kubernetes API. */
  cluster?: ClusterSettings
}

/**
 * What a run fetched and filtered, ready to store: a filtered run's result as its JSON text
 * (`text`, what the store writes; `content` only for categories that land it themselves), an
 * unfiltered run's as the decoded `content`.
 */
export interface RunOutput {
  content?: unknown
  /** The JSON text, whole or as parts in order (a worker's, decode-off-thread.ts's decodeToText). */
  text?: string | readonly string[]
  /** The ETag of `text` when the worker that wrote it computed it. */
  etag?: string
  size: number
  items: number
}

/** The spec's default ParallelismLimiter `parallel`, used by categories that fan out. */
const DEFAULT_PARALLEL = 10

/** Milliseconds the run of `config` may take. */
export function runTimeoutMs(
  category: DatasourceCategory,
  config: Record<string, unknown>,
  limits: RunLimits,
): number {
  return category.timeoutMs?.(config) ?? limits.defaultTimeoutMs
}

/** Milliseconds between runs of `config` (its `polling_interval`, 30s by default). */
export function pollingIntervalMs(config: Record<string, unknown>): number {
  const text = typeof config.polling_interval === 'string' ? config.polling_interval : '30s'
  return parseGoDuration(text) ?? 30_000
}

/**
 * Fetches and filters `config`'s data.
 * @throws RunError with the reason (timeout, HTTP status, TLS, decode, filter, size, secret).
 */
export async function fetchAndFilter(options: {
  category: DatasourceCategory
  config: Record<string, unknown>
  /** The datasource's id. */
  id: string
  store: ServiceRepositories
  secrets: SecretVault
  limits: RunLimits
  /** Aborted when the service stops. */
  stopSignal: AbortSignal
}): Promise<RunOutput> {
  const { category, config, store, secrets, limits } = options
  if (!category.fetch)
    throw new RunError(`category ${category.category} takes its data by POST; it is not polled`)
  const timeoutMs = runTimeoutMs(category, config, limits)
  const signal = AbortSignal.any([options.stopSignal, AbortSignal.timeout(timeoutMs)])
  const gate = new RequestGate({
    rateLimit: typeof config.rate_limit === 'number' ? config.rate_limit : Number.POSITIVE_INFINITY,
    parallel: typeof config.parallel === 'number' ? config.parallel : DEFAULT_PARALLEL,
  })
  const opened = async <T>(id: string, field: string, read: () => Promise<T | undefined>): Promise<T> => {
    let value: T | undefined
    try {
      value = await read()
    } catch {
      throw new RunError(`secret error: ${field}: secret "${id}" cannot be opened with the service's keys`)
    }
    if (value === undefined) throw new RunError(`secret error: ${field}: secret "${id}" does not exist`)
    return value
  }
  const secret = (id: string, field: string) => opened(id, field, () => secrets.read(store, id))
  const login = (id: string, field: string) => opened(id, field, () => readLogin(store, secrets, id))
  const gitCredentials = (fields: GitOriginFields) =>
    originCredentials(store, secrets, fields, '', limits.knownHosts).catch((err: unknown) => {
      if (err instanceof MissingSecretError) throw new RunError(`secret error: ${err.message}`)
      throw err
    })
  let fetched: Fetched
  try {
    fetched = await category.fetch(config, {
      signal,
      maxBytes: limits.maxBytes,
      maxYamlNodes: limits.maxYamlNodes,
      secret,
      login,
      gitCredentials,
      gate,
      dataDir: limits.dataDir,
      cluster: limits.cluster,
      datasourceId: options.id,
      store,
      deferLargeDecode: true,
    })
  } catch (err) {
    if (options.stopSignal.aborted) throw new RunError('interrupted: the service stopped during the run')
    if (signal.aborted) throw new RunError(`timeout: the run took longer than ${timeoutMs / 1000}s`)
    if (err instanceof RunError) throw err
    throw new RunError(`fetch error: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (fetched.undecoded) {
    // One large document: decoded and filtered on one worker, which answers the stored text.
    const { bytes, format, where } = fetched.undecoded
    const filter = filterOf(config, timeoutMs)
    let made: DocumentText
    try {
      made = await decodeToText(bytes, format, where, limits.maxYamlNodes, filter, { signal })
    } catch (err) {
      if (options.stopSignal.aborted) throw new RunError('interrupted: the service stopped during the run')
      if (signal.aborted) throw new RunError(`timeout: the run took longer than ${timeoutMs / 1000}s`)
      throw err
    }
    const content = category.land ? parseJsonDocument(made.parts.join('')) : undefined
    return { content, text: made.parts, etag: made.etag, size: fetched.size, items: made.items }
  }
  const filtered = await applyFilter(config, fetched.content, fetched.size, {
    signal: options.stopSignal,
    timeoutMs,
  })
  if (!filtered) return { content: fetched.content, size: fetched.size, items: itemCount(fetched.content) }
  const { text, items } = filtered
  // Categories that land content themselves (policy-library: a few modules) take it parsed.
  const content = category.land ? parseJsonDocument(text) : undefined
  return { content, text, size: fetched.size, items }
}

/** The configuration's filter as a worker runs it (no work limit: it holds only its own thread). */
function filterOf(config: Record<string, unknown>, timeoutMs: number): WorkerFilter | undefined {
  const { policy_filter: policyFilter, policy_query: policyQuery } = config
  if (typeof policyFilter !== 'string' || typeof policyQuery !== 'string') return undefined
  return { policyFilter, policyQuery, budget: filterBudget(timeoutMs, false) }
}
