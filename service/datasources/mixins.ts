/**
 * The pieces every datasource configuration is made of (spec 000, "Datasources"): Common, the
 * mix-ins (Poller, RateLimiter, ParallelismLimiter, RegoFiltering, TLSSettings, Git.Common, the
 * object-store and cloud commons), as zod shapes a category spreads into its strict object.
 * Defaults are the spec's; the messages read well after "field: ".
 */
import { z } from 'zod'
import { parseGoDuration } from '../go-duration.js'

/** Shortest polling interval accepted: a source is not polled more than once a second. */
export const MIN_POLLING_INTERVAL_MS = 1000

/** A Go duration of at least `minMs`. */
export const duration = (minMs: number, what: string) =>
  z
    .string({ error: `expected a ${what} such as 30s or 5m` })
    .refine((text) => (parseGoDuration(text) ?? -1) >= minMs, {
      error: `expected a ${what} such as 30s or 5m${minMs > 0 ? ` (at least ${minMs / 1000}s)` : ''}`,
    })

/** A secret id: the id of a stored secret (checked against the store after validation). */
export const secretId = () =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'required: a secret id' : 'expected a secret id (see /v1/secrets)',
    })
    .min(1, { error: 'expected a secret id' })

/** A required, non-empty string; a missing one is reported as `required: <what>`. */
export const requiredText = (what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `required: ${what}` : 'expected a string') })
    .min(1, { error: `required: ${what}` })

const text = () => z.string({ error: 'expected a string' })
const flag = (fallback: boolean) => z.boolean({ error: 'expected true or false' }).default(fallback)

/** Common: every category but `rest` (which has only category, description, enabled). */
export const common = {
  description: text().optional(),
  enabled: flag(true),
  on_premises: flag(false),
}

/** Poller: how often the source is read. */
export const poller = {
  polling_interval: duration(MIN_POLLING_INTERVAL_MS, 'polling interval').default('30s'),
}

/** RateLimiter: requests per second against the source. */
export const rateLimiter = {
  rate_limit: z
    .number({ error: 'expected a number of requests per second' })
    .positive({ error: 'expected a positive number of requests per second' })
    .default(3),
}

/** ParallelismLimiter: requests in flight at once. */
export const parallelismLimiter = {
  parallel: z
    .number({ error: 'expected a positive integer' })
    .int({ error: 'expected a positive integer' })
    .positive({ error: 'expected a positive integer' })
    .default(10),
}

/** RegoFiltering: both or neither (checked by `bothOrNeitherFilter`). */
export const regoFiltering = {
  policy_filter: text().min(1, { error: 'expected a Rego module' }).optional(),
  policy_query: text().min(1, { error: 'expected a Rego query' }).optional(),
}

/** TLSSettings: how the source's certificate is checked and how we prove who we are. */
export const tlsSettings = {
  ca_certificate: text().optional(),
  mtls_certificate: text().optional(),
  mtls_private_key_secret_id: secretId().optional(),
  skip_tls_verification: flag(false),
}

/** Git.Common. */
export const gitCommon = {
  url: requiredText('the repository URL'),
  commit: text().optional(),
  credentials: secretId().optional(),
  reference: text().default('refs/heads/master'),
  ssh_credentials: z
    .strictObject(
      { private_key: secretId(), passphrase: secretId().optional() },
      { error: 'expected an object' },
    )
    .optional(),
  timeout: duration(1, 'timeout').default('60s'),
}

/** Object store common. */
export const objectStoreCommon = {
  bucket: requiredText('the bucket name'),
  credentials: secretId(),
  endpoint: text().optional(),
  path: text().optional(),
  region: text().optional(),
}

/** Cloud common. */
export const cloudCommon = {
  region: requiredText('the region'),
  credentials: secretId(),
}

/** Fields whose value names a secret, wherever they appear in a configuration. */
export const SECRET_ID_FIELDS = new Set([
  'credentials',
  'mtls_private_key_secret_id',
  'secret_id',
  'private_key',
  'passphrase',
  'idp_client_secret',
])

/** RegoFiltering's rule: `policy_filter` and `policy_query` come together. */
export function bothOrNeitherFilter(
  config: { policy_filter?: string; policy_query?: string },
  ctx: z.RefinementCtx,
): void {
  if (config.policy_filter !== undefined && config.policy_query === undefined)
    ctx.addIssue({ code: 'custom', path: ['policy_query'], message: 'required when policy_filter is set' })
  if (config.policy_query !== undefined && config.policy_filter === undefined)
    ctx.addIssue({ code: 'custom', path: ['policy_filter'], message: 'required when policy_query is set' })
}

/** TLSSettings' rule: a client certificate needs its key and the other way round. */
export function mtlsPair(
  config: { mtls_certificate?: string; mtls_private_key_secret_id?: string },
  ctx: z.RefinementCtx,
): void {
  if (config.mtls_certificate !== undefined && config.mtls_private_key_secret_id === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['mtls_private_key_secret_id'],
      message: 'required when mtls_certificate is set',
    })
  if (config.mtls_private_key_secret_id !== undefined && config.mtls_certificate === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['mtls_certificate'],
      message: 'required when mtls_private_key_secret_id is set',
    })
}
