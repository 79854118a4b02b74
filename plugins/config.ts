/**
 * OPA's agent configuration, the keys both the relay (for its upstream side) and `regent run -s -c`
 * read: `services`, `bundles`, `discovery`, `keys`, `labels`, `decision_logs`, `status`.
 *
 * OPA ignores keys it does not know, and configs generated for agents carry many a reader has
 * no use for, so these sections are loose objects.
 */
import { z } from 'zod'
import { field } from '../core/config.js'

export const stringMap = z.record(z.string(), z.string({ error: 'expected a string' }))
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

/** The OPA-format keys that name what to pull and from where. */
export interface UpstreamConfig {
  services: Record<string, ServiceConfig>
  bundles: Record<string, BundleConfig>
  discovery?: DiscoveryConfig
  keys: Record<string, KeyConfig>
}
