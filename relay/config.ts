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
import { upstreamConfigShape } from '../plugins/config.js'
import { compileConfigSchema } from './compile/config.js'

export {
  type BundleConfig,
  bundleSchema,
  DEFAULT_SIZE_LIMIT_BYTES,
  type DiscoveryConfig,
  discoverySchema,
  type KeyConfig,
  keySchema,
  type PollingConfig,
  type ServiceConfig,
  type SigningConfig,
  serviceSchema,
  servicesSchema,
  signingSchema,
  upstreamConfigShape,
} from '../plugins/config.js'

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
