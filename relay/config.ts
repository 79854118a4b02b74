/**
 * The relay's configuration: OPA's own format for everything upstream (so the config a control
 * plane generates for an agent works unchanged, as the Styra Local Plane takes DAS's), plus a
 * `relay:` section for the relay itself.
 *
 * OPA ignores keys it does not know, and configs generated for agents carry many the relay has
 * no use for (`persist`, `trigger`, `default_decision`, …), so the OPA sections are loose objects.
 * regent's own `relay:` section is strict, so a typo there is an error naming the key.
 */
import { z } from 'zod'
import { DEFAULT_MAX_INFLATED_BYTES } from '../core/bundle/index.js'
import { baseConfigSchema, field } from '../core/config.js'
import { defaultDataDir, defaultListenAddr } from '../core/runtime-defaults.js'
import { compileConfigSchema } from './compile/config.js'

const stringMap = z.record(z.string(), z.string({ error: 'expected a string' }))
const seconds = () => field.nonNegativeInt()

/** `services[].credentials`: at most one kind; unsupported kinds are named at start. */
const credentialsSchema = z.looseObject({
  bearer: z
    .looseObject({
      token: z.string().optional(),
      token_path: z.string().optional(),
      scheme: z.string().default('Bearer'),
    })
    .optional(),
  client_tls: z
    .looseObject({
      cert: z.string({ error: 'expected a file path' }),
      private_key: z.string({ error: 'expected a file path' }),
      private_key_passphrase: z.string().optional(),
    })
    .optional(),
  s3_signing: z
    .looseObject({
      environment_credentials: z.looseObject({}).optional(),
      profile_credentials: z
        .looseObject({
          path: z.string().optional(),
          profile: z.string().optional(),
          aws_region: z.string().optional(),
        })
        .optional(),
      service: z.string().optional(),
    })
    .optional(),
})

/** One entry of `services` (OPA's rest client config). */
export const serviceSchema = z.looseObject({
  name: z.string().optional(),
  url: z.url({ error: 'expected an absolute URL' }),
  headers: stringMap.optional(),
  response_header_timeout_seconds: seconds().default(10),
  tls: z
    .looseObject({ ca_cert: z.string().optional(), system_ca_required: z.boolean().optional() })
    .optional(),
  allow_insecure_tls: z.boolean().default(false),
  credentials: credentialsSchema.optional(),
})
export type ServiceConfig = z.output<typeof serviceSchema>

/** `services`: a list of named services or a map keyed by name; normalised to a map. */
export const servicesSchema = z
  .union([z.array(serviceSchema), z.record(z.string(), serviceSchema)], {
    error: 'expected a list of services with names, or a map of name to service',
  })
  .transform((value, ctx) => {
    if (!Array.isArray(value)) return value
    const byName: Record<string, ServiceConfig> = {}
    value.forEach((service, i) => {
      if (!service.name) {
        ctx.issues.push({
          code: 'custom',
          message: 'a service in a list needs a name',
          path: [i, 'name'],
          input: undefined,
        })
        return
      }
      byName[service.name] = service
    })
    return byName
  })

const pollingSchema = z
  .looseObject({
    min_delay_seconds: field.positiveInt().optional(),
    max_delay_seconds: field.positiveInt().optional(),
    long_polling_timeout_seconds: field.positiveInt().optional(),
  })
  .refine((p) => (p.min_delay_seconds === undefined) === (p.max_delay_seconds === undefined), {
    error: 'min_delay_seconds and max_delay_seconds must be set together',
  })
  .refine((p) => (p.min_delay_seconds ?? 0) <= (p.max_delay_seconds ?? 0), {
    error: 'max_delay_seconds must not be less than min_delay_seconds',
  })
export type PollingConfig = z.output<typeof pollingSchema>

/** `bundles.<name>.signing` (and `discovery.signing`). */
export const signingSchema = z.looseObject({
  keyid: z.string().optional(),
  scope: z.string().optional(),
  exclude_files: z.array(z.string()).default([]),
})
export type SigningConfig = z.output<typeof signingSchema>

/** OPA's default per-file bundle size limit (1 GiB). */
export const DEFAULT_SIZE_LIMIT_BYTES = 1024 * 1024 * 1024

/** `bundles.<name>`. */
export const bundleSchema = z.looseObject({
  service: z.string().optional(),
  resource: z.string().optional(),
  polling: pollingSchema.optional(),
  signing: signingSchema.optional(),
  size_limit_bytes: field.positiveInt().default(DEFAULT_SIZE_LIMIT_BYTES),
})
export type BundleConfig = z.output<typeof bundleSchema>

/** `discovery`: the discovery bundle, relayed like a bundle. */
export const discoverySchema = z.looseObject({
  name: z.string().optional(),
  resource: z.string().optional(),
  prefix: z.string().optional(),
  service: z.string().optional(),
  decision: z.string().optional(),
  polling: pollingSchema.optional(),
  signing: signingSchema.optional(),
  size_limit_bytes: field.positiveInt().default(DEFAULT_SIZE_LIMIT_BYTES),
})
export type DiscoveryConfig = z.output<typeof discoverySchema>

