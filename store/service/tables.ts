/**
 * Row types of the service's tables, as Kysely sees them. JSON columns are text (the same in
 * SQLite and PostgreSQL, and lossless: decision events keep their original number text).
 * Times of objects are ISO-8601 strings; decision times are integer microseconds since the
 * epoch so they sort and compare as numbers.
 */
import type { ColumnType, Generated } from 'kysely'

/** PostgreSQL returns BIGINT columns as strings; SQLite as numbers. */
export type BigIntColumn = ColumnType<number | string, number, number>

/** Who changed an object, when, and through what (`meta.v1.ObjectMeta`). */
export interface AuditColumns {
  created_at: string
  created_by: string
  created_through: string
  last_modified_at: string
  last_modified_by: string
  last_modified_through: string
}

export interface SettingsTable {
  key: string
  value: string
}

export interface TokensTable extends AuditColumns {
  id: string
  description: string
  /** sha256 of the secret, hex; the secret itself is never stored. */
  secret_hash: string
  /** JSON array of regex strings. */
  allow_path_patterns: string
  ttl: string
  expires_at: string
  /** JSON array of role names granted on the workspace, e.g. ["WorkspaceAdministrator"]. */
  roles: string
  /** Set for a system's agent token: the only system it may act for. */
  system_id: string | null
  /** Bumped on regenerate; part of the derivation of agent token secrets. */
  generation: number
}

export interface SystemsTable extends AuditColumns {
  id: string
  name: string
  type: string
  /** JSON of the user-settable configuration (everything but the computed fields). */
  config: string
  /** `Ready`, or an error status such as `BundleBuildFailed`. */
  status: string
  /** JSON array of messages explaining a non-Ready status, or null. */
  status_errors: string | null
  /** Bumped with every change of the system's policies, data or configuration. */
  content_version: number
}

export interface PoliciesTable extends AuditColumns {
  path: string
  /** The system whose bundle the policy belongs to (path `systems/{id}/…`), else null. */
  system_id: string | null
  /** JSON object: module file name to Rego source. */
  modules: string
}

export interface LibrariesTable extends AuditColumns {
  id: string
  description: string
  /** JSON object: module file name to Rego source. */
  modules: string
}

export interface DataDocumentsTable extends AuditColumns {
  path: string
  system_id: string | null
  /** The document as JSON text. */
  value: string
  /** Content digest, quoted, as sent in `ETag`. */
  etag: string
  /**
   * Set when the text is stored in chunks (data_document_chunks, migration 0011) instead of in
   * `value` (then empty): the chunks' blob id and the text's length in UTF-16 code units.
   */
  value_blob: ColumnType<string | null, string | null | undefined, string | null>
  value_length: ColumnType<number | null, number | null | undefined, number | null>
}

/** A large document's text in slices (store/service/data-chunks.ts). */
export interface DataDocumentChunksTable {
  blob: string
  seq: number
  text: string
  created_at: string
}

export interface BundlesTable {
  system_id: string
  /** `policy` (the system's bundle) or `discovery`. */
  kind: string
  revision: string
  /** The system content_version the bundle was built from; older builds never overwrite newer. */
  content_version: number
  bytes: Uint8Array
  size: number
  built_at: string
}

export interface DecisionsTable {
  seq: Generated<number | string>
  decision_id: string
  system_id: string | null
  path: string | null
  /** ALLOWED, DENIED, ERROR or UNKNOWN (see docs/service.md). */
  result_kind: string
  /** Decision time (the agent's timestamp, else the time received), µs since the epoch. */
  ts_us: BigIntColumn
  received_us: BigIntColumn
  /** The event as received, re-serialized without changing any number or unknown field. */
  raw: string
}

export interface AgentStatusTable {
  agent_id: string
  system_id: string | null
  /** The last status report as JSON text. */
  status: string
  updated_at: string
}

export interface SecretsTable extends AuditColumns {
  /** Slash path such as `git/ssh/key`. */
  id: string
  name: string
  description: string
  /** Id of the key the value is sealed with (also inside `ciphertext`). */
  key_id: string
  /** The sealed value (service/secrets/cipher.ts); never the value itself. */
  ciphertext: string
}

