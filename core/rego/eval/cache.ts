/**
 * The per-query cache of rule values: complete rules, partial sets and objects by rule set, and
 * function results by arguments, indexed comprehensions by their keys. `with` pushes a fresh layer (a replaced input or function can
 * change any value) and pops it afterwards, as OPA's virtual cache does.
 */
import { type Value, ValueMap } from '../values/index.js'

/** Marks a cached "undefined". */
export const UNDEFINED: unique symbol = Symbol('undefined')

/** A cached result. */
export type Cached = Value | typeof UNDEFINED

/**
 * The cache form of a result. Only `undefined` means "no value": Rego's `null` is a value like
 * any other, so `v ?? UNDEFINED` would store a rule whose value is null as undefined.
 */
export function toCached(v: Value | undefined): Cached {
  return v === undefined ? UNDEFINED : v
}

/** The result a cache entry stands for (`undefined` for a cached "undefined"). */
export function fromCached(c: Cached): Value | undefined {
  return c === UNDEFINED ? undefined : c
}

class Layer {
  rules: Map<number, Cached> | undefined
  functions: Map<number, ValueMap<Cached>> | undefined
  comprehensions: Map<object, ValueMap<Value> | null> | undefined
}

/** Rule and function results of one query. */
export class VirtualCache {
  #top: Layer = new Layer()
  // Outer layers, created by the first `with`.
  #below: Layer[] | undefined
  // The layer the last `pop` dropped (what the last `with` expression evaluated under).
  #popped: Layer | undefined
  readonly #enabled: boolean

  /** `enabled` false stores nothing: every rule and call is evaluated again (differential tests). */
  constructor(enabled = true) {
    this.#enabled = enabled
  }

  /** The cached value of rule set `id`, if any. */
  getRule(id: number): Cached | undefined {
    return this.#top.rules?.get(id)
  }

  /**
   * The value of rule set `id` cached under the last `with` that ended (`popped`), else in the
   * current layer: a failed expression's rule values, read after its `with` layer is gone
   * (`regent test --var-values`).
   */
  lastRule(id: number, popped: boolean): Cached | undefined {
    return popped ? this.#popped?.rules?.get(id) : this.#top.rules?.get(id)
  }

  putRule(id: number, value: Cached): void {
    if (!this.#enabled) return
    this.#top.rules ??= new Map()
    this.#top.rules.set(id, value)
  }

  /** The cached result of function `id` for `args`, if any. */
  getFunction(id: number, args: readonly Value[]): Cached | undefined {
    return this.#top.functions?.get(id)?.get(args)
  }

  putFunction(id: number, args: readonly Value[], value: Cached): void {
    if (!this.#enabled) return
    this.#top.functions ??= new Map()
    let m = this.#top.functions.get(id)
    if (!m) {
      m = new ValueMap()
      this.#top.functions.set(id, m)
    }
    m.set(args, value)
  }

  /**
   * The grouped values of an indexed comprehension (comprehension-index.ts), by its key values.
   * Kept even when caching is off: grouping decides object key conflicts as OPA does. `null`:
   * the comprehension could not be grouped (it is evaluated as usual).
   */
  getComprehension(compr: object): ValueMap<Value> | null | undefined {
    return this.#top.comprehensions?.get(compr)
  }

  putComprehension(compr: object, groups: ValueMap<Value> | null): void {
    this.#top.comprehensions ??= new Map()
    this.#top.comprehensions.set(compr, groups)
  }

  push(): void {
    this.#below ??= []
    this.#below.push(this.#top)
    this.#top = new Layer()
  }

  pop(): void {
    const prev = this.#below?.pop()
    if (prev) {
      this.#popped = this.#top
      this.#top = prev
    }
  }
}