/** `keys.<id>`: verification keys, as an OPA agent reads them. */
export const keySchema = z
  .looseObject({
    key: z.string({ error: 'expected the PEM public key or HMAC secret' }),
    algorithm: z.string().default('RS256'),
    scope: z.string().optional(),
  })
  // OPA's keys hold the key itself; a file path here would surface as an OpenSSL decoder error.
  .refine((k) => k.algorithm.toUpperCase().startsWith('HS') || k.key.includes('-----BEGIN'), {
    path: ['key'],
    error: 'expected the PEM text of the public key itself (this key is not read from a file)',
  })
export type KeyConfig = z.output<typeof keySchema>

/** The OPA-format keys the relay reads for its upstream side. */
export const upstreamConfigShape = {
  services: servicesSchema.default({}),
  bundles: z.record(z.string(), bundleSchema).default({}),
  discovery: discoverySchema.optional(),
  keys: z.record(z.string(), keySchema).default({}),
  labels: stringMap.default({}),
  // Read by the decision-log part (relay/decision-logs/) with its own schema.
  decision_logs: z.looseObject({}).optional(),
  status: z
    .looseObject({
      service: z.string().optional(),
      partition_name: z.string().optional(),
      console: z.boolean().optional(),
    })
    .optional(),
}

/** Agent-facing authentication: off by default (agents share the pod's loopback). */
export const agentAuthSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('none') }),
    z.strictObject({
      type: z.literal('bearer'),
      tokens: z.array(z.string().min(1)).default([]),
      token_path: z.string().optional(),
    }),
    z.strictObject({
      type: z.literal('mtls'),
      cert: z.string({ error: 'expected the PEM certificate file the relay serves' }),
      private_key: z.string({ error: 'expected the PEM private key file' }),
      client_ca: z.string({ error: 'expected the PEM CA file agents certificates are checked against' }),
    }),
  ],
  { error: 'expected type none, bearer or mtls' },
)
export type AgentAuthConfig = z.output<typeof agentAuthSchema>

/** The `relay:` section: the relay's own settings. */
export const relaySectionSchema = z.strictObject({
  // Functions, so REGENT_LISTEN_HOST / REGENT_DATA_DIR (set in the image) are read at load time.
  addr: field.address().default(() => defaultListenAddr(8282)),
  storage: z
    .strictObject({
      /** Where last-good bundles (and the decision-log buffer) live; `--data-dir` overrides. */
      dir: z.string().default(() => defaultDataDir('relay')),
      /**
       * Whether `dir` is a persistent volume (a PersistentVolumeClaim) rather than an ephemeral
       * one (emptyDir, the default). Either way the relay writes last-good bundles and the
       * decision-log buffer there and loads them at start, and an unwritable folder stops the
       * start; a persistent volume admits no fallback_dir.
       */
      persistent: z.boolean().default(false),
      /**
       * Where to keep state when `dir` cannot be written, instead of refusing to start: a fixed
       * folder the next start reads again (and forwards decision logs from). Unset by default.
       */
      fallback_dir: z.string().min(1).optional(),
    })
    .superRefine((storage, ctx) => {
      if (storage.persistent && storage.fallback_dir !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['fallback_dir'],
          message: 'not allowed with persistent: true (a persistent volume must be writable)',
        })
      }
    })
    .prefault({}),
  agent_auth: agentAuthSchema.prefault({ type: 'none' }),
  bundles: z
    .strictObject({
      /**
       * Bytes a downloaded bundle may inflate to, all files and tar headers together (a gzip
       * bomb is refused at the header that declares too much, or as soon as inflating passes it).
       */
      max_inflated_bytes: field.positiveInt().default(DEFAULT_MAX_INFLATED_BYTES),
    })
    .prefault({}),
  long_poll: z
    .strictObject({
      /** Concurrent held requests; past it agents get 503 with Retry-After. */
      max_waiters: field.positiveInt().default(10_000),
      /** Upper bound on an agent's `wait=N`, below common proxy idle timeouts. */
      max_wait_seconds: field.positiveInt().default(300),
    })
    .prefault({}),
  status: z
    .strictObject({
      /** Least time between two upstream status posts (agents' latest values are coalesced). */
      forward_interval_seconds: field.positiveInt().default(5),
      /** Agents whose latest status is older than this are forgotten. */
      agent_ttl_seconds: field.positiveInt().default(3600),
      /** Bytes of one status report accepted on the wire (413 past it). */
      max_body_bytes: field.positiveInt().default(4 * 1024 * 1024),
      /** Bytes a gzip status report may inflate to (413 past it). */
      max_decompressed_bytes: field.positiveInt().default(16 * 1024 * 1024),
    })
    .prefault({}),
  // Validated by relay/decision-logs/ with its own schema.
  decision_logs: z.looseObject({}).optional(),
  /** `/v1/compile`: worker threads, queue, deadline, heap, allow_net (relay/compile/config.ts). */
  compile: compileConfigSchema,
})
export type RelaySection = z.output<typeof relaySectionSchema>

/** The whole relay config file: `log`, the OPA-format upstream keys and `relay`. */
export const relayConfigSchema = z.looseObject({
  ...baseConfigSchema.shape,
  ...upstreamConfigShape,
  relay: relaySectionSchema.prefault({}),
})
export type RelayConfig = z.output<typeof relayConfigSchema>
