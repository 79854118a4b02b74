/**
 * Rego sets. Elements iterate in sorted order (as OPA's sets do), computed once and cached.
 */
import { compareValues } from './compare.js'
import { hashValue } from './hash.js'
import type { Value } from './value.js'
import { ValueMap } from './value-map.js'

/** A set value. Build it with `add`, then treat it as immutable. */
export class SetValue {
  readonly tag = 'set' as const
  readonly #map = new ValueMap<Value>()
  #sorted: Value[] | undefined
  #hash: number | undefined

  /** A set of `items` (duplicates collapse). */
  static from(items: Iterable<Value>): SetValue {
    const set = new SetValue()
    for (const v of items) set.add(v)
    return set
  }

  /** Number of elements. */
  get size(): number {
    return this.#map.size
  }

  /** True when `v` is an element. */
  has(v: Value): boolean {
    return this.#map.has(v)
  }

  /** Adds `v` (building only: the set must not be shared yet); true when it was new. */
  add(v: Value): boolean {
    const added = this.#map.set(v, v)
    if (added) {
      this.#sorted = undefined
      this.#hash = undefined
    }
    return added
  }

  /** Elements in sorted order. The array is cached: do not modify it. */
  values(): readonly Value[] {
    if (this.#sorted) return this.#sorted
    const out = [...this.#map.keys()]
    out.sort(compareValues)
    this.#sorted = out
    return out
  }

  /** Elements in insertion order (cheaper when order does not matter). */
  unsortedValues(): IterableIterator<Value> {
    return this.#map.keys()
  }

  /** Elements of this set or `other`. */
  union(other: SetValue): SetValue {
    const out = SetValue.from(this.#map.keys())
    for (const v of other.unsortedValues()) out.add(v)
    return out
  }

  /** Elements of both sets. */
  intersect(other: SetValue): SetValue {
    const [small, large] = this.size <= other.size ? [this, other] : [other, this]
    const out = new SetValue()
    for (const v of small.unsortedValues()) if (large.has(v)) out.add(v)
    return out
  }

  /** Elements of this set that are not in `other`. */
  diff(other: SetValue): SetValue {
    const out = new SetValue()
    for (const v of this.#map.keys()) if (!other.has(v)) out.add(v)
    return out
  }

  /** True when every element of this set is in `other`. */
  isSubsetOf(other: SetValue): boolean {
    if (this.size > other.size) return false
    for (const v of this.#map.keys()) if (!other.has(v)) return false
    return true
  }

  /** Order-independent hash of the elements (cached). */
  hash(): number {
    if (this.#hash !== undefined) return this.#hash
    let h = 0x1f83d9ab
    for (const v of this.#map.keys()) h = (h + Math.imul(hashValue(v), 0x2c1b3c6d)) | 0
    this.#hash = h
    return h
  }

  [Symbol.iterator](): Iterator<Value> {
    return this.values()[Symbol.iterator]()
  }
}
