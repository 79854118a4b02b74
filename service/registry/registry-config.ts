/**
 * A system's `bundle_registry` (`systems.v1.BundleRegistryConfig`, service-notes §5.2): where
 * its bundles are uploaded (`distribution_s3`) and how many versions are kept. Object paths are
 * templates over the system: `{system_id}`, `{system_name}`, `{system_type}`. Fields of the DAS
 * shape this service does not implement (role_arn, opa_credentials, optimization_level, …) are
 * refused by name rather than accepted and ignored.
 */
import { z } from 'zod'

/** The variables a `policy_path` or `discovery_path` template may use. */
export const PATH_VARIABLES = ['system_id', 'system_name', 'system_type'] as const

/** What a path template is expanded with. */
export type PathValues = Record<(typeof PATH_VARIABLES)[number], string>

export const DEFAULT_POLICY_PATH = 'systems/{system_id}/bundle.tar.gz'
export const DEFAULT_DISCOVERY_PATH = 'systems/{system_id}/discovery.tar.gz'

/** Expands `{name}` variables; unknown names are left for `keyProblem` to report. */
export function expandPath(template: string, values: PathValues): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? values[name as keyof PathValues] : whole,
  )
}

/** Why `key` cannot be an object key, or undefined when it can. */
export function keyProblem(key: string): string | undefined {
  if (key === '') return 'expected a non-empty object key'
  if (key.length > 1024) return 'an object key is at most 1024 characters'
  if (key.startsWith('/')) return 'an object key does not start with "/" (it is relative to the bucket)'
  if (key.split('/').some((s) => s === '' || s === '.' || s === '..'))
    return 'an object key has no empty, "." or ".." segments'
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'an object key has no control characters'
  return undefined
}

function pathTemplate() {
  return z.string({ error: 'expected an object key template' }).superRefine((template, ctx) => {
    for (const [, name] of template.matchAll(/\{(\w*)\}/g)) {
      if (!(PATH_VARIABLES as readonly string[]).includes(name!)) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown template variable {${name}} (known: ${PATH_VARIABLES.map((v) => `{${v}}`).join(', ')})`,
        })
        return
      }
    }
    const sample = expandPath(template, { system_id: 'id', system_name: 'name', system_type: 'type' })
    const problem = keyProblem(sample)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
}

/** S3 bucket names: 3 to 63 lowercase letters, digits, dots and hyphens (AWS's rules). */
const bucketSchema = z
  .string({ error: 'expected a bucket name' })
  .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    error: 'expected an S3 bucket name (3 to 63 lowercase letters, digits, dots and hyphens)',
  })

const endpointSchema = z.string({ error: 'expected an http(s) URL' }).refine(
  (text) => {
    try {
      const url = new URL(text)
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === ''
    } catch {
      return false
    }
  },
  { error: 'expected an http(s) URL without query or fragment, e.g. https://s3.eu-west-1.amazonaws.com' },
)

const NOT_SUPPORTED = 'not supported by this service (see docs/bundle-registry.md)'
const unsupported = z
  .unknown()
  .refine(() => false, { error: NOT_SUPPORTED })
  .optional()

/** `distribution_s3`: an S3-compatible bucket, addressed path-style. */
export const distributionS3Schema = z.strictObject({
  region: z
    .string({ error: 'expected a region such as eu-west-1' })
    .regex(/^[a-z0-9-]{1,64}$/, { error: 'expected a region such as eu-west-1' }),
  bucket: bucketSchema,
  endpoint: endpointSchema.optional(),
  policy_path: pathTemplate().default(DEFAULT_POLICY_PATH),
  discovery_path: pathTemplate().default(DEFAULT_DISCOVERY_PATH),
  access_keys: z
    .string({ error: 'expected the id of a secret holding the access key (name) and secret key (value)' })
    .min(1, { error: 'expected the id of a secret holding the access key (name) and secret key (value)' }),
  context_path: unsupported,
  role_arn: unsupported,
  opa_credentials: unsupported,
})

/** `bundle_registry` of a system. */
export const bundleRegistrySchema = z
  .strictObject({
    distribution_s3: distributionS3Schema,
    /** Versions kept per bundle (the active one is always kept). */
    max_bundles: z.number().int().min(1).max(1000).default(100),
    /** Of the kept versions, how many that were once deployed (rollback targets). */
    max_deployed_bundles: z.number().int().min(1).max(1000).default(10),
    /** A built policy bundle is uploaded only when deployed with PUT …/bundle-deploy. */
    manual_deployment: z.boolean().default(false),
    manual_deployment_overrides: unsupported,
    optimization_level: unsupported,
    entrypoints: unsupported,
    disable_bundle_compatibility_check: unsupported,
  })
  .refine((r) => r.max_deployed_bundles <= r.max_bundles, {
    path: ['max_deployed_bundles'],
    error: 'must not exceed max_bundles',
  })

/** A validated registry config, defaults applied. */
export type BundleRegistryConfig = z.output<typeof bundleRegistrySchema>

/**
 * The registry config stored in a system's config JSON, or undefined when it has none. Stored
 * configs were validated at PUT; a row that no longer parses (hand-edited) counts as none.
 */
export function registryConfigOf(systemConfig: string): BundleRegistryConfig | undefined {
  try {
    const raw = (JSON.parse(systemConfig) as { bundle_registry?: unknown }).bundle_registry
    if (raw === undefined || raw === null) return undefined
    const parsed = bundleRegistrySchema.safeParse(raw)
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** The base URL of the bucket's endpoint: the configured one, or AWS's regional endpoint. */
export function endpointOf(s3: BundleRegistryConfig['distribution_s3']): string {
  return (s3.endpoint ?? `https://s3.${s3.region}.amazonaws.com`).replace(/\/+$/, '')
}
