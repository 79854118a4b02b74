/**
 * What the relay's compile tests share: the bundle target their policy is promoted under, the SQL
 * target media type, and a bundle of one `package filters` module.
 */
import { bundleFromParts, writeBundle } from '../../../core/bundle/index.js'
import type { Target } from '../../../plugins/bundle/targets.js'

export const SQL = 'application/vnd.opa.sql.postgresql+json'

export const target = {
  kind: 'bundle',
  name: 'authz',
  service: 'upstream',
  resource: 'bundles/authz',
  minDelaySeconds: 60,
  maxDelaySeconds: 120,
  sizeLimitBytes: 1 << 20,
  required: true,
} as Target

/** A bundle (bytes and revision, as `BundleCache.promote` takes it) of `package filters` + `rule`. */
export async function filtersBundle(rule: string, revision: string, data: Record<string, unknown> = {}) {
  const bytes = await writeBundle(
    bundleFromParts({
      modules: { 'filters.rego': `package filters\n${rule}\n` },
      data,
      manifest: { revision },
    }),
  )
  return { bytes, revision }
}
