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
import type {
  BundleKind,
  DataDocumentRow,
  PolicyRow,
  ServiceStore,
  SystemRow,
} from '../store/service/index.js'
import { discoveryDocument, type PublishedKey } from './agent-config.js'
import type { BundleWatch } from './bundle-watch.js'
import { spliceDocumentParts, storedContentDigest } from './data-text.js'
import { DataConflictError, placeAt } from './data-tree.js'
import { DATASOURCE_ACTOR } from './datasources/store-data.js'
import { copyJson, isJsonObject, parseJsonDocument, stringifyJsonDocument } from './json-document.js'
import { utf8Yielding } from './json-text-yielding.js'
import type { ServiceMetrics } from './metrics.js'
import { checkModuleSet, describeRegoError, type ModuleValidator } from './policy-validation.js'
import { registryConfigOf } from './registry/registry-config.js'
import { registryPolicySource } from './registry/registry-discovery.js'

/** Status of a system whose latest bundle built. */
export const STATUS_READY = 'Ready'
/** Status of a system whose latest policies or data do not make a bundle. */
export const STATUS_BUILD_FAILED = 'BundleBuildFailed'
/** Status of a system whose source (git) cannot be read: fetch, credentials, reference. */
export const STATUS_SOURCE_FAILED = 'SourceControlFailed'

/** One module of a system's content: where it goes in the bundle and the name errors use. */
export interface ContentModule {
  bundlePath: string
  name: string
  source: string
}

/** A system's content from somewhere else than the store's policies and data (git). */
export interface SourcedContent {
  modules: ContentModule[]
  /** The data tree, already placed. */
  data: Record<string, unknown>
  /** The revision of a bundle whose content digest is `digest`. */
  revision: (digest: string) => string
  /** The manifest's `metadata`. */
  metadata?: Record<string, unknown>
  /** Problems of the source that keep the system from Ready even though this content builds (a failing fetch). */
  sourceProblems?: string[]
}

/** Where the content of systems not built from the store comes from. */
export interface SystemSource {
  /**
   * The content of `system`, or undefined when it is built from the store's policies and data.
   * @throws SourceUnavailableError when the source has no content to build from.
   * @throws ContentError when the content is not a valid bundle (a malformed data file).
   */
  content(system: SystemRow): Promise<SourcedContent | undefined>
}

/** The source of a system cannot give content (never synced, credentials missing). */
export class SourceUnavailableError extends Error {
  constructor(readonly problems: string[]) {
    super(problems[0])
    this.name = 'SourceUnavailableError'
  }
}

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
  onStored?: (
    system: SystemRow,
    kind: BundleKind,
    revision: string,
    bytes: Uint8Array,
    registryCopy?: BundleCopy,
  ) => Promise<void>
  /** Content of systems built from elsewhere than the store (service/git-source/). */
  source?: SystemSource
}

/** A bundle as built for somewhere else than the service's own API (the registry's discovery bundle). */
export interface BundleCopy {
  revision: string
  bytes: Uint8Array
}

/** The outcome of one build. */
export interface BuildOutcome {
  status: string
  errors: string[]
  revision?: string
}

