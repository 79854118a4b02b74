/**
 * OPA's non-deterministic built-in cache (`nd_builtin_cache` in decision logs): for each
 * non-deterministic built-in (`http.send`, `time.now_ns`, `rand.intn`, `sql.send`, …) the answers a
 * query got, keyed by the call's arguments. Seeded from a logged decision, the same calls get the
 * same answers again, so the decision can be re-evaluated exactly; recorded, it says what an
 * evaluation saw. The JSON shape is OPA's: `{"<built-in>": {"<arguments as Rego text>": answer}}`,
 * the key an array of the arguments as OPA prints it (`[]`, `[{"method": "get", "url": "…"}]`).
 */
import type { Value } from '../values/index.js'
import { formatValue, ObjectValue, parseJSON } from '../values/index.js'
import type { AsyncBuiltin, Builtin, BuiltinArgs, FunctionBuiltin } from './define.js'

/** OPA's JSON form: built-in name → arguments text → answer. */
export type NdBuiltinCacheJson = Record<string, Record<string, unknown>>

/** The arguments' key: their array in Rego text, normalized (a seed's spacing does not matter). */
function argsKey(args: readonly Value[]): string {
  return formatValue([...args])
}

function normalizeKey(text: string): string {
  try {
    return formatValue(parseJSON(text))
  } catch {
    return text // not JSON (a set among the arguments): matched as written
  }
}

/** Answers seeded non-deterministic calls and records every answer (see the file comment). */
export class NdBuiltinCache {
  readonly #entries = new Map<string, Map<string, Value>>()

  /**
   * A cache seeded from OPA's JSON; throws naming the built-in whose entry is not an object.
   * Answers are parsed losslessly from `text` form when given as JSON text of the whole cache.
   */
  static fromJson(json: NdBuiltinCacheJson | Value): NdBuiltinCache {
    const cache = new NdBuiltinCache()
    cache.load(json)
    return cache
  }

  /**
   * Replaces the entries with `json`'s (built-ins already wrapped by this cache see the new
   * entries: one compiled policy can replay many decisions, each with its own cache).
   */
  load(json: NdBuiltinCacheJson | Value): void {
    this.#entries.clear()
    const root = json instanceof ObjectValue ? json : parseJSON(JSON.stringify(json))
    if (!(root instanceof ObjectValue)) throw new Error('nd_builtin_cache must be an object')
    for (const [name, calls] of root.entries()) {
      if (typeof name !== 'string' || !(calls instanceof ObjectValue))
        throw new Error(`nd_builtin_cache.${String(name)} must be an object of arguments → answer`)
      const byArgs = new Map<string, Value>()
      for (const [args, answer] of calls.entries()) byArgs.set(normalizeKey(String(args)), answer)
      this.#entries.set(name, byArgs)
    }
  }

  /** The cached answer of `name` for `args`, if any. */
  get(name: string, args: readonly Value[]): Value | undefined {
    return this.#entries.get(name)?.get(argsKey(args))
  }

  put(name: string, args: readonly Value[], answer: Value): void {
    let byArgs = this.#entries.get(name)
    if (!byArgs) {
      byArgs = new Map()
      this.#entries.set(name, byArgs)
    }
    byArgs.set(argsKey(args), answer)
  }

  /** OPA's JSON shape, as a Rego object (write it with `toJSONText`). */
  toValue(): ObjectValue {
    const out = new ObjectValue()
    for (const [name, byArgs] of [...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const calls = new ObjectValue()
      for (const [args, answer] of byArgs) calls.set(args, answer)
      out.set(name, calls)
    }
    return out
  }

  /**
   * `builtins` with every non-deterministic one answering from this cache first and recording
   * what it answers otherwise.
   */
  wrap(builtins: readonly Builtin[]): Builtin[] {
    return builtins.map((b) => (b.nondeterministic && b.kind !== 'relation' ? this.#cached(b) : b))
  }

  #cached(b: FunctionBuiltin | AsyncBuiltin): Builtin {
    if (b.kind === 'async') {
      const impl: AsyncBuiltin['impl'] = async (ctx, args, location) => {
        const seeded = this.get(b.name, args)
        if (seeded !== undefined) return seeded
        const answer = await b.impl(ctx, args, location)
        if (answer !== undefined) this.put(b.name, args, answer)
        return answer
      }
      return { ...b, impl }
    }
    const impl: FunctionBuiltin['impl'] = (ctx, args: BuiltinArgs, location) => {
      const seeded = this.get(b.name, args)
      if (seeded !== undefined) return seeded
      const answer = b.impl(ctx, args, location)
      if (answer !== undefined) this.put(b.name, args, answer)
      return answer
    }
    return { ...b, impl }
  }
}
