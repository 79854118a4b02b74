/**
 * A system's bundle registry versions (service-notes §5.2): `GET /v1/systems/{id}/bundles`
 * (newest first; `?past=true` only versions that were deployed; `?version=N` starts the page at
 * version N; `?limit`), one version's bytes and details, and `GET|PUT …/bundle-deploy`, which
 * shows the active versions and deploys a stored one (`{primary, force}`).
 */
import { type Context, Hono } from 'hono'
import { z } from 'zod'
import { badRequest, conflict, notFound, readStructuredBody } from '../../core/http/index.js'
import type { BundleKind, RegistryBundleSummary } from '../../store/service/index.js'
import { registryConfigOf } from '../registry/registry-config.js'
import { uploadView } from '../registry/registry-publisher.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope, validateBody } from '../validation.js'
import { BUNDLE_CONTENT_TYPE } from './bundles.js'

/** Bundle names in paths: the system's policy bundle and its discovery bundle. */
const BUNDLE_NAMES: readonly BundleKind[] = ['policy', 'discovery']

const deploySchema = z.strictObject({
  primary: z
    .number({ error: 'expected the version number of a stored policy bundle' })
    .int({ error: 'expected the version number of a stored policy bundle' })
    .positive({ error: 'expected the version number of a stored policy bundle' }),
  force: z.boolean({ error: 'expected true or false' }).default(false),
})

function versionView(row: RegistryBundleSummary, activeVersion: number | undefined) {
  return {
    bundle: row.kind,
    version: row.version,
    revision: row.revision,
    size: row.size,
    built_at: row.built_at,
    active: row.version === activeVersion,
    deployed_at: row.deployed_at,
    upload: uploadView(row),
  }
}

function positiveIntQuery(c: Context<ServiceEnv>, name: string, fallback?: number): number | undefined {
  const raw = c.req.query(name)
  if (raw === undefined) return fallback
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw badRequest(`${name}: expected a positive integer, got "${raw}"`)
  return Number(raw)
}

function booleanQuery(c: Context<ServiceEnv>, name: string): boolean {
  const raw = c.req.query(name)
  if (raw === undefined || raw === 'false') return false
  if (raw === 'true' || raw === '') return true
  throw badRequest(`${name}: expected true or false, got "${raw}"`)
}

/** Routes of a system's registry versions and deployment. */
export function registryBundleRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store, registry } = deps
  const app = new Hono<ServiceEnv>()

  async function systemOf(c: Context<ServiceEnv>) {
    const id = checkId(c.req.param('system') ?? '', 'system id')
    const row = await store.systems.get(id)
    if (!row) throw notFound(`system ${id} not found`)
    return row
  }

  function bundleOf(c: Context<ServiceEnv>): BundleKind {
    const name = c.req.param('bundle') ?? ''
    if (!(BUNDLE_NAMES as readonly string[]).includes(name))
      throw badRequest(`bundle: expected one of ${BUNDLE_NAMES.join(', ')}, got "${name}"`)
    return name as BundleKind
  }

  async function versionOf(c: Context<ServiceEnv>) {
    const system = await systemOf(c)
    const kind = bundleOf(c)
    const raw = c.req.param('version') ?? ''
    if (!/^[1-9]\d{0,8}$/.test(raw)) throw badRequest(`version: expected a positive integer, got "${raw}"`)
    const row = await store.registryBundles.get(system.id, kind, Number(raw))
    if (!row) throw notFound(`system ${system.id} has no ${kind} bundle version ${raw}`)
    return row
  }

  async function activeVersions(systemId: string) {
    const [policy, discovery] = await Promise.all(
      BUNDLE_NAMES.map((kind) => store.registryBundles.active(systemId, kind)),
    )
    return { policy: policy?.version, discovery: discovery?.version }
  }

  app.get('/v1/systems/:system/bundles', async (c) => {
    const system = await systemOf(c)
    const rows = await store.registryBundles.list(system.id, {
      atOrBelow: positiveIntQuery(c, 'version'),
      deployedOnly: booleanQuery(c, 'past'),
      limit: Math.min(positiveIntQuery(c, 'limit', 100)!, 1000),
    })
    const active = await activeVersions(system.id)
    return envelope(
      c,
      rows.map((row) => versionView(row, active[row.kind as BundleKind])),
    )
  })

  app.get('/v1/systems/:system/bundles/:bundle/:version/details', async (c) => {
    const row = await versionOf(c)
    const active = await activeVersions(row.system_id)
    return envelope(c, versionView(row, active[row.kind as BundleKind]))
  })

  app.get('/v1/systems/:system/bundles/:bundle/:version/bundle', async (c) => {
    const row = await versionOf(c)
    return c.body(row.bytes as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': BUNDLE_CONTENT_TYPE,
      ETag: `"${row.revision}"`,
      'Content-Disposition': `attachment; filename="${row.kind}-${row.version}.tar.gz"`,
    })
  })

  app.get('/v1/systems/:system/bundle-deploy', async (c) => {
    const system = await systemOf(c)
    const config = registryConfigOf(system.config)
    const [status, latest] = await Promise.all([
      registry.status(system.id),
      store.registryBundles.latest(system.id, 'policy'),
    ])
    return envelope(c, {
      configured: config !== undefined,
      manual_deployment: config?.manual_deployment ?? false,
      primary: status.policy?.version ?? null,
      latest_built: latest?.version ?? null,
      policy: status.policy ?? null,
      discovery: status.discovery ?? null,
    })
  })

  app.put('/v1/systems/:system/bundle-deploy', async (c) => {
    const system = await systemOf(c)
    const body = validateBody(deploySchema, await readStructuredBody(c), 'deployment')
    if (!registryConfigOf(system.config))
      throw badRequest(`bundle_registry: system ${system.id} has no bundle registry to deploy to`)
    const target = await store.registryBundles.get(system.id, 'policy', body.primary)
    if (!target) throw notFound(`primary: system ${system.id} has no policy bundle version ${body.primary}`)
    const active = await store.registryBundles.active(system.id, 'policy')
    if (active && !body.force) {
      // NOTE(registry): without force, a deploy only moves forward; rolling back, or uploading
      // the active version again, is a deliberate act.
      if (body.primary === active.version)
        throw conflict(
          `primary: version ${body.primary} is already deployed (send force: true to upload it again)`,
        )
      if (body.primary < active.version)
        throw conflict(
          `primary: version ${body.primary} is older than the deployed version ${active.version} (send force: true to roll back)`,
        )
    }
    await registry.deploy(system.id, 'policy', body.primary)
    const status = await registry.status(system.id)
    return envelope(c, { primary: body.primary, policy: status.policy ?? null })
  })
  return app
}
