/**
 * Secret ids named by other objects, checked against the store: a system's source control names
 * its git credentials and SSH key and passphrase by secret id (spec, systems rules 2 and 3), and
 * a system must not be stored naming a secret that does not exist, nor a secret be deleted while
 * a system names it.
 */
import { badRequest } from '../../core/http/index.js'
import type { ServiceRepositories, SystemRow } from '../../store/service/index.js'

/** A secret id and the field that names it (`source_control.origin.ssh_credentials.private_key`). */
export interface SecretReference {
  field: string
  id: string
}

interface SourceControlFields {
  origin?: {
    credentials?: string
    ssh_credentials?: { private_key?: string; passphrase?: string }
  }
}

/** Every secret id a system's fields name: its source control's and its bundle registry's. */
export function systemSecretReferences(fields: {
  source_control?: SourceControlFields
  bundle_registry?: RegistryFields | null
}): SecretReference[] {
  return [
    ...sourceControlSecretReferences(fields.source_control),
    ...registrySecretReferences(fields.bundle_registry ?? undefined),
  ]
}

interface RegistryFields {
  distribution_s3?: { access_keys?: string }
}

/** The secret a system's `bundle_registry` signs its uploads with. */
export function registrySecretReferences(registry: RegistryFields | undefined): SecretReference[] {
  const id = registry?.distribution_s3?.access_keys
  return id ? [{ field: 'bundle_registry.distribution_s3.access_keys', id }] : []
}

/** The secret ids a system's `source_control` names (empty strings name nothing). */
export function sourceControlSecretReferences(
  sourceControl: SourceControlFields | undefined,
): SecretReference[] {
  const origin = sourceControl?.origin
  if (!origin) return []
  const found: SecretReference[] = []
  const add = (field: string, id: string | undefined) => {
    if (id !== undefined && id !== '') found.push({ field: `source_control.origin.${field}`, id })
  }
  add('credentials', origin.credentials)
  add('ssh_credentials.private_key', origin.ssh_credentials?.private_key)
  add('ssh_credentials.passphrase', origin.ssh_credentials?.passphrase)
  return found
}

/**
 * @throws HttpError 400 naming every field whose secret is not stored (the message names the
 *   first, `errors` all of them).
 */
export async function assertSecretsExist(
  store: ServiceRepositories,
  references: readonly SecretReference[],
  what = 'system',
): Promise<void> {
  const missing = new Set(await store.secrets.missing(references.map((r) => r.id)))
  if (missing.size === 0) return
  const problems = references
    .filter((r) => missing.has(r.id))
    .map((r) => `${r.field}: secret "${r.id}" does not exist (create it with PUT /v1/secrets/${r.id})`)
  throw badRequest(`invalid ${what}: ${problems[0]}`, problems)
}

/** The systems whose configuration names the secret `id`, with the naming field. */
export async function systemsReferencingSecret(
  store: ServiceRepositories,
  id: string,
): Promise<Array<{ system: string; field: string }>> {
  const found: Array<{ system: string; field: string }> = []
  for (const row of await store.systems.list()) {
    for (const ref of systemSecretReferences(referencingFieldsOf(row))) {
      if (ref.id === id) found.push({ system: row.id, field: ref.field })
    }
  }
  return found
}

function referencingFieldsOf(row: SystemRow): Parameters<typeof systemSecretReferences>[0] {
  try {
    return JSON.parse(row.config) as Parameters<typeof systemSecretReferences>[0]
  } catch {
    return {}
  }
}
