/**
 * Rego objects: any value can be a key. Iteration, output and comparison use the keys in sorted
 * order (OPA iterates objects in key order too), computed once and cached.
 */
import { compareStrings, compareValues } from './compare.js'
import { hashValue } from './hash.js'
import type { Value } from './value.js'
import { ValueMap } from './value-map.js'

/** One key/value pair. */
export type ObjectEntry = readonly [Value, Value]

/** An object value. Build it with `set`, then treat it as immutable. */
export class ObjectValue {
  readonly tag = 'object' as const
  readonly #map = new ValueMap<Value>()
  #sorted: ObjectEntry[] | undefined
  #hash: number | undefined

  /** An object from pairs; later pairs win. */
  static from(entries: Iterable<readonly [Value, Value]>): ObjectValue {
    const obj = new ObjectValue()
    for (const [k, v] of entries) obj.set(k, v)
    return obj
  }

  /** An object with string keys. */
  static fromRecord(record: Readonly<Record<string, Value>>): ObjectValue {
    const obj = new ObjectValue()
    for (const k of Object.keys(record)) obj.set(k, record[k] as Value)
    return obj
  }

  /** Number of keys. */
  get size(): number {
    return this.#map.size
  }

  /** The value under `key`, or undefined. */
  get(key: Value): Value | undefined {
    return this.#map.get(key)
  }

  /** True when `key` is present. */
  has(key: Value): boolean {
    return this.#map.has(key)
  }

  /** Sets `key` (building only: the object must not be shared yet). Returns this. */
  set(key: Value, value: Value): this {
    this.#map.set(key, value)
    this.#sorted = undefined
    this.#hash = undefined
    return this
  }

  /** Removes `key` (building only). */
  delete(key: Value): boolean {
    this.#sorted = undefined
    this.#hash = undefined
    return this.#map.delete(key)
  }

  /** Pairs sorted by key (OPA's canonical order). The array is cached: do not modify it. */
  entries(): readonly ObjectEntry[] {
    if (this.#sorted) return this.#sorted
    const out: ObjectEntry[] = [...this.#map.entries()]
    let allStrings = true
    for (const [k] of out) {
      if (typeof k !== 'string') {
        allStrings = false
        break
      }
    }
    out.sort(
      allStrings
        ? (a, b) => compareStrings(a[0] as string, b[0] as string)
        : (a, b) => compareValues(a[0], b[0]),
    )
    this.#sorted = out
    return out
  }

  /** Pairs in insertion order (cheaper when order does not matter). */
  unsortedEntries(): IterableIterator<[Value, Value]> {
    return this.#map.entries()
  }

  /** Keys in sorted order. */
  keys(): Value[] {
    return this.entries().map((e) => e[0])
  }

  /** Values in key order. */
  values(): Value[] {
    return this.entries().map((e) => e[1])
  }

  /** A copy that can be modified. */
  copy(): ObjectValue {
    return ObjectValue.from(this.#map.entries())
  }

  /** Order-independent hash of the pairs (cached). */
  hash(): number {
    if (this.#hash !== undefined) return this.#hash
    let h = 0x5be0cd19
    for (const [k, v] of this.#map.entries()) h = (h + (Math.imul(hashValue(k), 31) ^ hashValue(v))) | 0
    this.#hash = h
    return h
  }

  [Symbol.iterator](): Iterator<ObjectEntry> {
    return this.entries()[Symbol.iterator]()
  }
}
