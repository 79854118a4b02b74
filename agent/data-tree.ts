/**
 * The base document (`data` without the rules) and its writes, as OPA's in-memory store does them:
 * reads along a storage path, JSON Patch style `add`/`remove`/`replace`, and `makeDir` for PUT.
 * Values are shared with running queries, so every write copies the objects and arrays on its path
 * and leaves the old tree untouched (a query that started on it finishes on it).
 */
import { isArray, isObject, ObjectValue, type Value } from '../core/rego/values/index.js'
import { storagePathText } from './paths.js'

/** OPA's storage error kinds; routes map them to HTTP statuses as OPA's `ErrorAuto` does. */
export type StorageErrorKind = 'not_found' | 'write_conflict' | 'invalid_patch'

const CODES: Record<StorageErrorKind, string> = {
  not_found: 'storage_not_found_error',
  write_conflict: 'storage_write_conflict_error',
  invalid_patch: 'storage_invalid_patch_error',
}

/** A failed read or write; the message is OPA's (`storage_not_found_error: /a: document does not exist`). */
export class StorageError extends Error {
  constructor(
    readonly kind: StorageErrorKind,
    detail: string,
  ) {
    super(`${CODES[kind]}: ${detail}`)
    this.name = 'StorageError'
  }
}

/** One write: JSON Patch's three operations OPA supports. */
export interface DataWrite {
  op: 'add' | 'remove' | 'replace'
  path: readonly string[]
  value?: Value
}

const notFound = (path: readonly string[], hint?: string) =>
  new StorageError(
    'not_found',
    `${storagePathText(path)}: document does not exist${hint ? ` (${hint})` : ''}`,
  )

/** The value at `path`, or undefined (array segments must be canonical indices in range). */
export function readPath(root: Value, path: readonly string[]): Value | undefined {
  let node: Value | undefined = root
  for (const segment of path) {
    if (node === undefined) return undefined
    node = child(node, segment)
  }
  return node
}

function child(node: Value, segment: string): Value | undefined {
  if (isObject(node)) return node.get(segment)
  if (isArray(node)) {
    const i = arrayIndex(segment)
    return i === undefined ? undefined : node[i]
  }
  return undefined
}

function arrayIndex(segment: string): number | undefined {
  if (!/^(0|[1-9]\d*)$/.test(segment)) return undefined
  const i = Number(segment)
  return Number.isSafeInteger(i) ? i : undefined
}

/**
 * Applies one write and returns the new root; `root` is not modified.
 * @throws StorageError not_found (missing parent or target), invalid_patch (root not an object).
 */
export function applyWrite(root: ObjectValue, write: DataWrite): ObjectValue {
  const { op, path } = write
  if (path.length === 0) {
    if (op === 'remove') throw new StorageError('invalid_patch', 'the root document cannot be removed')
    if (!isObject(write.value)) throw new StorageError('invalid_patch', 'root must be object')
    return write.value
  }
  return update(root, path, 0, write) as ObjectValue
}

function update(node: Value, path: readonly string[], depth: number, write: DataWrite): Value {
  const segment = path[depth] as string
  if (depth === path.length - 1) return writeInto(node, segment, path, write)
  const next = child(node, segment)
  if (next === undefined) throw notFound(path.slice(0, depth + 1))
  return withChild(node, segment, update(next, path, depth + 1, write))
}

/** `node` with `segment` replaced by `value` (node is an object or array holding segment). */
function withChild(node: Value, segment: string, value: Value): Value {
  if (isObject(node)) return node.copy().set(segment, value)
  const items = [...(node as readonly Value[])]
  items[arrayIndex(segment) as number] = value
  return items
}

function writeInto(parent: Value, key: string, path: readonly string[], write: DataWrite): Value {
  if (isObject(parent)) {
    if (write.op !== 'add' && !parent.has(key)) throw notFound(path)
    const copy = parent.copy()
    if (write.op === 'remove') copy.delete(key)
    else copy.set(key, write.value as Value)
    return copy
  }
  if (isArray(parent)) {
    const items = [...parent]
    if (write.op === 'add' && key === '-') return [...items, write.value as Value]
    const i = arrayIndex(key)
    if (i === undefined) throw notFound(path, 'array index must be a non-negative integer')
    const limit = write.op === 'add' ? items.length : items.length - 1
    if (i > limit) throw notFound(path, 'array index out of range')
    if (write.op === 'add') items.splice(i, 0, write.value as Value)
    else if (write.op === 'remove') items.splice(i, 1)
    else items[i] = write.value as Value
    return items
  }
  throw notFound(path)
}

/**
 * Creates the objects missing along `path` (OPA's `storage.MakeDir`, used by PUT before writing
 * below a path that does not exist yet).
 * @throws StorageError write_conflict when a value on the way is not an object.
 */
export function makeDir(root: ObjectValue, path: readonly string[]): ObjectValue {
  const walk = (node: ObjectValue, depth: number): ObjectValue => {
    if (depth === path.length) return node
    const key = path[depth] as string
    const existing = node.get(key)
    if (existing !== undefined && !isObject(existing)) {
      throw new StorageError('write_conflict', storagePathText(path.slice(0, depth + 1)))
    }
    const inner = walk(existing ?? new ObjectValue(), depth + 1)
    return inner === existing ? node : node.copy().set(key, inner)
  }
  return walk(root, 0)
}
