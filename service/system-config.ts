/**
 * What a system request may carry (`systems.v1.SystemsPostRequest`/`PutRequest`) and the
 * source-control rules of the spec: only one of reference/commit; for git over SSH,
 * `credentials` present and empty with `ssh_credentials` naming the key and passphrase
 * secret ids (rules 2 and 3). Read-only fields of a GET are accepted and ignored, so a
 * client can GET a system, change a field and PUT it back.
 */
import { z } from 'zod'
import { bundleRegistrySchema } from './registry/registry-config.js'

const sshCredentialsSchema = z.strictObject({
  private_key: z.string({ error: 'expected the private key secret id' }),
  passphrase: z.string({ error: 'expected the passphrase secret id' }),
})

/** A git origin (GitRepoConfig): also the body of verify-config, less its `id`. */
export const gitRepoSchema = z
  .strictObject({
    url: z.string({ error: 'expected the repository URL' }).min(1, { error: 'expected the repository URL' }),
    reference: z.string().optional(),
    commit: z.string().optional(),
    credentials: z.string().optional(),
    path: z.string().optional(),
    ssh_credentials: sshCredentialsSchema.optional(),
  })
  .superRefine((origin, ctx) => {
    if (origin.reference && origin.commit) {
      ctx.addIssue({
        code: 'custom',
        path: ['commit'],
        message: 'only one of reference or commit may be set',
      })
    }
    const ssh = isSshUrl(origin.url)
    if (!ssh && !/^(https?|git|file):\/\/\S+$/.test(origin.url)) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'expected an https://, http://, ssh://, git:// or user@host:path URL',
      })
    }
    if (ssh) {
      if (origin.credentials === undefined || origin.credentials !== '') {
        ctx.addIssue({
          code: 'custom',
          path: ['credentials'],
          message:
            'for git over SSH, credentials must be present and empty (name the secrets in ssh_credentials)',
        })
      }
      if (!origin.ssh_credentials) {
        ctx.addIssue({ code: 'custom', path: ['ssh_credentials'], message: 'required for git over SSH' })
      } else {
        if (origin.ssh_credentials.private_key === '') {
          ctx.addIssue({
            code: 'custom',
            path: ['ssh_credentials', 'private_key'],
            message: 'expected the private key secret id',
          })
        }
        if (origin.ssh_credentials.passphrase === '') {
          ctx.addIssue({
            code: 'custom',
            path: ['ssh_credentials', 'passphrase'],
            message: 'expected the passphrase secret id (the secret itself may be empty)',
          })
        }
      }
    } else if (origin.ssh_credentials) {
      ctx.addIssue({
        code: 'custom',
        path: ['ssh_credentials'],
        message: 'only allowed with an SSH repository URL',
      })
    }
  })

/** True for `ssh://…` and scp-like `user@host:path` URLs. */
export function isSshUrl(url: string): boolean {
  return /^ssh:\/\//.test(url) || /^[\w.-]+@[\w.-]+:[^/]/.test(url)
}

const deploymentParametersSchema = z.looseObject({
  deny_on_opa_fail: z.boolean().optional(),
  discovery: z.record(z.string(), z.unknown()).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
  http_proxy: z.string().optional(),
  https_proxy: z.string().optional(),
  no_proxy: z.string().optional(),
  kubernetes_version: z.string().optional(),
  mutating_webhook_name: z.string().optional(),
  namespace: z.string().optional(),
  timeout_seconds: z.number().int().optional(),
  trusted_ca_certs: z.array(z.string()).optional(),
  trusted_container_registry: z.string().optional(),
})

const object = z.record(z.string(), z.unknown())

/** Fields a system request may set (all optional here; create requires name and type). */
export const systemFieldsSchema = z.strictObject({
  name: z.string().trim().min(1, { error: 'expected a non-empty name' }).max(256).optional(),
  type: z.string().trim().min(1, { error: 'expected a non-empty type' }).max(128).optional(),
  description: z.string().max(4096).optional(),
  deployment_parameters: deploymentParametersSchema.optional(),
  source_control: z.strictObject({ origin: gitRepoSchema }).optional(),
  bundle_download: object.optional(),
  // null removes the registry (a PUT merges fields into the stored config).
  bundle_registry: bundleRegistrySchema.nullable().optional(),
  context_bundle_data_only: z.boolean().optional(),
  context_bundle_roots: z.array(z.string()).optional(),
  decision_mappings: object.optional(),
  error_setting: z.enum(['all', 'errors', 'none']).optional(),
  external_bundles: object.optional(),
  external_id: z.string().optional(),
  filter_stacks: z.boolean().optional(),
  kafka_topic: z.string().optional(),
  mock_opa_enabled: z.boolean().optional(),
  read_only: z.boolean().optional(),
  type_parameters: object.optional(),
  // Read-only fields of SystemConfig: accepted (a GET can be PUT back) and ignored.
  id: z.string().optional(),
  status: z.unknown().optional(),
  metadata: z.unknown().optional(),
  policies: z.unknown().optional(),
  authz: z.unknown().optional(),
  tokens: z.unknown().optional(),
  errors: z.unknown().optional(),
  warnings: z.unknown().optional(),
  info: z.unknown().optional(),
  datasources: z.unknown().optional(),
  install: z.unknown().optional(),
  uninstall: z.unknown().optional(),
  matching_stacks: z.unknown().optional(),
  migration_history: z.unknown().optional(),
  minimum_opa_version: z.unknown().optional(),
  bundle_registry_status: z.unknown().optional(),
  source_control_status: z.unknown().optional(),
})

export type SystemFields = z.output<typeof systemFieldsSchema>

const READ_ONLY = new Set([
  'id',
  'name',
  'type',
  'status',
  'metadata',
  'policies',
  'authz',
  'tokens',
  'errors',
  'warnings',
  'info',
  'datasources',
  'install',
  'uninstall',
  'matching_stacks',
  'migration_history',
  'minimum_opa_version',
  'bundle_registry_status',
  'source_control_status',
])

/** The part of a request stored as the system's config (columns and read-only fields removed). */
export function storedConfig(fields: SystemFields): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).filter(([key, value]) => !READ_ONLY.has(key) && value !== undefined),
  )
}
