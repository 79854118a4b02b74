/**
 * The `service:` section of regent's config file: where the database is, how bundles are
 * signed, and the limits applied to requests. Every key has a default, so an empty section
 * (or none) runs the service on SQLite in the data folder.
 */
import { z } from 'zod'
import { DEFAULT_SIGNING_ALGORITHM, SIGNING_ALGORITHMS } from '../core/bundle/index.js'
import { field } from '../core/config.js'
import { DEFAULT_MAX_YAML_NODES } from '../core/yaml.js'
import { databaseUrlProblem } from '../store/database.js'
import { evaluationConfigSchema } from './evaluation/config.js'
import { parseGoDuration } from './go-duration.js'
import { identityProvidersSchema } from './identity/config.js'

/** A Go duration (`720h`, `90m`); `0` turns the bound off. */
const durationField = () =>
  z.string().refine((text) => (parseGoDuration(text) ?? -1) >= 0, {
    error: 'expected a Go duration such as 720h or 30m (0: off)',
  })

const activitySchema = z
  .strictObject({
    /** Bytes of a request body recorded at most; larger bodies are recorded by size only. */
    max_body_bytes: field.nonNegativeInt().default(64 * 1024),
    /**
     * Milliseconds a v2 search with `query` text may spend before it answers the page it has
     * (marked `partial`, with a cursor that continues where it stopped).
     */
    search_budget_ms: field.positiveInt().default(1000),
    retention: z
      .strictObject({
        /** Records older than this are deleted; `0` keeps them whatever their age. */
        max_age: durationField().default('2160h'),
        /** At most this many records are kept (the newest); `0` keeps any number. */
        max_rows: field.nonNegativeInt().default(1_000_000),
        /** How often retention is applied. */
        interval: durationField()
          .refine((text) => (parseGoDuration(text) ?? 0) >= 1000, { error: 'expected at least 1s' })
          .default('10m'),
      })
      .prefault({}),
  })
  .prefault({})

const signingSchema = z
  .strictObject({
    /** File holding the PEM private key (or the HMAC secret for HS*). */
    key_file: z.string().min(1).optional(),
    /** The key itself, e.g. `${REGENT_SIGNING_KEY}`; use either this or key_file. */
    key: z.string().min(1).optional(),
    algorithm: z.enum(SIGNING_ALGORITHMS).default(DEFAULT_SIGNING_ALGORITHM),
    /** The `keyid` agents are configured with to verify (`bundles[].signing.keyid`). */
    key_id: z.string().min(1).default('regent'),
    scope: z.string().min(1).optional(),
  })
  .refine((s) => (s.key_file === undefined) !== (s.key === undefined), {
    error: 'set exactly one of key_file and key',
  })

/** Systems built from git (docs/git.md). */
const gitSchema = z
  .strictObject({
    /** How often every git-backed system's origin is fetched; `0` polls never (webhooks and sync only). */
    poll_interval: durationField()
      .refine((text) => (parseGoDuration(text) ?? 0) === 0 || (parseGoDuration(text) ?? 0) >= 1000, {
        error: 'expected at least 1s (or 0: no polling)',
      })
      .default('30s'),
    /** Shared secret of push webhooks (GitHub: the HMAC key; GitLab: the token). Unset: webhooks answer 404. */
    webhook_secret: z.string().min(16, { error: 'expected at least 16 characters' }).optional(),
    /** Time one git operation (clone, fetch, read) may take. */
    timeout: durationField()
      .refine((text) => (parseGoDuration(text) ?? 0) >= 1000, { error: 'expected at least 1s' })
      .default('60s'),
    /** Size of one repository's mirror on disk, in bytes; 413 beyond. */
    max_repository_bytes: field.positiveInt().default(512 * 1024 * 1024),
    /** Bytes of one file a commit may write or a read may answer; 413 naming the file beyond. */
    max_file_bytes: field.positiveInt().default(1024 * 1024),
    /**
     * ssh host keys, as known_hosts lines (`host keytype base64`, `[host]:port …` off port 22).
     * A host named here is checked against these keys only; other hosts are trusted on first
     * use and their key recorded in the store.
     */
    known_hosts: z.array(z.string().min(1)).default([]),
  })
  .prefault({})

