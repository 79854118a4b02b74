/** Types shared by the datasource categories, the validator, the scheduler and the routes. */
import type { z } from 'zod'
import type { ServiceRepositories } from '../../store/service/index.js'
import type { GitCredentials } from '../git/index.js'
import type { GitOriginFields } from '../git-origin/origin.js'
import type { SecretLogin } from '../secrets/login.js'
import type { ClusterSettings } from './cluster-access.js'
import type { ContentFormat } from './decode.js'
import type { RequestGate } from './request-gate.js'

/** What a category's fetch may use during one run. */
export interface FetchContext {
  /** Aborted when the run's timeout passes (or the service stops). */
  signal: AbortSignal
  /** Bytes one run may read from the source; more is an error naming the limit. */
  maxBytes: number
  /** Nodes a YAML document may hold. */
  maxYamlNodes: number
  /**
   * The value of the secret `id`, named in the configuration by `field`.
   * @throws RunError naming the field when the secret is gone or cannot be opened.
   */
  secret(id: string, field: string): Promise<string>
  /**
   * The login the secret `id` holds (../secrets/login.ts: its name the user part, its value the
   * password or secret key), named in the configuration by `field`.
   * @throws RunError naming the field when the secret is gone or cannot be opened.
   */
  login(id: string, field: string): Promise<SecretLogin>
  /**
   * Credentials for a git remote by the rules systems follow (../git-origin/credentials.ts): an
   * HTTP login from `credentials`, an ssh key from `ssh_credentials`, ssh host keys from
   * `service.git.known_hosts` or trusted on first use; undefined when none is named.
   * @throws RunError naming the field when a secret is missing or an ssh remote names no key.
   */
  gitCredentials(fields: GitOriginFields): Promise<GitCredentials | undefined>
  /** Every request to the source goes through it (rate_limit, parallel). */
  gate: RequestGate
  /** The service's data folder (git mirrors live under it). */
  dataDir: string
  /** How cluster/resources reaches the Kubernetes API (`service.datasources.cluster`). */
  cluster?: ClusterSettings
  /** The id of the datasource being run (`policy-library` reads its library from it). */
  datasourceId: string
  /** The service's store, for categories whose source is the service itself (`policy-library`). */
  store: ServiceRepositories
  /**
   * The caller takes a large single document undecoded (Fetched.undecoded) and decodes it, with
   * the filter, on one worker (run.ts); unset, categories decode everything themselves.
   */
  deferLargeDecode?: boolean
}

/** What one fetch produced: the decoded document and how many bytes were read for it. */
export interface Fetched {
  content: unknown
  size: number
  /**
   * Instead of `content` (with FetchContext.deferLargeDecode): one document of more than
   * OFF_THREAD_BYTES as fetched, with its format and where it came from (for errors).
   */
  undecoded?: { bytes: Uint8Array; format: ContentFormat; where: string }
}

/**
 * One datasource category (`http`, `rest`, …): its schema and, when this build fetches it, how.
 * `push` categories take their data by POST instead of being polled.
 */
export interface DatasourceCategory {
  category: string
  schema: z.ZodType<Record<string, unknown>>
  mode: 'poll' | 'push'
  /** Undefined: validated, but refused at PUT as not implemented in this build. */
  fetch?: (config: Record<string, unknown>, ctx: FetchContext) => Promise<Fetched>
  /** Milliseconds one run may take, when the category configures it (Git.Common `timeout`). */
  timeoutMs?: (config: Record<string, unknown>) => number | undefined
  /** Checks the datasource's id at PUT beyond the common rules (400 naming the id). */
  checkTarget?: (id: string, store: ServiceRepositories) => Promise<void>
  /**
   * Stores a run's content inside the run's transaction, resolving to true when it changed;
   * undefined: the data document at the id (store-data.ts).
   */
  land?: LandContent
  /** Removes what `land` stored, at DELETE of the datasource; true when something was removed. */
  remove?: (tx: ServiceRepositories, id: string) => Promise<boolean>
}

/** Where a category stores a run's content (the datasource's id and system, its content). */
export type LandContent = (
  tx: ServiceRepositories,
  id: string,
  systemId: string | null,
  content: unknown,
) => Promise<boolean>

/**
 * Declares a category with its configuration typed by its schema.
 * @example export const httpCategory = defineCategory({ category: 'http', schema, mode: 'poll', fetch })
 */
export function defineCategory<S extends z.ZodType<Record<string, unknown>>>(definition: {
  category: string
  schema: S
  mode: 'poll' | 'push'
  fetch?: (config: z.output<S>, ctx: FetchContext) => Promise<Fetched>
  timeoutMs?: (config: z.output<S>) => number | undefined
  checkTarget?: DatasourceCategory['checkTarget']
  land?: LandContent
  remove?: DatasourceCategory['remove']
}): DatasourceCategory {
  return definition as unknown as DatasourceCategory
}

/** A run that failed for a reason the status reports as is (no stack, no secret). */
export class RunError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RunError'
  }
}
