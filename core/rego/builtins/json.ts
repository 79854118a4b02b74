/**
 * JSON document built-ins: json.filter, json.remove, json.patch (RFC 6902, extended to sets and
 * non-string keys as OPA does), json.marshal_with_options, and JSON Schema checks (in
 * json-schema.ts). Paths are `a/b/0` strings (JSON pointer escapes) or arrays of segments.
 */
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import {
  equalValues,
  isArray,
  isObject,
  isSet,
  ObjectValue as Obj,
  SetValue,
  toJSONText,
  typeName,
  withoutFloatForm,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError, OperandError } from './errors.js'
import { MATCH_SCHEMA, VERIFY_SCHEMA } from './json-schema.js'
import { objectOperand, operandTypeError } from './operands.js'

const anyObject = t.object(t.any, t.any)
const pathsType = t.anyOf(
  t.array(t.anyOf(t.string, t.array(t.any))),
  t.set(t.anyOf(t.string, t.array(t.any))),
)

/** A path string or array as segments (OPA's `parsePath`). */
export function parsePath(p: Value, position: number): Value[] {
  if (typeof p === 'string') {
    if (p === '') return []
    return p
      .replace(/^\/+/, '')
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
  }
  if (isArray(p)) return [...p]
  throw new OperandError(
    position,
    `must be one of {set, array} containing string paths or array of path segments but got ${typeName(p)}`,
  )
}

function pathsOperand(v: Value, position: number): Value[][] {
  if (!isArray(v) && !isSet(v)) throw operandTypeError(position, v, 'set', 'array')
  const items = isArray(v) ? v : v.values()
  // An empty path (`""` or `[]`) names nothing to keep or remove: OPA's pathsToObject skips it.
  return items.map((x) => parsePath(x, position)).filter((path) => path.length > 0)
}

/** An array index from a path segment, or undefined. */
function indexOf(seg: Value, length: number): number | undefined {
  seg = withoutFloatForm(seg)
  let n: number | undefined
  if (typeof seg === 'number' && Number.isInteger(seg)) n = seg
  else if (typeof seg === 'string' && /^(0|[1-9]\d*)$/.test(seg)) n = Number(seg)
  return n !== undefined && n >= 0 && n < length ? n : undefined
}

/** A tree of path segments; a node marked `all` keeps (or removes) its whole subtree. */
interface PathTree {
  all: boolean
  children: Map<string, { key: Value; tree: PathTree }>
}

function buildTree(paths: Value[][]): PathTree {
  const root: PathTree = { all: false, children: new Map() }
  for (const path of paths) {
    let node = root
    for (const seg of path) {
      const k = toJSONText(seg)
      let next = node.children.get(k)
      if (!next) {
        next = { key: seg, tree: { all: false, children: new Map() } }
        node.children.set(k, next)
      }
      node = next.tree
    }
    node.all = true
  }
  return root
}

function childTree(tree: PathTree, key: Value): PathTree | undefined {
  const direct = tree.children.get(toJSONText(key))
  if (direct) return direct.tree
  // Array indexes given as strings in path text.
  if (typeof key === 'number') return tree.children.get(JSON.stringify(String(key)))?.tree
  return undefined
}

function filterValue(v: Value, tree: PathTree): Value | undefined {
  if (tree.all) return v
  if (isObject(v)) {
    const out = new Obj()
    for (const [k, x] of v.entries()) {
      const sub = childTree(tree, k)
      const kept = sub && filterValue(x, sub)
      if (kept !== undefined) out.set(k, kept)
    }
    return out
  }
  if (isArray(v)) {
    const out: Value[] = []
    v.forEach((x, i) => {
      const sub = childTree(tree, i)
      const kept = sub && filterValue(x, sub)
      if (kept !== undefined) out.push(kept)
    })
    return out
  }
  if (isSet(v)) {
    const out = new SetValue()
    for (const x of v.values()) {
      const sub = childTree(tree, x)
      const kept = sub && filterValue(x, sub)
      if (kept !== undefined) out.add(kept)
    }
    return out
  }
  return undefined
}

