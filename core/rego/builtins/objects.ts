/** Object built-ins: object.get, keys, remove, filter, union, union_n, subset. */
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import {
  equalValues,
  isArray,
  isObject,
  isSet,
  ObjectValue as Obj,
  Value as V,
  withoutFloatForm,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { arrayOperand, objectOperand, operandElementError, operandTypeError } from './operands.js'

const anyObject = t.object(t.any, t.any)
const keyCollection = t.anyOf(t.array(t.any), t.object(t.any, t.any), t.set(t.any))

/** Keys named by an array, a set, or an object's keys (object.remove/filter's second operand). */
function keysOperand(v: Value, position: number): Value[] {
  if (isArray(v)) return [...v]
  if (isSet(v)) return [...v.unsortedValues()]
  if (isObject(v)) return v.keys()
  throw operandTypeError(position, v, 'object', 'set', 'array')
}

export const objectGet = defineBuiltin({
  name: 'object.get',
  category: 'objects',
  description:
    'Returns value of an object\'s key if present, otherwise a default. If the supplied `key` is an `array`, then `object.get` will search through a nested object or array using each key in turn. For example: `object.get({"a": [{ "b": true }]}, ["a", 0, "b"], false)` results in `true`.',
  args: [
    t.named('object', anyObject, 'object to get `key` from'),
    t.named('key', t.any, 'key to lookup in `object`'),
    t.named('default', t.any, 'default to use when lookup fails'),
  ],
  result: t.named('value', t.any, '`object[key]` if present, otherwise `default`'),
  impl: (_ctx, [obj, key, fallback]) => {
    const o = objectOperand(obj, 1)
    if (!isArray(key)) {
      // A key whose value is null is present: only a missing key takes the default.
      const v = o.get(key)
      return v === undefined ? fallback : v
    }
    let cur: Value = o
    for (const k0 of key) {
      const k = withoutFloatForm(k0)
      let next: Value | undefined
      if (isObject(cur)) next = cur.get(k)
      else if (isArray(cur) && typeof k === 'number' && Number.isInteger(k) && k >= 0) next = cur[k]
      if (next === undefined) return fallback
      cur = next
    }
    return cur
  },
})

export const objectKeys = defineBuiltin({
  name: 'object.keys',
  category: 'objects',
  description:
    'Returns a set of an object\'s keys. For example: `object.keys({"a": 1, "b": true, "c": "d")` results in `{"a", "b", "c"}`.',
  args: [t.named('object', anyObject, 'object to get keys from')],
  result: t.named('value', t.set(t.any), "set of `object`'s keys"),
  impl: (_ctx, [obj]) => V.set(objectOperand(obj, 1).keys()),
})

export const objectRemove = defineBuiltin({
  name: 'object.remove',
  category: 'objects',
  description: 'Removes specified keys from an object.',
  args: [
    t.named('object', anyObject, 'object to remove keys from'),
    t.named('keys', keyCollection, 'keys to remove from x'),
  ],
  result: t.named('output', anyObject, 'result of removing the specified `keys` from `object`'),
  impl: (_ctx, [obj, keys]) => {
    const o = objectOperand(obj, 1)
    const drop = keysOperand(keys, 2)
    const out = o.copy()
    for (const k of drop) out.delete(k)
    return out
  },
})

export const objectFilter = defineBuiltin({
  name: 'object.filter',
  category: 'objects',
  description:
    'Filters the object by keeping only specified keys. For example: `object.filter({"a": {"b": "x", "c": "y"}, "d": "z"}, ["a"])` will result in `{"a": {"b": "x", "c": "y"}}`).',
  args: [
    t.named('object', anyObject, 'object to filter keys'),
    t.named('keys', keyCollection, 'keys to keep in `object`'),
  ],
  result: t.named('filtered', anyObject, 'remaining data from `object` with only keys specified in `keys`'),
  impl: (_ctx, [obj, keys]) => {
    const o = objectOperand(obj, 1)
    const keep = keysOperand(keys, 2)
    const out = new Obj()
    for (const k of keep) {
      const v = o.get(k)
      if (v !== undefined) out.set(k, v)
    }
    return out
  },
})

/** Deep merge: where both sides hold objects they merge, otherwise `b` wins. */
export function mergeObjects(a: ObjectValue, b: ObjectValue): ObjectValue {
  const out = a.copy()
  for (const [k, bv] of b.unsortedEntries()) {
    const av = out.get(k)
    out.set(k, av !== undefined && isObject(av) && isObject(bv) ? mergeObjects(av, bv) : bv)
  }
  return out
}

export const objectUnion = defineBuiltin({
  name: 'object.union',
  category: 'objects',
  description:
    'Creates a new object of the asymmetric union of two objects. For example: `object.union({"a": 1, "b": 2, "c": {"d": 3}}, {"a": 7, "c": {"d": 4, "e": 5}})` will result in `{"a": 7, "b": 2, "c": {"d": 4, "e": 5}}`.',
  args: [t.named('a', anyObject, 'left-hand object'), t.named('b', anyObject, 'right-hand object')],
  result: t.named(
    'output',
    t.any,
    'a new object which is the result of an asymmetric recursive union of two objects where conflicts are resolved by choosing the key from the right-hand object `b`',
  ),
  impl: (_ctx, [a, b]) => mergeObjects(objectOperand(a, 1), objectOperand(b, 2)),
})

export const objectUnionN = defineBuiltin({
  name: 'object.union_n',
  category: 'objects',
  description:
    'Creates a new object that is the asymmetric union of all objects merged from left to right. For example: `object.union_n([{"a": 1}, {"b": 2}, {"a": 3}])` will result in `{"b": 2, "a": 3}`.',
  args: [t.named('objects', t.array(anyObject), 'list of objects to merge')],
  result: t.named(
    'output',
    t.any,
    'asymmetric recursive union of all objects in `objects`, merged from left to right, where conflicts are resolved by choosing the key from the right-hand object',
  ),
  impl: (_ctx, [xs]) => {
    const arr = arrayOperand(xs, 1)
    // OPA merges back to front, so the last non-object is the one its error names.
    const bad = arr.findLast((x) => !isObject(x))
    if (bad !== undefined) throw operandElementError(1, arr, bad, 'object')
    let out = new Obj()
    for (const x of arr) {
      if (!isObject(x)) continue
      out = mergeObjects(out, x)
    }
    return out
  },
})

function isSubArray(sup: readonly Value[], sub: readonly Value[]): boolean {
  if (sub.length === 0) return true
  outer: for (let i = 0; i + sub.length <= sup.length; i++) {
    for (let j = 0; j < sub.length; j++)
      if (!equalValues(sup[i + j] as Value, sub[j] as Value)) continue outer
    return true
  }
  return false
}

/** object.subset's relation, applied recursively to nested objects. */
function isSubset(sup: Value, sub: Value): boolean {
  if (isObject(sup) && isObject(sub)) {
    for (const [k, v] of sub.unsortedEntries()) {
      const w = sup.get(k)
      if (w === undefined || !isSubset(w, v)) return false
    }
    return true
  }
  if (isSet(sup) && isSet(sub)) return sub.isSubsetOf(sup)
  if (isArray(sup) && isArray(sub)) return isSubArray(sup, sub)
  if (isArray(sup) && isSet(sub)) {
    const have = V.set(sup)
    return sub.isSubsetOf(have)
  }
  return equalValues(sup, sub)
}

const subsetOperand = t.anyOf(t.array(t.any), t.object(t.any, t.any), t.set(t.any))

export const objectSubset = defineBuiltin({
  name: 'object.subset',
  category: 'objects',
  description:
    'Determines if an object `sub` is a subset of another object `super`.Object `sub` is a subset of object `super` if and only if every key in `sub` is also in `super`, **and** for all keys which `sub` and `super` share, they have the same value. This function works with objects, sets, arrays and a set of array and set.If both arguments are objects, then the operation is recursive, e.g. `{"c": {"x": {10, 15, 20}}` is a subset of `{"a": "b", "c": {"x": {10, 15, 20, 25}, "y": "z"}`. If both arguments are sets, then this function checks if every element of `sub` is a member of `super`, but does not attempt to recurse. If both arguments are arrays, then this function checks if `sub` appears contiguously in order within `super`, and also does not attempt to recurse. If `super` is array and `sub` is set, then this function checks if `super` contains every element of `sub` with no consideration of ordering, and also does not attempt to recurse.',
  args: [
    t.named('super', subsetOperand, 'object to test if sub is a subset of'),
    t.named('sub', subsetOperand, 'object to test if super is a superset of'),
  ],
  result: t.named('result', t.boolean, '`true` if `sub` is a subset of `super`'),
  impl: (_ctx, [sup, sub]) => {
    const ok =
      (isObject(sup) && isObject(sub)) ||
      (isSet(sup) && isSet(sub)) ||
      (isArray(sup) && (isArray(sub) || isSet(sub)))
    // OPA's one operand error (builtins.ErrOperand, no position) for every other pair.
    if (!ok)
      throw new BuiltinError(
        'both arguments object.subset must be of the same type or array and set',
        'eval_type_error',
      )
    return isSubset(sup, sub)
  },
})

/** The object built-ins. */
export const OBJECTS = [
  objectGet,
  objectKeys,
  objectRemove,
  objectFilter,
  objectUnion,
  objectUnionN,
  objectSubset,
] as const
