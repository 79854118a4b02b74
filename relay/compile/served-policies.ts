/**
 * The policies of the bundles the relay serves, as a compile worker holds them: the bundles read
 * (modules parsed with the manifest's Rego version, data merged as OPA merges bundles) and given
 * to the engine together, so a request never sees modules of one revision with data of another.
 * A set that does not load is kept as the error every request answers (400 for Rego errors) until
 * a set that loads arrives.
 */
import type { EngineBackend } from '../../compile/backend.js'
import type {
  CompileBackend,
  EvaluationRequest,
  JsonValue,
  PartialEvaluationRequest,
  PartialEvaluationResult,
} from '../../compile/types.js'
import { type Bundle, mergeBundles, readBundle } from '../../core/bundle/index.js'
import { type Module, parseModule } from '../../core/rego/index.js'
import type { LoadReport, ServedState } from './protocol.js'

/** A compile backend over the served bundles (one per worker thread). */
export class ServedPolicies implements CompileBackend {
  readonly #engine: EngineBackend
  #failure: Error | undefined

  constructor(engine: EngineBackend) {
    this.#engine = engine
  }

  /** Loads a new set of served bundles. */
  async load(state: ServedState): Promise<LoadReport> {
    try {
      const bundles = await Promise.all(
        state.bytes.map((b) => readBundle(b, { maxInflatedBytes: state.maxInflatedBytes })),
      )
      const merged =
        bundles.length === 0
          ? undefined
          : mergeBundles(bundles.map((bundle, i) => ({ name: state.names[i] as string, bundle })))
      const modules = new Map<string, Module>()
      for (const bundle of bundles)
        for (const [file, module] of parseModules(bundle)) modules.set(file, module)
      this.#engine.update({ modules, data: merged?.data ?? {} })
      this.#failure = undefined
      return { modules: modules.size }
    } catch (err) {
      this.#failure = err instanceof Error ? err : new Error(String(err))
      return { modules: this.#engine.modules().length, error: this.#failure.message }
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
}

function parseModules(bundle: Bundle): Array<[string, Module]> {
  const versions = bundle.manifest.file_rego_versions ?? {}
  return bundle.modules.map((m) => {
    const version = versions[m.path] ?? bundle.manifest.rego_version
    return [m.path, parseModule(m.source, { file: m.path, regoVersion: version === 0 ? 'v0' : 'v1' })]
  })
}