/**
 * One grant: a role on a resource for one subject, as part of a role binding. A binding without
 * subjects keeps one row with `subject_kind = ''` (it grants nothing).
 */
export interface GrantsTable extends AuditColumns {
  id: string
  binding_id: string
  /** The binding's v1 name under its resource (v1 `{resourcetype}/{resource}/{rolebinding}`). */
  binding_name: string
  description: string
  role: string
  /** `workspace` (resource_id '') or `system`. */
  resource_kind: string
  resource_id: string
  /** `token`, `user`, `claim`, or '' for the placeholder of an empty binding. */
  subject_kind: string
  /** Token or user id; '' for claims. */
  subject_id: string
  /** For claim subjects: the identity provider ('' for any), the claim's key and value ('*' for any). */
  claim_provider: string
  claim_key: string
  claim_value: string
}

/** Sync state of a system built from git (service/git-source/). */
export interface GitSyncTable {
  system_id: string
  /** The origin (url, reference, commit, path) this state belongs to, as JSON text. */
  origin: string
  /** The commit the system's bundle is built from; null until a fetch succeeded. */
  commit_sha: string | null
  /** The full reference name that resolved to it (null for a pinned commit). */
  ref: string | null
  /** When the last successful fetch ended. */
  synced_at: string | null
  /** The last fetch's failure (a GitError code or `missing_secret`), null after a good fetch. */
  error_code: string | null
  error: string | null
  attempted_at: string | null
}

export interface ActivityTable {
  seq: Generated<number | string>
  request_id: string
  /** Request time, µs since the epoch. */
  ts_us: BigIntColumn
  /** `audit` (changes and refusals) or `activity` (reads). */
  class: string
  method: string
  path: string
  /** The principal's id; '' for an unauthenticated request. */
  requested_by: string
  status_code: number
  /** `allowed`, `denied` (401/403) or `error` (any other 4xx/5xx). */
  outcome: string
  /** The `ActivityData` record as JSON text. */
  record: string
}

/** A version of a system's bundle kept for its bundle registry (migration 0009). */
export interface RegistryBundlesTable {
  system_id: string
  /** `policy` or `discovery`. */
  kind: string
  /** 1, 2, … per system and kind, in build order. */
  version: number
  revision: string
  bytes: Uint8Array
  size: number
  built_at: string
  /** Orders deployments; the highest is the active version. Null: never deployed. */
  deploy_seq: number | null
  deployed_at: string | null
  upload_state: string
  upload_attempts: number
  upload_error: string | null
  /** The object URL the version was last uploaded to. */
  uploaded_to: string | null
  uploaded_at: string | null
  /** The object's ETag as the bucket answered it. */
  etag: string | null
}

/** A datasource (service/datasources/): configuration, status and scheduling state. */
export interface DatasourcesTable extends AuditColumns {
  /** Slash path such as `systems/app/users`; its data is the data document at the same path. */
  id: string
  /** The system whose bundle the data feeds (`systems/{id}/…`), else null. */
  system_id: string | null
  category: string
  /** JSON of the validated configuration, defaults filled in. */
  config: string
  /** 1 when the scheduler runs it (enabled and a polling category), else 0. */
  scheduled: number
  /** When the configuration was last stored (ISO-8601). */
  executed: string
  /** JSON of the status object (service/datasources/status.ts). */
  status: string
  /** Failed runs in a row (backoff). */
  failures: number
  /** When the next run is due (ISO-8601 UTC). */
  next_run_at: string
  /** The scheduler instance running it now, if any, and until when its lease holds. */
  lease_owner: string | null
  lease_until: string | null
}

/** Every table of the service's database. */
export interface ServiceTables {
  settings: SettingsTable
  tokens: TokensTable
  systems: SystemsTable
  policies: PoliciesTable
  data_documents: DataDocumentsTable
  data_document_chunks: DataDocumentChunksTable
  bundles: BundlesTable
  decisions: DecisionsTable
  agent_status: AgentStatusTable
  secrets: SecretsTable
  grants: GrantsTable
  activity: ActivityTable
  registry_bundles: RegistryBundlesTable
  git_sync: GitSyncTable
  datasources: DatasourcesTable
  libraries: LibrariesTable
}
