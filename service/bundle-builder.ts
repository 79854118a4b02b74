/**
 * Builds a system's bundles whenever its policies, data or configuration change: the policy
 * bundle (modules under `systems/{id}/…` and data documents under the same prefix, placed
 * relative to it; revision = digest of the content; signed when configured) and the discovery
 * bundle. The system's modules must compile together. The system's status records the outcome:
 * `Ready`, or `BundleBuildFailed` with the reasons (for any failure: content, signing, storage)
 * while agents keep getting the last good bundle.
 */
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import { type Bundle, BundleError, bundleFromParts, writeBundle } from '../core/bundle/index.js'
import type { BundleKind, ServiceStore, SystemRow } from '../store/service/index.js'
import { discoveryDocument, type PublishedKey } from './agent-config.js'
import type { BundleWatch } from './bundle-watch.js'
import { DataConflictError, placeAt } from './data-tree.js'
import { isJsonObject, parseJsonDocument, stringifyJsonDocument } from './json-document.js'
import type { ServiceMetrics } from './metrics.js'
import { checkModuleSet, describeRegoError, type ModuleValidator } from './policy-validation.js'

/** Status of a system whose latest bundle built. */
export const STATUS_READY = 'Ready'
/** Status of a system whose latest policies or data do not make a bundle. */
export const STATUS_BUILD_FAILED = 'BundleBuildFailed'

/** Signs built bundles (see bundle-signing.ts) and publishes the key agents verify with. */
export interface BundleSigner {
  sign(bundle: Bundle): Promise<Bundle>
  publishedKey: PublishedKey
}

export interface BundleBuilderOptions {
  store: ServiceStore
  watch: BundleWatch
  metrics: ServiceMetrics
  logger: Logger
  validateModule: ModuleValidator
  signer?: BundleSigner
  /**
   * Told of every stored build (the bundle registry uploads it). Its failures are logged and
   * never fail the build: agents keep getting bundles from the service.
   */
  onStored?: (system: SystemRow, kind: BundleKind, revision: string, bytes: Uint8Array) => Promise<void>
}

/** The outcome of one build. */
export interface BuildOutcome {
  status: string
  errors: string[]
  revision?: string
}

/** Module problems that make a system's content unbuildable, one message per problem. */
class ContentError extends Error {
  constructor(readonly problems: string[]) {
    super(problems[0])
  }
}

function errorMessage(err: unknown, content: boolean): string {
  const message = err instanceof Error ? err.message : String(err)
  return content ? message : `bundle build failed: ${message}`
}

/** Builds and stores bundles; one instance per service. */
export class BundleBuilder {
  constructor(private readonly options: BundleBuilderOptions) {}

  /** The key agents verify bundles with, when signing is configured. */
  get publishedKey(): PublishedKey | undefined {
    return this.options.signer?.publishedKey
  }

  /**
   * Rebuilds both bundles of a system from what is stored now, records its status and wakes
   * long polls. Resolves to undefined when the system no longer exists.
   */
  async rebuild(systemId: string): Promise<BuildOutcome | undefined> {
    const { store } = this.options
    // Read the version before the content: content is then at least as new as the version
    // stored with the bundle, and any later change triggers a build with a higher version.
    const system = await store.systems.get(systemId)
    if (!system) return undefined
    const [policies, documents] = await Promise.all([
      store.policies.listForSystem(systemId),
      store.dataDocuments.listForSystem(systemId),
    ])
    let outcome: BuildOutcome
    try {
      await this.buildDiscovery(system)
      const bundle = this.policyBundle(systemId, policies, documents)
      const revision = bundle.manifest.revision as string
      const signed = this.options.signer ? await this.options.signer.sign(bundle) : bundle
      await this.save(system, 'policy', revision, await writeBundle(signed))
      outcome = { status: STATUS_READY, errors: [], revision }
    } catch (err) {
      // NOTE(service): whatever stops a build (content, signing, encoding, storage), the last good
      // bundle stays served and the status says why; only a success may report Ready (issue 17).
      const content =
        err instanceof ContentError || err instanceof BundleError || err instanceof DataConflictError
      const errors = err instanceof ContentError ? err.problems : [errorMessage(err, content)]
      outcome = { status: STATUS_BUILD_FAILED, errors }
      this.options.metrics.bundleBuilds.inc({ kind: 'policy', outcome: 'failed' })
      const log = { system_id: systemId, reason: errors[0] }
      if (content) this.options.logger.warn(log, 'bundle build failed')
      else this.options.logger.error({ ...log, err }, 'bundle build failed')
    }
    await store.systems.setStatus(systemId, outcome.status, outcome.errors.length > 0 ? outcome.errors : null)
    return outcome
  }

