/**
 * The relay's data-filter endpoint: `/v1/compile` (compile/route.ts) over the policies of the bundles
 * the relay currently serves. The served bundles are the verified, promoted ones; before each compile
 * request the extension checks whether any was promoted since it last looked, and if so re-reads the
 * bundles (modules parsed with the manifest's Rego version, data merged as OPA merges bundles) and
 * recompiles, so a request never sees modules of one revision with data of another.
 */
import type { Logger } from 'pino'
import { EngineBackend } from '../../compile/backend.js'
import { compileRoutes } from '../../compile/route.js'
import type {
  CompileBackend,
  EvaluationRequest,
  JsonValue,
  PartialEvaluationRequest,
  PartialEvaluationResult,
} from '../../compile/types.js'
import { type Bundle, mergeBundles, readBundle } from '../../core/bundle/index.js'
import { type Module, parseModule } from '../../core/rego/index.js'
import type { BundleCache, ServedBundle } from '../bundles/bundle-cache.js'
import type { RelayContext, RelayExtension } from '../types.js'

/** The relay's served bundles as a compile backend, reloaded when a bundle is promoted. */
export class ServedPolicies implements CompileBackend {
  readonly #engine = new EngineBackend()
  readonly #cache: BundleCache
  readonly #logger: Logger
  #served: ServedBundle[] = []
  #revisions: Record<string, string> = {}
  #failure: Error | undefined
  #loading: Promise<void> | undefined

  constructor(cache: BundleCache, logger: Logger) {
    this.#cache = cache
    this.#logger = logger
  }

  /** Reloads the policies if the set of served bundles changed since the last look. */
  refresh(): Promise<void> {
    const states = this.#cache.all().filter((s) => s.target.kind === 'bundle' && s.served)
    const served = states.map((s) => s.served as ServedBundle)
    if (served.length === this.#served.length && served.every((b, i) => b === this.#served[i])) {
      return this.#loading ?? Promise.resolve()
    }
    this.#served = served
    const names = states.map((s) => s.target.name)
    // Served bundles passed the relay's inflated-size bound; read them with the same one.
    const maxInflatedBytes = Math.max(0, ...states.map((s) => s.target.maxInflatedBytes ?? 0)) || undefined
    const load = this.#load(names, served, maxInflatedBytes).finally(() => {
      if (this.#loading === load) this.#loading = undefined
    })
    this.#loading = load
    return load
  }

  async #load(names: string[], served: ServedBundle[], maxInflatedBytes?: number): Promise<void> {
    try {
      const bundles = await Promise.all(served.map((b) => readBundle(b.bytes, { maxInflatedBytes })))
      const merged =
        bundles.length === 0
          ? undefined
          : mergeBundles(bundles.map((bundle, i) => ({ name: names[i] as string, bundle })))
      const modules = new Map<string, Module>()
      for (const bundle of bundles)
        for (const [file, module] of parseModules(bundle)) modules.set(file, module)
      this.#engine.update({ modules, data: merged?.data ?? {} })
      this.#failure = undefined
      this.#revisions = Object.fromEntries(names.map((n, i) => [n, served[i]?.revision ?? '']))
      this.#logger.info({ bundles: names, modules: modules.size }, 'compile policies loaded')
    } catch (err) {
      // Requests get the error (400 for Rego errors) until a bundle that loads is promoted.
      this.#failure = err instanceof Error ? err : new Error(String(err))
      this.#logger.warn({ err: this.#failure.message }, 'compile policies not loaded')
    }
  }

  modules(): readonly Module[] {
    return this.#engine.modules()
  }

  partialEvaluate(request: PartialEvaluationRequest): Promise<PartialEvaluationResult> {
    if (this.#failure) throw this.#failure
    return this.#engine.partialEvaluate(request)
  }

  evaluate(request: EvaluationRequest): Promise<JsonValue | undefined> {
    if (this.#failure) throw this.#failure
    return this.#engine.evaluate(request)
  }

  toAstJson(result: PartialEvaluationResult): JsonValue {
    return this.#engine.toAstJson(result)
  }

  /** For `/v1/relay/status`: the revisions compiled and whether they loaded. */
  status(): Record<string, unknown> {
    return {
      bundles: this.#revisions,
      modules: this.#engine.modules().length,
      ...(this.#failure ? { error: this.#failure.message } : {}),
    }
  }
}

function parseModules(bundle: Bundle): Array<[string, Module]> {
  const versions = bundle.manifest.file_rego_versions ?? {}
  return bundle.modules.map((m) => {
    const version = versions[m.path] ?? bundle.manifest.rego_version
    return [m.path, parseModule(m.source, { file: m.path, regoVersion: version === 0 ? 'v0' : 'v1' })]
  })
}

/** The relay extension that mounts `/v1/compile` over the served bundles. */
export function compileExtension(context: RelayContext): RelayExtension {
  const policies = new ServedPolicies(context.cache, context.logger)
  return {
    name: 'compile',
    routes(app) {
      app.use('/v1/compile', async (_c, next) => {
        await policies.refresh()
        await next()
      })
      app.use('/v1/compile/*', async (_c, next) => {
        await policies.refresh()
        await next()
      })
      app.route('/', compileRoutes({ backend: policies, logger: context.logger }).app)
    },
    start: () => policies.refresh(),
    status: () => policies.status(),
  }
}
