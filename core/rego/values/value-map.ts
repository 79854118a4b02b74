/**
 * A hash map keyed by Rego values, the storage under objects and sets. Scalar keys other than
 * big decimals go straight into a JS `Map` (canonical numbers make `1` and `1.0` the same key);
 * composite keys go into buckets by {@link hashValue} and are matched with {@link equalValues}.
 */
import { equalValues } from './compare.js'
import { hashValue } from './hash.js'
import { canonicalNumber, isFloatForm } from './number.js'
import type { Value } from './value.js'

type Primitive = null | boolean | number | bigint | string

function isPrimitive(v: Value): v is Primitive {
  return v === null || typeof v !== 'object'
}

/** Keys are stored canonical: `1.0` and `1` are the same key. */
function keyOf(v: Value): Value {
  return isFloatForm(v) ? canonicalNumber(v) : v
}

/** A mutable map from values to `T`, iterated in insertion order (primitive keys first). */
export class ValueMap<T> {
  readonly #prim = new Map<Primitive, T>()
  #buckets: Map<number, Array<[Value, T]>> | undefined
  #compositeCount = 0

  /** Number of keys. */
  get size(): number {
    return this.#prim.size + this.#compositeCount
  }

  /** The value stored under `key`, or undefined. */
  get(key: Value): T | undefined {
    // Object keys are nearly always strings: one Map lookup, no float-form or primitive checks.
    if (typeof key === 'string') return this.#prim.get(key)
    key = keyOf(key)
    if (isPrimitive(key)) return this.#prim.get(key)
    const bucket = this.#buckets?.get(hashValue(key))
    if (bucket) for (const entry of bucket) if (equalValues(entry[0], key)) return entry[1]
    return undefined
  }

  /** True when `key` is present. */
  has(key: Value): boolean {
    key = keyOf(key)
    if (isPrimitive(key)) return this.#prim.has(key)
    return this.#find(key) !== undefined
  }

  /** Stores `value` under `key`; returns true when the key is new. */
  set(key: Value, value: T): boolean {
    key = keyOf(key)
    if (isPrimitive(key)) {
      const size = this.#prim.size
      this.#prim.set(key, value)
      return this.#prim.size !== size
    }
    const h = hashValue(key)
    this.#buckets ??= new Map()
    let bucket = this.#buckets.get(h)
    if (!bucket) {
      bucket = []
      this.#buckets.set(h, bucket)
    }
    for (const entry of bucket) {
      if (equalValues(entry[0], key)) {
        entry[1] = value
        return false
      }
    }
    bucket.push([key, value])
    this.#compositeCount++
    return true
  }

  /** Removes `key`; returns true when it was present. */
  delete(key: Value): boolean {
    key = keyOf(key)
    if (isPrimitive(key)) return this.#prim.delete(key)
    const h = hashValue(key)
    const bucket = this.#buckets?.get(h)
    if (!bucket) return false
    const i = bucket.findIndex((entry) => equalValues(entry[0], key))
    if (i < 0) return false
    bucket.splice(i, 1)
    if (bucket.length === 0) this.#buckets?.delete(h)
    this.#compositeCount--
    return true
  }

  /** The stored key equal to `key` (composite keys only), used to reuse canonical instances. */
  #find(key: Value): [Value, T] | undefined {
    const bucket = this.#buckets?.get(hashValue(key))
    if (bucket) for (const entry of bucket) if (equalValues(entry[0], key)) return entry
    return undefined
  }

  /** Entries in insertion order (primitive keys first). */
  *entries(): IterableIterator<[Value, T]> {
    yield* this.#prim.entries()
    if (this.#buckets) for (const bucket of this.#buckets.values()) for (const entry of bucket) yield entry
  }

  /** Keys in insertion order (primitive keys first). */
  *keys(): IterableIterator<Value> {
    yield* this.#prim.keys()
    if (this.#buckets) for (const bucket of this.#buckets.values()) for (const entry of bucket) yield entry[0]
  }
}