export const jsonFilter = defineBuiltin({
  name: 'json.filter',
  category: 'objects',
  description:
    'Filters the object. For example: `json.filter({"a": {"b": "x", "c": "y"}}, ["a/b"])` will result in `{"a": {"b": "x"}}`). Paths are not filtered in-order and are deduplicated before being evaluated.',
  args: [t.named('object', anyObject, 'object to filter'), t.named('paths', pathsType, 'JSON string paths')],
  result: t.named('filtered', anyObject, 'remaining data from `object` with only keys specified in `paths`'),
  impl: (_ctx, [o, p]) => {
    const obj = objectOperand(o, 1)
    return filterValue(obj, buildTree(pathsOperand(p, 2))) ?? new Obj()
  },
})

function removeValue(v: Value, tree: PathTree): Value | undefined {
  if (tree.all) return undefined
  if (tree.children.size === 0) return v
  if (isObject(v)) {
    const out = new Obj()
    for (const [k, x] of v.entries()) {
      const sub = childTree(tree, k)
      const kept = sub ? removeValue(x, sub) : x
      if (kept !== undefined) out.set(k, kept)
    }
    return out
  }
  if (isArray(v)) {
    const out: Value[] = []
    v.forEach((x, i) => {
      const sub = childTree(tree, i)
      const kept = sub ? removeValue(x, sub) : x
      if (kept !== undefined) out.push(kept)
    })
    return out
  }
  if (isSet(v)) {
    const out = new SetValue()
    for (const x of v.values()) {
      const sub = childTree(tree, x)
      const kept = sub ? removeValue(x, sub) : x
      if (kept !== undefined) out.add(kept)
    }
    return out
  }
  return v
}

export const jsonRemove = defineBuiltin({
  name: 'json.remove',
  category: 'objects',
  description:
    'Removes paths from an object. For example: `json.remove({"a": {"b": "x", "c": "y"}}, ["a/b"])` will result in `{"a": {"c": "y"}}`. Paths are not removed in-order and are deduplicated before being evaluated.',
  args: [
    t.named('object', anyObject, 'object to remove paths from'),
    t.named('paths', pathsType, 'JSON string paths'),
  ],
  result: t.named('output', anyObject, 'result of removing all keys specified in `paths`'),
  impl: (_ctx, [o, p]) => {
    const obj = objectOperand(o, 1)
    return removeValue(obj, buildTree(pathsOperand(p, 2))) ?? new Obj()
  },
})

// ------------------------------------------------------------------------------------------------
// json.patch

const fail = (message: string) => new BuiltinError(message)

function lookup(doc: Value, path: Value[]): Value {
  let cur = doc
  for (const seg of path) {
    let next: Value | undefined
    if (isObject(cur)) next = cur.get(seg)
    else if (isArray(cur)) {
      const i = indexOf(seg, cur.length)
      next = i === undefined ? undefined : cur[i]
    } else if (isSet(cur)) next = cur.has(seg) ? seg : undefined
    if (next === undefined) throw fail(`path ${pathText(path)} does not exist`)
    cur = next
  }
  return cur
}

function pathText(path: Value[]): string {
  return `/${path.map((s) => (typeof s === 'string' ? s : toJSONText(s))).join('/')}`
}