/** Schema of the `service:` config section. */
export const serviceSectionSchema = z
  .strictObject({
    /**
     * The base URL agents and relays reach this service at (used in generated configs). When
     * unset, the request's Host is used only if it names the address the request arrived on or
     * a host in `allowed_hosts`; other requests for a config get 400.
     */
    public_url: z.url({ error: 'expected an http(s) URL' }).optional(),
    /** Hosts (`name` for any port, or `name:port`) generated configs may name when public_url is unset. */
    allowed_hosts: z.array(z.string().min(1)).default([]),
    /** Take the host and scheme of generated configs from X-Forwarded-Host/-Proto (set by a proxy); the host must be in allowed_hosts. */
    trust_forwarded_host: z.boolean().default(false),
    database: z
      .strictObject({
        /** `postgres://…` for PostgreSQL; a file path or `sqlite:PATH` for SQLite. Default: DATA_DIR/service.db. */
        url: z
          .string()
          .min(1)
          .refine((url) => databaseUrlProblem(url) === undefined, {
            error: (issue) => databaseUrlProblem(String(issue.input)) ?? 'unsupported database URL',
          })
          .optional(),
        pool_size: field.positiveInt().default(10),
      })
      .prefault({}),
    /** The web console at `/console/` (docs/console.md). */
    console: z
      .strictObject({
        enabled: z.boolean().default(true),
        /** The built console's folder; default: `dist/console` of this installation. */
        dir: z.string().min(1).optional(),
      })
      .prefault({}),
    /** The activity log (every management-API request): docs/activity.md. */
    activity: activitySchema,
    bundles: z
      .strictObject({
        signing: signingSchema.optional(),
      })
      .prefault({}),
    /** Uploads to systems' bundle registries (docs/bundle-registry.md). */
    bundle_registry: z
      .strictObject({
        /** Retries of a failed upload before its state is `failed` (the next build or restart tries again). */
        upload_retries: field.nonNegativeInt().default(8),
        /** Milliseconds before the first retry; doubled (with jitter) for each next one. */
        retry_min_ms: field.positiveInt().default(1000),
        /** Upper bound of the delay between retries, in milliseconds. */
        retry_max_ms: field.positiveInt().default(60_000),
        /** Milliseconds one upload request may take. */
        upload_timeout_ms: field.positiveInt().default(30_000),
      })
      .prefault({}),
    blueprints: z
      .strictObject({
        /** A folder of `<name>.yaml` blueprints offered beside the built-in ones (read on each request). */
        dir: z.string().min(1).optional(),
      })
      .prefault({}),
    secrets: z
      .strictObject({
        /**
         * File of the keys secret values are sealed with (base64 256-bit keys, one a line, the
         * first active); else REGENT_SECRETS_KEY, else DATA_DIR/secrets.key (generated).
         */
        key_file: z.string().min(1).optional(),
      })
      .prefault({}),
    /** Systems built from git: polling, webhooks, limits, ssh host keys. */
    git: gitSchema,
    /** Data evaluation (`/v1/data` with a DataRequest): docs/data-evaluation.md. */
    evaluation: evaluationConfigSchema,
    /** The datasource scheduler: docs/datasources.md. */
    datasources: z
      .strictObject({
        /** How often the scheduler looks for datasources due to run. */
        scheduler_interval: durationField()
          .refine((text) => (parseGoDuration(text) ?? 0) >= 100, { error: 'expected at least 100ms' })
          .default('1s'),
        /** Datasource runs in progress at once on one service replica. */
        max_concurrent_runs: field.positiveInt().default(4),
        /** Bytes one run may read from its source; a larger answer fails the run (the last good data stays). */
        max_bytes_per_run: field.positiveInt().default(64 * 1024 * 1024),
        /** How long a run may take, for categories without a `timeout` of their own. */
        timeout: durationField()
          .refine((text) => (parseGoDuration(text) ?? 0) >= 1, { error: 'expected a positive duration' })
          .default('30s'),
        /** How `cluster/resources` datasources reach the Kubernetes API (docs/datasources.md). */
        cluster: z
          .strictObject({
            /** The API server's https URL; empty: in the cluster, from KUBERNETES_SERVICE_HOST and _PORT. */
            api_server: z
              .string()
              .refine((text) => text === '' || /^https:\/\/[^/]+\/?$/.test(text), {
                error: 'expected https://host[:port] or empty (in-cluster)',
              })
              .default(''),
            /** The service account token, read again on every run (projected tokens rotate). */
            token_file: z.string().min(1).default('/var/run/secrets/kubernetes.io/serviceaccount/token'),
            /** The CA certificates that sign the API server's certificate. */
            ca_file: z.string().min(1).default('/var/run/secrets/kubernetes.io/serviceaccount/ca.crt'),
          })
          .prefault({}),
      })
      .prefault({}),
    /** OIDC issuers whose bearer JWTs are accepted besides API tokens (service/identity/config.ts). */
    identity_providers: identityProvidersSchema,
    limits: z
      .strictObject({
        /** Bytes accepted on the wire per request body. */
        max_body_bytes: field.positiveInt().default(8 * 1024 * 1024),
        /** Bytes a gzip body may inflate to. */
        max_decompressed_bytes: field.positiveInt().default(64 * 1024 * 1024),
        /** Nodes (keys, values, items) a YAML body may hold; 413 beyond. */
        max_yaml_nodes: field.positiveInt().default(DEFAULT_MAX_YAML_NODES),
        /** Events accepted in one decision-log batch. */
        max_decisions_per_batch: field.positiveInt().default(100_000),
        /** Upper bound of `limit` on decision searches. */
        max_decisions_per_page: field.positiveInt().default(1000),
        /**
         * Milliseconds a decision search may spend before it answers the page it has (marked
         * `partial`, with a cursor that continues where it stopped).
         */
        decision_search_budget_ms: field.positiveInt().default(1000),
        /** Upper bound of `Prefer: wait=N` on bundle long polls. */
        max_long_poll_seconds: field.positiveInt().default(300),
      })
      .prefault({}),
  })
  .prefault({})

/** The validated `service:` section. */
export type ServiceSection = z.output<typeof serviceSectionSchema>