  private policyBundle(
    systemId: string,
    policies: Array<{ path: string; modules: string }>,
    documents: Array<{ path: string; value: string }>,
  ): Bundle {
    const prefix = `systems/${systemId}`
    const modules: Record<string, string> = {}
    // The same modules under their policy paths, so errors name what the user pushed.
    const named: Record<string, string> = {}
    for (const policy of policies) {
      const dir = relativeTo(prefix, policy.path)
      for (const [file, source] of Object.entries(JSON.parse(policy.modules) as Record<string, string>)) {
        const bundlePath = dir === '' ? file : `${dir}/${file}`
        const problem = this.options.validateModule(`${policy.path}/${file}`, source)
        if (problem) throw new ContentError([problem])
        modules[bundlePath] = source
        named[`${policy.path}/${file}`] = source
      }
    }
    // The modules were checked when pushed, against the system's modules of that moment; a
    // later change (a policy deleted, pushes racing) can still leave a set that does not compile.
    const compileErrors = checkModuleSet(named)
    if (compileErrors.length > 0) throw new ContentError(compileErrors.map((e) => describeRegoError(e)))
    const data: Record<string, unknown> = {}
    for (const doc of documents) {
      const rel = relativeTo(prefix, doc.path)
      placeAt(data, rel === '' ? [] : rel.split('/'), parseJsonDocument(doc.value), `data ${doc.path}`)
    }
    const revision = contentDigest(modules, data)
    return bundleFromParts({ modules, data, manifest: { revision } })
  }

  private async buildDiscovery(system: SystemRow): Promise<void> {
    const config = JSON.parse(system.config) as {
      deployment_parameters?: { discovery?: Record<string, unknown> }
    }
    const document = discoveryDocument(
      { id: system.id, type: system.type, discoveryOverrides: config.deployment_parameters?.discovery },
      this.publishedKey,
    )
    const data = { discovery: document }
    const revision = contentDigest({}, data)
    const bytes = await writeBundle(bundleFromParts({ modules: {}, data, manifest: { revision } }))
    await this.save(system, 'discovery', revision, bytes)
  }

  private async save(
    system: SystemRow,
    kind: BundleKind,
    revision: string,
    bytes: Uint8Array,
  ): Promise<void> {
    const stored = await this.options.store.bundles.saveIfNewer({
      system_id: system.id,
      kind,
      revision,
      content_version: system.content_version,
      bytes,
      size: bytes.byteLength,
      built_at: new Date().toISOString(),
    })
    this.options.metrics.bundleBuilds.inc({ kind, outcome: stored ? 'stored' : 'superseded' })
    if (!stored) return
    this.options.watch.notify(system.id, kind, revision)
    try {
      await this.options.onStored?.(system, kind, revision, bytes)
    } catch (err) {
      this.options.logger.error({ err, system_id: system.id, kind }, 'bundle registry bookkeeping failed')
    }
  }
}

function relativeTo(prefix: string, path: string): string {
  return path === prefix ? '' : path.slice(prefix.length + 1)
}

/** sha256 over the modules (sorted by path) and the data tree: equal content, equal revision. */
export function contentDigest(modules: Record<string, string>, data: Record<string, unknown>): string {
  const hash = createHash('sha256')
  for (const path of Object.keys(modules).sort()) {
    hash.update(`module\0${path}\0${modules[path]}\0`)
  }
  hash.update(`data\0${canonicalJson(data)}`)
  return hash.digest('hex')
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isJsonObject(value)) {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
    return `{${entries.join(',')}}`
  }
  return stringifyJsonDocument(value)
}