/** Module or data problems that make a system's content unbuildable, one message per problem. */
export class ContentError extends Error {
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
    let outcome: BuildOutcome
    try {
      await this.buildDiscovery(system)
      const sourced = await this.options.source?.content(system)
      const bundle = sourced
        ? // Data pushed to the system (by datasources, by /v1/data) joins the source's own, and
          // so do the libraries its policy-library datasources copied in (docs/libraries.md).
          this.sourcedBundle({
            ...sourced,
            modules: [...sourced.modules, ...(await this.datasourceModules(systemId))],
            data: await this.storedData(systemId, sourced.data),
          })
        : await this.storedBundle(systemId)
      const revision = bundle.manifest.revision as string
      const signed = this.options.signer ? await this.options.signer.sign(bundle) : bundle
      await this.save(system, 'policy', revision, await writeBundle(signed))
      // A git source whose latest fetch failed still builds its last good commit, but is not Ready.
      outcome =
        sourced?.sourceProblems && sourced.sourceProblems.length > 0
          ? { status: STATUS_SOURCE_FAILED, errors: sourced.sourceProblems, revision }
          : { status: STATUS_READY, errors: [], revision }
    } catch (err) {
      // NOTE(service): whatever stops a build (content, signing, encoding, storage), the last good
      // bundle stays served and the status says why; only a success may report Ready (issue 17).
      const content =
        err instanceof ContentError ||
        err instanceof BundleError ||
        err instanceof DataConflictError ||
        err instanceof SourceUnavailableError
      const errors =
        err instanceof ContentError || err instanceof SourceUnavailableError
          ? err.problems
          : [errorMessage(err, content)]
      outcome = {
        status: err instanceof SourceUnavailableError ? STATUS_SOURCE_FAILED : STATUS_BUILD_FAILED,
        errors,
      }
      this.options.metrics.bundleBuilds.inc({ kind: 'policy', outcome: 'failed' })
      const log = { system_id: systemId, reason: errors[0] }
      if (content) this.options.logger.warn(log, 'bundle build failed')
      else this.options.logger.error({ ...log, err }, 'bundle build failed')
    }
    await store.systems.setStatus(systemId, outcome.status, outcome.errors.length > 0 ? outcome.errors : null)
    return outcome
  }

  /** The bundle of what is pushed to the store under `systems/{id}`. */
  private async storedBundle(systemId: string): Promise<Bundle> {
    const modules = await this.storedModules(systemId, () => true)
    const prefix = `systems/${systemId}`
    const { store } = this.options
    const documents = await store.dataDocuments.listForSystemParts(systemId)
    const placed = documents.map((doc) => ({
      path: relativeTo(prefix, doc.path),
      parts: doc.parts,
      etag: doc.etag,
    }))
    const dataParts = spliceDocumentParts(placed)
    if (dataParts !== undefined) {
      // The documents' texts go into data.json as stored: nothing is parsed or written again, and
      // a large one (stored in chunks) is encoded a chunk at a time, never joined.
      const bundlePaths = Object.fromEntries(modules.map((m) => [m.bundlePath, m.source]))
      const digest = storedContentDigest(bundlePaths, placed)
      const dataBytes = await utf8Yielding(dataParts)
      return this.sourcedBundle({ modules, data: {}, revision: () => digest }, dataBytes)
    }
    // Documents that overlap merge as trees.
    const joined = documents.map(({ parts, ...doc }) => ({ ...doc, value: parts.join('') }))
    return this.sourcedBundle({
      modules,
      data: await this.storedData(systemId, {}, joined),
      revision: (digest) => digest,
    })
  }

  /** The modules datasources (policy-library) stored for a system whose policies come from git. */
  private datasourceModules(systemId: string): Promise<ContentModule[]> {
    return this.storedModules(systemId, (policy) => policy.last_modified_through === DATASOURCE_ACTOR.through)
  }

  /** The modules of the policies stored under `systems/{id}` that `keep` keeps, placed relative to it. */
  private async storedModules(
    systemId: string,
    keep: (policy: PolicyRow) => boolean,
  ): Promise<ContentModule[]> {
    const { store } = this.options
    const policies = (await store.policies.listForSystem(systemId)).filter(keep)
    const prefix = `systems/${systemId}`
    const modules: ContentModule[] = []
    for (const policy of policies) {
      const dir = relativeTo(prefix, policy.path)
      for (const [file, source] of Object.entries(JSON.parse(policy.modules) as Record<string, string>)) {
        // Errors name the module under its policy path: what the user pushed.
        modules.push({
          bundlePath: dir === '' ? file : `${dir}/${file}`,
          name: `${policy.path}/${file}`,
          source,
        })
      }
    }
    return modules
  }

  /** `base` with the data documents stored under `systems/{id}` placed into it. */
  private async storedData(
    systemId: string,
    base: Record<string, unknown>,
    listed?: DataDocumentRow[],
  ): Promise<Record<string, unknown>> {
    const prefix = `systems/${systemId}`
    const documents = listed ?? (await this.options.store.dataDocuments.listForSystem(systemId))
    const data = documents.length === 0 ? base : copyJson(base)
    for (const doc of documents) {
      const rel = relativeTo(prefix, doc.path)
      placeAt(data, rel === '' ? [] : rel.split('/'), parseJsonDocument(doc.value), `data ${doc.path}`)
    }
    return data
  }

  /**
   * Checks the modules (each parses, all compile together) and makes the bundle; with `dataBytes`
   * (the data tree already written, its digest in `content.revision`) `content.data` is unused.
   */
  private sourcedBundle(content: SourcedContent, dataBytes?: Uint8Array): Bundle {
    const modules: Record<string, string> = {}
    const named: Record<string, string> = {}
    for (const module of content.modules) {
      const problem = this.options.validateModule(module.name, module.source)
      if (problem) throw new ContentError([problem])
      modules[module.bundlePath] = module.source
      named[module.name] = module.source
    }
    // Pushed modules were checked when pushed, against the system's modules of that moment; a
    // later change (a policy deleted, pushes racing) can still leave a set that does not compile.
    const compileErrors = checkModuleSet(named)
    if (compileErrors.length > 0) throw new ContentError(compileErrors.map((e) => describeRegoError(e)))
    const revision = content.revision(dataBytes === undefined ? contentDigest(modules, content.data) : '')
    const manifest = content.metadata ? { revision, metadata: content.metadata } : { revision }
    return dataBytes === undefined
      ? bundleFromParts({ modules, data: content.data, manifest })
      : bundleFromParts({ modules, dataBytes, manifest })
  }

  private async buildDiscovery(system: SystemRow): Promise<void> {
    const config = JSON.parse(system.config) as {
      deployment_parameters?: { discovery?: Record<string, unknown> }
    }
    const identity = {
      id: system.id,
      type: system.type,
      discoveryOverrides: config.deployment_parameters?.discovery,
    }
    const discovery = await discoveryBundle(discoveryDocument(identity, this.publishedKey))
    // The copy a bundle registry publishes sends agents to the bucket for the policy bundle too.
    const registry = registryConfigOf(system.config)
    const registryCopy = registry
      ? await discoveryBundle(
          discoveryDocument(identity, this.publishedKey, registryPolicySource(system, registry)),
        )
      : undefined
    await this.save(system, 'discovery', discovery.revision, discovery.bytes, registryCopy)
  }

  private async save(
    system: SystemRow,
    kind: BundleKind,
    revision: string,
    bytes: Uint8Array,
    registryCopy?: BundleCopy,
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
      await this.options.onStored?.(system, kind, revision, bytes, registryCopy)
    } catch (err) {
      this.options.logger.error({ err, system_id: system.id, kind }, 'bundle registry bookkeeping failed')
    }
  }
}

/** A discovery bundle: the document at `data.discovery`, its revision the content digest. */
async function discoveryBundle(document: Record<string, unknown>): Promise<BundleCopy> {
  const data = { discovery: document }
  const revision = contentDigest({}, data)
  return {
    revision,
    bytes: await writeBundle(bundleFromParts({ modules: {}, data, manifest: { revision } })),
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
