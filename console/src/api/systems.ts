/**
 * Shapes of the systems API the console reads (docs/service.md "Systems", docs/bundle-registry.md,
 * docs/datasources.md, docs/git.md): the fields the console shows; the rest is shown raw.
 */

export interface SystemPolicyRef {
  id: string
  modules?: Array<{ name: string }>
}

export interface System {
  id: string
  name: string
  type: string
  description?: string
  status?: string
  /** `errors.bundle.errors[].message` says why a system is not Ready. */
  errors?: Record<string, { errors?: Array<{ message?: string }> } | undefined>
  policies?: SystemPolicyRef[]
  source_control_status?: {
    commit: string | null
    ref: string | null
    synced_at: string | null
    last_attempt_at: string | null
    error: { code: string; message: string; at: string } | null
  }
  bundle_registry_status?: unknown
  metadata?: { created_at?: string; last_modified_at?: string; last_modified_by?: string }
}

export interface Policy {
  id: string
  modules: Record<string, string>
}

export interface Datasource {
  id: string
  category: string
  status?: {
    code?: string
    message?: string
    last_attempt?: string
    last_success?: string
    items?: number
    size?: number
  }
  [key: string]: unknown
}

export interface BundleVersion {
  bundle: string
  version: number
  revision: string
  size: number
  built_at: string
  active: boolean
  deployed_at: string | null
  upload: { state: string; attempts: number; error: string | null; uploaded_at: string | null } | null
}

export interface BundleDeploy {
  configured: boolean
  manual_deployment: boolean
  primary: unknown
  latest_built: unknown
  policy: unknown
  discovery: unknown
}

/** Every reason a system gives for not being Ready, as lines. */
export function statusReasons(system: System): string[] {
  const out: string[] = []
  for (const [area, entry] of Object.entries(system.errors ?? {})) {
    for (const e of entry?.errors ?? []) if (e.message) out.push(`${area}: ${e.message}`)
  }
  return out
}