/** Replaces the value at `path` using `update(parent, lastSegment)`, copying along the way. */
function updateAt(doc: Value, path: Value[], update: (parent: Value, key: Value) => Value): Value {
  if (path.length === 0) throw fail('cannot update the root this way')
  const [head, ...rest] = path as [Value, ...Value[]]
  if (rest.length === 0) return update(doc, head)
  if (isObject(doc)) {
    const child = doc.get(head)
    if (child === undefined) throw fail(`path ${pathText(path)} does not exist`)
    return (doc as ObjectValue).copy().set(head, updateAt(child, rest, update))
  }
  if (isArray(doc)) {
    const i = indexOf(head, doc.length)
    if (i === undefined) throw fail(`path ${pathText(path)} does not exist`)
    const out = [...doc]
    out[i] = updateAt(doc[i] as Value, rest, update)
    return out
  }
  if (isSet(doc)) {
    if (!doc.has(head)) throw fail(`path ${pathText(path)} does not exist`)
    const out = new SetValue()
    for (const x of doc.values()) out.add(equalValues(x, head) ? updateAt(x, rest, update) : x)
    return out
  }
  throw fail(`path ${pathText(path)} does not exist`)
}

function addAt(doc: Value, path: Value[], value: Value): Value {
  if (path.length === 0) return value
  return updateAt(doc, path, (parent, key) => {
    if (isObject(parent)) return parent.copy().set(key, value)
    if (isArray(parent)) {
      const i = key === '-' ? parent.length : indexOf(key, parent.length + 1)
      if (i === undefined) throw fail(`invalid array index ${toJSONText(key)}`)
      return [...parent.slice(0, i), value, ...parent.slice(i)]
    }
    if (isSet(parent)) {
      if (!equalValues(key, value)) throw fail('set elements can only be added at their own value')
      return parent.union(SetValue.from([value]))
    }
    throw fail(`path ${pathText(path)} does not exist`)
  })
}

function removeAt(doc: Value, path: Value[]): Value {
  if (path.length === 0) throw fail('cannot remove the root')
  return updateAt(doc, path, (parent, key) => {
    if (isObject(parent)) {
      if (!parent.has(key)) throw fail(`path ${pathText(path)} does not exist`)
      const out = parent.copy()
      out.delete(key)
      return out
    }
    if (isArray(parent)) {
      const i = indexOf(key, parent.length)
      if (i === undefined) throw fail(`invalid array index ${toJSONText(key)}`)
      return [...parent.slice(0, i), ...parent.slice(i + 1)]
    }
    if (isSet(parent)) {
      if (!parent.has(key)) throw fail(`path ${pathText(path)} does not exist`)
      return parent.diff(SetValue.from([key]))
    }
    throw fail(`path ${pathText(path)} does not exist`)
  })
}

function isPrefix(prefix: Value[], path: Value[]): boolean {
  return prefix.length < path.length && prefix.every((s, i) => equalValues(s, path[i] as Value))
}

/** Applies one RFC 6902 operation. */
export function applyPatchOp(doc: Value, op: ObjectValue): Value {
  const kind = op.get('op')
  const pathValue = op.get('path')
  if (pathValue === undefined) throw fail('missing path')
  const path = parsePath(pathValue, 2)
  const value = op.get('value')
  const from = () => {
    const f = op.get('from')
    if (f === undefined) throw fail('missing from')
    return parsePath(f, 2)
  }
  switch (kind) {
    case 'add':
      if (value === undefined) throw fail('missing value')
      return addAt(doc, path, value)
    case 'remove':
      return removeAt(doc, path)
    case 'replace':
      if (value === undefined) throw fail('missing value')
      lookup(doc, path)
      return path.length === 0 ? value : addAt(removeAt(doc, path), path, value)
    case 'move': {
      const src = from()
      if (isPrefix(src, path)) throw fail('cannot move a value into one of its children')
      const moved = lookup(doc, src)
      if (src.length === path.length && src.every((s, i) => equalValues(s, path[i] as Value))) return doc
      return addAt(removeAt(doc, src), path, moved)
    }
    case 'copy':
      return addAt(doc, path, lookup(doc, from()))
    case 'test':
      if (value === undefined) throw fail('missing value')
      if (!equalValues(lookup(doc, path), value)) throw fail(`test failed at ${pathText(path)}`)
      return doc
    default:
      throw fail(`unknown patch operation ${toJSONText(kind ?? null)}`)
  }
}

