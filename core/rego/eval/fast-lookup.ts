/**
 * Ground lookups for the specialized steps of fast.ts: a ref over `input`, a bound local or a base
 * document outside the rule tree, whose path elements are constants or vars already bound to
 * values, read as one value with no closures and no enumeration. `perm.action == input.action`
 * inside a `some perm in ...` loop is the shape this serves: the generic unify walked both refs
 * through evalTermValues/walkValue continuations for every element.
 */
import { isObject, isSet, ObjectValue, type Value } from '../values/index.js'
import { TermBinding } from './bindings.js'
import type { Evaluator } from './evaluator.js'
import { K, type PRef, type PTerm, Root, type VNode } from './ir.js'
import { getChild } from './refs.js'

/** Returned when the lookup cannot decide alone (an unbound or non-ground var): use the generic step. */
export const GENERIC: unique symbol = Symbol('generic')

/** Reads a term's value from the frame slots; undefined when the path does not exist. */
export type Lookup = (e: Evaluator, s: ReadonlyArray<unknown>) => Value | undefined | typeof GENERIC

function child(v: Value, key: Value): Value | undefined {
  if (typeof key === 'string') return isObject(v) ? v.get(key) : isSet(v) && v.has(key) ? key : undefined
  return getChild(v, key)
}

/**
 * The value at a constant `path` below a local value, read as the lookup of `x.a.b` reads it
 * (fast-index.ts indexes elements by exactly what the equalities after a generator will read).
 */
export function fieldOf(v: Value, path: readonly Value[]): Value | undefined {
  let cur: Value | undefined = v
  for (let i = 0; i < path.length && cur !== undefined; i++) cur = child(cur, path[i] as Value)
  return cur
}

/** Object keys of base documents are strings: `data.x[2]` reads key "2" (see refs.ts baseChild). */
function baseChild(v: Value, key: Value): Value | undefined {
  const c = child(v, key)
  if (c !== undefined || typeof key !== 'number' || !isObject(v)) return c
  return v.get(String(key))
}

/** The lookup for a constant, a var or a plain ref; undefined for other shapes. */
export function lookupOf(t: PTerm, root: VNode): Lookup | undefined {
  if (t.k === K.Value) {
    const v = t.v
    return () => v
  }
  if (t.k === K.Var) {
    const slot = t.slot
    return (_e, s) => {
      const b = s[slot]
      return b === undefined || b instanceof TermBinding ? GENERIC : (b as Value)
    }
  }
  if (t.k === K.Ref) return refLookup(t, root)
  return undefined
}

/**
 * Where a ref the fast paths read starts: a local variable's slot (`headSlot`), base data
 * (`base`: its first key leads out of the rule tree), or input; undefined for any other ref.
 */
export function refStart(ref: PRef, root: VNode): { headSlot: number; base: boolean } | undefined {
  if (ref.root === Root.Term)
    return ref.head?.k === K.Var ? { headSlot: ref.head.slot, base: false } : undefined
  if (ref.root === Root.Data) {
    const first = ref.path[0]
    if (first?.k !== K.Value || root.child(first.v) !== undefined) return undefined
    return { headSlot: -1, base: true }
  }
  return ref.root === Root.Input ? { headSlot: -1, base: false } : undefined
}

function refLookup(ref: PRef, root: VNode): Lookup | undefined {
  if (!ref.path.every((p) => p.k === K.Value || p.k === K.Var)) return undefined
  const n = ref.path.length
  const isVar = ref.path.map((p) => p.k === K.Var)
  const keys = ref.path.map((p) => (p.k === K.Value ? p.v : p.k === K.Var ? p.slot : 0))
  const start = refStart(ref, root)
  if (!start) return undefined
  const { headSlot, base } = start
  const only = ref.path[0]
  if (headSlot >= 0 && n === 1 && only?.k === K.Value && typeof only.v === 'string') {
    // `perm.action`: the most common shape by far, without the loop.
    const key = only.v
    return (_e, s) => {
      const h = s[headSlot]
      if (h === undefined || h instanceof TermBinding) return GENERIC
      return h instanceof ObjectValue ? h.get(key) : child(h as Value, key)
    }
  }
  return (e, s) => {
    let cur: Value | undefined
    if (headSlot >= 0) {
      const h = s[headSlot]
      if (h === undefined || h instanceof TermBinding) return GENERIC
      cur = h as Value
    } else {
      cur = base ? e.data : e.input
    }
    for (let i = 0; i < n && cur !== undefined; i++) {
      let key: Value
      if (isVar[i]) {
        const b = s[keys[i] as number]
        if (b === undefined || b instanceof TermBinding) return GENERIC
        key = b as Value
      } else {
        key = keys[i] as Value
      }
      cur = base ? baseChild(cur, key) : child(cur, key)
    }
    return cur
  }
}
