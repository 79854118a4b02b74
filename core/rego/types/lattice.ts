/**
 * Relations between types, for the type checker: subtyping, overlap (can a value have both
 * types), and what indexing into a type yields.
 */
import type { Value } from '../values/index.js'
import { canonicalNumber, equalValues, isFloatForm, isNumberValue } from '../values/index.js'
import type { ArrayType, ObjectType, Type } from './types.js'
import { t, unionOf, unwrap } from './types.js'

/** True when every value of `sub` is also a value of `sup`. */
export function isSubtype(sub: Type, sup: Type): boolean {
  const a = unwrap(sub)
  const b = unwrap(sup)
  if (b.kind === 'any')
    return (
      b.of.length === 0 ||
      (a.kind === 'any' && a.of.length > 0
        ? a.of.every((m) => isSubtype(m, b))
        : b.of.some((m) => isSubtype(a, m)))
    )
  if (a.kind === 'any') return a.of.length > 0 && a.of.every((m) => isSubtype(m, b))
  if (a.kind !== b.kind) return false
  switch (a.kind) {
    case 'array': {
      const bb = b as ArrayType
      const n = Math.max(a.static.length, bb.static.length)
      for (let i = 0; i < n; i++) {
        const x = elementType(a, i)
        const y = elementType(bb, i)
        if (x === undefined) break
        if (y === undefined || !isSubtype(x, y)) return false
      }
      if (a.dynamic) {
        const y = bb.dynamic
        if (!y || !isSubtype(a.dynamic, y)) return false
      }
      return true
    }
    case 'object': {
      const bb = b as ObjectType
      for (const p of a.static) {
        const y = propertyType(bb, p.key)
        if (y === undefined || !isSubtype(p.value, y)) return false
      }
      if (a.dynamic) {
        if (!bb.dynamic) return false
        return isSubtype(a.dynamic.key, bb.dynamic.key) && isSubtype(a.dynamic.value, bb.dynamic.value)
      }
      return true
    }
    case 'set':
      return isSubtype(a.of, (b as typeof a).of)
    case 'function': {
      const bb = b as typeof a
      return a.args.length === bb.args.length && a.args.every((x, i) => isSubtype(bb.args[i] as Type, x))
    }
    default:
      return true
  }
}

/**
 * True when some value has both types; this is the check OPA's checker makes for a built-in
 * argument (`any` overlaps everything, unions overlap when a member does).
 */
export function overlaps(x: Type, y: Type): boolean {
  const a = unwrap(x)
  const b = unwrap(y)
  if (a.kind === 'any') return a.of.length === 0 || a.of.some((m) => overlaps(m, b))
  if (b.kind === 'any') return b.of.length === 0 || b.of.some((m) => overlaps(a, m))
  if (a.kind !== b.kind) return false
  switch (a.kind) {
    case 'array': {
      const bb = b as ArrayType
      const fixedA = a.dynamic === undefined
      const fixedB = bb.dynamic === undefined
      if (fixedA && fixedB && a.static.length !== bb.static.length) return false
      if (fixedA && bb.static.length > a.static.length) return false
      if (fixedB && a.static.length > bb.static.length) return false
      const n = Math.max(a.static.length, bb.static.length)
      for (let i = 0; i < n; i++) {
        const p = elementType(a, i)
        const q = elementType(bb, i)
        if (p && q && !overlaps(p, q)) return false
      }
      return true
    }
    case 'object': {
      const bb = b as ObjectType
      for (const p of a.static) {
        const q = propertyType(bb, p.key)
        if (q === undefined) return false
        if (!overlaps(p.value, q)) return false
      }
      // A static key is not a required one (`json.marshal_with_options` takes `{"pretty": true}`
      // for `object<indent: string, prefix: string, pretty: boolean>`): keys only one side names
      // must be allowed by the other, and shared keys must overlap.
      for (const q of bb.static) {
        const p = propertyType(a, q.key)
        if (p !== undefined && !overlaps(p, q.value)) return false
      }
      return true
    }
    case 'set':
      return overlaps(a.of, (b as typeof a).of)
    default:
      return true
  }
}

/** The type of element `i` of an array type, or undefined when the array cannot have it. */
export function elementType(a: ArrayType, i: number): Type | undefined {
  return i < a.static.length ? a.static[i] : a.dynamic
}

/** The type of property `key` of an object type, or undefined when the object cannot have it. */
export function propertyType(o: ObjectType, key: Value): Type | undefined {
  for (const p of o.static) if (equalValues(p.key, key)) return p.value
  return o.dynamic?.value
}

/** The type of keys of a collection type (array indices are numbers), or undefined. */
export function keysOf(type: Type): Type | undefined {
  const x = unwrap(type)
  switch (x.kind) {
    case 'any':
      return x.of.length === 0 ? t.any : unionOf(...x.of.map((m) => keysOf(m) ?? t.any))
    case 'array':
      return t.number
    case 'object': {
      const keys: Type[] = x.static.map((p) =>
        typeof p.key === 'string' ? t.string : isNumberValue(p.key) ? t.number : t.any,
      )
      if (x.dynamic) keys.push(x.dynamic.key)
      return keys.length ? unionOf(...keys) : t.any
    }
    case 'set':
      return x.of
    default:
      return undefined
  }
}

/** The type of values of a collection type, or undefined for scalars. */
export function valuesOf(type: Type): Type | undefined {
  const x = unwrap(type)
  switch (x.kind) {
    case 'any':
      return x.of.length === 0 ? t.any : unionOf(...x.of.map((m) => valuesOf(m) ?? t.any))
    case 'array': {
      const vals = [...x.static]
      if (x.dynamic) vals.push(x.dynamic)
      return vals.length ? unionOf(...vals) : t.any
    }
    case 'object': {
      const vals = x.static.map((p) => p.value)
      if (x.dynamic) vals.push(x.dynamic.value)
      return vals.length ? unionOf(...vals) : t.any
    }
    case 'set':
      return x.of
    default:
      return undefined
  }
}

/** The type of `x[key]` for a known key, or undefined when no value can be there. */
export function selectType(type: Type, key: Value): Type | undefined {
  if (isFloatForm(key)) key = canonicalNumber(key)
  const x = unwrap(type)
  switch (x.kind) {
    case 'any':
      if (x.of.length === 0) return t.any
      {
        const found = x.of.map((m) => selectType(m, key)).filter((m): m is Type => m !== undefined)
        return found.length ? unionOf(...found) : undefined
      }
    case 'array':
      return typeof key === 'number' && Number.isInteger(key) && key >= 0 ? elementType(x, key) : undefined
    case 'object':
      return propertyType(x, key)
    case 'set':
      return overlaps(x.of, t.any) ? x.of : undefined
    default:
      return undefined
  }
}
