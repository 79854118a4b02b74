import { isJsonObject, setOwn } from './json-document.js'

/** Placing data documents stored at slash paths into one JSON tree, as OPA's data namespace does. */

type Tree = Record<string, unknown>

/** Two documents that cannot both be placed (a value where the other needs an object). */
export class DataConflictError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DataConflictError'
  }
}

const isObject = isJsonObject

/**
 * Places `value` at `segments` inside `tree`, merging objects key by key.
 * @throws DataConflictError naming `where` when a non-object value is in the way.
 */
export function placeAt(tree: Tree, segments: string[], value: unknown, where: string): void {
  if (segments.length === 0) {
    if (!isObject(value)) throw new DataConflictError(`${where}: the document at the root must be an object`)
    mergeInto(tree, value, where)
    return
  }
  let node = tree
  for (const segment of segments.slice(0, -1)) {
    const next = Object.hasOwn(node, segment) ? node[segment] : undefined
    if (next === undefined) setOwn(node, segment, {})
    else if (!isObject(next))
      throw new DataConflictError(`${where}: ${segment} already holds a non-object value`)
    node = node[segment] as Tree
  }
  const last = segments.at(-1)!
  const existing = Object.hasOwn(node, last) ? node[last] : undefined
  if (existing === undefined) setOwn(node, last, value)
  else if (isObject(existing) && isObject(value)) mergeInto(existing, value, where)
  else throw new DataConflictError(`${where}: conflicts with another document at ${segments.join('/')}`)
}

function mergeInto(target: Tree, source: Tree, where: string): void {
  for (const [k, v] of Object.entries(source)) {
    const existing = Object.hasOwn(target, k) ? target[k] : undefined
    if (existing === undefined) setOwn(target, k, v)
    else if (isObject(existing) && isObject(v)) mergeInto(existing, v, where)
    else throw new DataConflictError(`${where}: key ${k} conflicts with another document`)
  }
}

/** The value at `segments` inside `value`, or undefined. */
export function valueAt(value: unknown, segments: string[]): unknown {
  let node = value
  for (const segment of segments) {
    if (isObject(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined
    else if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(segment)) node = node[Number(segment)]
    else return undefined
  }
  return node
}

/** Deep merge where `overlay` wins (used for user overrides of generated config). */
export function overlay(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base }
  for (const [k, v] of Object.entries(over)) {
    const current = Object.hasOwn(out, k) ? out[k] : undefined
    setOwn(out, k, isObject(current) && isObject(v) ? overlay(current, v) : v)
  }
  return out
}
