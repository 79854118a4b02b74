/**
 * State for `with`: the stack of function replacements (`with count as my_count`, `with f as 1`)
 * and the upsert of a value at a path of `input` or `data` (OPA's `mergeTermWithValues`).
 */
import type { Location } from '../syntax/ast.js'
import { isObject, ObjectValue, type Value } from '../values/index.js'
import { evalError } from './errors.js'
import type { FunctionRef } from './ir.js'

/** A replacement: another function, or a constant value. */
export type Mock = { fn: FunctionRef; value?: undefined } | { value: Value; fn?: undefined }

/**
 * Mocks in force. Nested `with` statements add to the current frame (inner ones win); calling a
 * replacement function pushes an empty frame so the replacement itself runs unmocked.
 */
export class MockStack {
  readonly #frames: Array<Array<Map<string, Mock>>> = [[]]

  /** The replacement for `key` (a built-in name or a data function path), if any. */
  get(key: string): Mock | undefined {
    const current = this.#frames[this.#frames.length - 1] as Array<Map<string, Mock>>
    for (let i = current.length - 1; i >= 0; i--) {
      const m = current[i]?.get(key)
      if (m) return m
    }
    return undefined
  }

  /** True when no mock is in force (the common case: skips the lookup). */
  get empty(): boolean {
    const current = this.#frames[this.#frames.length - 1] as Array<Map<string, Mock>>
    return current.length === 0
  }

  putPairs(mocks: Map<string, Mock>): void {
    ;(this.#frames[this.#frames.length - 1] as Array<Map<string, Mock>>).push(mocks)
  }

  popPairs(): void {
    ;(this.#frames[this.#frames.length - 1] as Array<Map<string, Mock>>).pop()
  }

  push(): void {
    this.#frames.push([])
  }

  pop(): void {
    this.#frames.pop()
  }
}

/**
 * A copy of `doc` with `value` at `path`, creating objects on the way. A non-object on the way is
 * a conflict, as in OPA.
 */
export function upsertPath(
  doc: Value | undefined,
  path: readonly Value[],
  value: Value,
  location?: Location,
): Value {
  if (path.length === 0) return value
  const [head, ...rest] = path as [Value, ...Value[]]
  let obj: ObjectValue
  if (doc === undefined) obj = new ObjectValue()
  else if (isObject(doc)) obj = doc.copy()
  else throw evalError('eval_conflict_error', `${pathText(path)}: cannot replace non-object`, location)
  obj.set(head, upsertPath(obj.get(head), rest, value, location))
  return obj
}

function pathText(path: readonly Value[]): string {
  return path.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('.')
}
