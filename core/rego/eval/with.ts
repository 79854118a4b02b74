/**
 * State for `with`: the stack of function replacements (`with count as my_count`, `with f as 1`)
 * and the upsert of a value at a path of `input` or `data` (OPA's `mergeTermWithValues`).
 */
import { isObject, ObjectValue, type Value } from '../values/index.js'
import type { FunctionRef } from './ir.js'

/** A replacement: another function, or a constant value. */
export type Mock = { fn: FunctionRef; value?: undefined } | { value: Value; fn?: undefined }

/**
 * Mocks in force. Nested `with` statements add to the current frame (inner ones win); calling a
 * replacement function pushes an empty frame so the replacement itself runs unmocked.
 */
export class MockStack {
  // Created on first use: most queries never use `with` on functions.
  #frames: Array<Array<Map<string, Mock>>> | undefined

  #current(): Array<Map<string, Mock>> {
    this.#frames ??= [[]]
    return this.#frames[this.#frames.length - 1] as Array<Map<string, Mock>>
  }

  /** The replacement for `key` (a built-in name or a data function path), if any. */
  get(key: string): Mock | undefined {
    const current = this.#current()
    for (let i = current.length - 1; i >= 0; i--) {
      const m = current[i]?.get(key)
      if (m) return m
    }
    return undefined
  }

  /** True when no mock is in force (the common case: skips the lookup). */
  get empty(): boolean {
    return this.#frames === undefined || this.#current().length === 0
  }

  putPairs(mocks: Map<string, Mock>): void {
    this.#current().push(mocks)
  }

  popPairs(): void {
    this.#current().pop()
  }

  push(): void {
    this.#frames ??= [[]]
    this.#frames.push([])
  }

  pop(): void {
    this.#frames?.pop()
  }
}

/**
 * A copy of `doc` with `value` at `path`, creating objects on the way and replacing non-objects
 * found on the way (OPA's `mergeTermWithValues`).
 */
export function upsertPath(doc: Value | undefined, path: readonly Value[], value: Value): Value {
  if (path.length === 0) return value
  if (doc === undefined || !isObject(doc)) return makeTree(path, value)
  const [head, ...rest] = path as [Value, ...Value[]]
  const obj = doc.copy()
  const child = obj.get(head)
  obj.set(
    head,
    child !== undefined && isObject(child) ? upsertPath(child, rest, value) : makeTree(rest, value),
  )
  return obj
}

function makeTree(path: readonly Value[], value: Value): Value {
  let out = value
  for (let i = path.length - 1; i >= 0; i--) out = new ObjectValue().set(path[i] as Value, out)
  return out
}