export const jsonPatch = defineBuiltin({
  name: 'json.patch',
  category: 'objects',
  description:
    'Patches an object according to RFC6902. For example: `json.patch({"a": {"foo": 1}}, [{"op": "add", "path": "/a/bar", "value": 2}])` results in `{"a": {"foo": 1, "bar": 2}`. The patches are applied atomically: if any of them fails, the result will be undefined. Additionally works on sets, where a value contained in the set is considered to be its path.',
  args: [
    t.named('object', t.any, 'the object to patch'),
    t.named(
      'patches',
      t.array(t.record({ op: t.string, path: t.any }, { key: t.any, value: t.any })),
      'the JSON patches to apply',
    ),
  ],
  result: t.named(
    'output',
    t.any,
    'result obtained after consecutively applying all patch operations in `patches`',
  ),
  impl: (_ctx, [doc, patches]) => {
    if (!isArray(patches)) throw operandTypeError(2, patches, 'array')
    // OPA's builtinJSONPatch drops every patch error: a patch that cannot apply (a bad op, a
    // missing path, a failed test, an element that is not an object) makes the call undefined.
    let out = doc
    try {
      for (const p of patches) {
        if (!isObject(p)) return undefined
        out = applyPatchOp(out, p)
      }
    } catch (err) {
      if (err instanceof BuiltinError || err instanceof OperandError) return undefined
      throw err
    }
    return out
  },
})

export const jsonMarshalWithOptions = defineBuiltin({
  name: 'json.marshal_with_options',
  category: 'encoding',
  description:
    'Serializes the input term JSON, with additional formatting options via the `opts` parameter. `opts` accepts keys `pretty` (enable multi-line/formatted JSON), `prefix` (string to prefix lines with, default empty string) and `indent` (string to indent with, default `\\t`).',
  args: [
    t.named('x', t.any, 'the term to serialize'),
    t.named(
      'opts',
      t.record({ indent: t.string, prefix: t.string, pretty: t.boolean }, { key: t.string, value: t.any }),
      'encoding options',
    ),
  ],
  result: t.named(
    'y',
    t.string,
    'the JSON string representation of `x`, with configured prefix/indent string(s) as appropriate',
  ),
  impl: (_ctx, [x, o]) => {
    const opts = objectOperand(o, 2)
    let pretty = false
    let indent = '\t'
    let prefix = ''
    // OPA's messages: a value is read with StringOperand at the key's index (its `operand N`).
    let index = 0
    const castError = (key: string, got: Value, index: number) =>
      new OperandError(
        2,
        `key ${JSON.stringify(key)} failed cast to string: operand ${index} must be string but got ${typeName(got)}`,
      )
    let explicitPretty: boolean | undefined
    for (const [k, v] of opts.entries()) {
      if (typeof k !== 'string') {
        throw new OperandError(
          2,
          `failed to stringify key ${toJSONText(k)} at index ${index}: operand ${index} must be string but got ${typeName(k)}`,
        )
      }
      if (k === 'pretty') {
        if (typeof v !== 'boolean') throw new OperandError(2, `key "pretty" failed cast to bool`)
        explicitPretty = v
      } else if (k === 'indent') {
        if (typeof v !== 'string') throw castError(k, v, index)
        indent = v
        pretty = true
      } else if (k === 'prefix') {
        if (typeof v !== 'string') throw castError(k, v, index)
        prefix = v
        pretty = true
      } else {
        throw new OperandError(2, `object contained unknown key ${toJSONText(k)}`)
      }
      index++
    }
    if (explicitPretty !== undefined) pretty = explicitPretty
    if (!pretty) return toJSONText(x, { escapeHTML: true })
    return prefix + toJSONText(x, { indent, prefix, escapeHTML: true })
  },
})

/** The JSON document built-ins. */
export const JSON_BUILTINS = [
  jsonFilter,
  jsonRemove,
  jsonPatch,
  jsonMarshalWithOptions,
  VERIFY_SCHEMA,
  MATCH_SCHEMA,
] as const
