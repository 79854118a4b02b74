/**
 * Reference evaluation (OPA's evalRef/evalTree/evalTerm): walks `input`, local values and the
 * `data` document, where base documents and the rule tree meet. Ground path elements are looked
 * up; unbound ones enumerate keys (binding the var for each); reaching a node with rules hands
 * over to virtual.ts; a path that ends above rules builds the whole subtree (`data.pkg`).
 */
import { isArray, isObject, isSet, ObjectValue, type Value, withoutFloatForm } from '../values/index.js'
import { type Frame, plug, same, TermBinding } from './bindings.js'
import { internalError } from './errors.js'
import type { Evaluator, ValueIter } from './evaluator.js'
import { K, type PRef, type PTerm, Root, SetKind, type VNode } from './ir.js'
import { unifyValue } from './unify.js'
import { objectKeyValue, ruleSetValue } from './virtual.js'

/** Enumerates the values of a ref (binding the vars in its path). */
export function evalRef(e: Evaluator, ref: PRef, frame: Frame, iter: ValueIter): boolean {
  switch (ref.root) {
    case Root.Input:
      if (e.input === undefined) return false
      if (e.partial() && e.unknown(ref, frame)) return false
      return walkValue(e, e.input, ref.path, 0, frame, iter)
    case Root.Data:
      return walkData(e, ref.path, 0, e.policy.root, e.data, frame, iter)
    case Root.Term: {
      const head = ref.head
      if (!head) throw internalError('ref without head', ref.src.location)
      if (head.k === K.Var) {
        const b = frame.s[head.slot]
        if (b !== undefined && !(b instanceof TermBinding)) return walkValue(e, b, ref.path, 0, frame, iter)
      }
      return e.evalTermValues(head, frame, (v) => walkValue(e, v, ref.path, 0, frame, iter))
    }
  }
}

/** The element of a collection under `key`, or undefined. */
export function getChild(v: Value, key: Value): Value | undefined {
  if (isObject(v)) return v.get(key)
  if (isArray(v)) {
    // `a[1.0]` is `a[1]`: an integer in float form indexes like the integer.
    key = withoutFloatForm(key)
    if (typeof key !== 'number' || !Number.isInteger(key) || key < 0) return undefined
    return v[key]
  }
  if (isSet(v)) return v.has(key) ? key : undefined
  return undefined
}

/**
 * A child of a base document. NOTE(regent): OPA reads base documents through its store, whose
 * paths are strings, so `data[2]` finds the key "2" of an object (dataderef compliance cases).
 */
function baseChild(base: Value, key: Value): Value | undefined {
  const v = getChild(base, key)
  if (v !== undefined || !isObject(base) || typeof key !== 'number') return v
  return base.get(String(key))
}

/** The ground value of a path element, or undefined when it must be enumerated. */
function groundKey(p: PTerm, frame: Frame): Value | undefined {
  if (p.k === K.Value) return p.v
  if (p.k === K.Var) {
    const b = frame.s[p.slot]
    if (b === undefined) return undefined
    if (b instanceof TermBinding) return plug(b.term, b.frame)
    return b
  }
  return plug(p, frame)
}

/** Walks `path[i:]` into `v`. */
export function walkValue(
  e: Evaluator,
  v: Value,
  path: PTerm[],
  i: number,
  frame: Frame,
  iter: ValueIter,
  store = false,
): boolean {
  let cur = v
  for (; i < path.length; i++) {
    const p = path[i] as PTerm
    const k = p.k === K.Value ? p.v : groundKey(p, frame)
    if (k === undefined) {
      const next = i + 1
      return enumerate(e, cur, p, frame, (child) => walkValue(e, child, path, next, frame, iter, store))
    }
    const child = store ? baseChild(cur, k) : getChild(cur, k)
    if (child === undefined) return false
    cur = child
  }
  return iter(cur)
}

/** Enumerates the children of `v`, unifying each key with `p`. */
function enumerate(e: Evaluator, v: Value, p: PTerm, frame: Frame, next: ValueIter): boolean {
  // Fast path: an unbound var (the `some x in xs` / `xs[_]` case) is bound in place, no closures.
  if (p.k === K.Var && frame.s[p.slot] === undefined && e.saveSet === undefined) {
    const slot = p.slot
    const s = frame.s
    if (isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if ((++e.instructions & 1023) === 0) e.checkLimits()
        s[slot] = i
        const stop = next(v[i] as Value)
        s[slot] = undefined
        if (stop) return true
      }
      return false
    }
    if (isObject(v)) {
      for (const [k, child] of v.entries()) {
        if ((++e.instructions & 1023) === 0) e.checkLimits()
        s[slot] = k
        const stop = next(child)
        s[slot] = undefined
        if (stop) return true
      }
      return false
    }
    if (isSet(v)) {
      for (const x of v.values()) {
        if ((++e.instructions & 1023) === 0) e.checkLimits()
        s[slot] = x
        const stop = next(x)
        s[slot] = undefined
        if (stop) return true
      }
    }
    return false
  }
  if (isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const child = v[i] as Value
      if (unifyValue(e, p, frame, i, () => next(child))) return true
    }
    return false
  }
  if (isObject(v)) {
    for (const [k, child] of v.entries()) if (unifyValue(e, p, frame, k, () => next(child))) return true
    return false
  }
  if (isSet(v)) {
    for (const x of v.values()) if (unifyValue(e, p, frame, x, () => next(x))) return true
    return false
  }
  return false
}

/** True when a `with data...` target is a prefix of `path`. */
function targeted(e: Evaluator, path: readonly Value[]): boolean {
  for (const t of e.targets) {
    if (t.length > path.length) continue
    let ok = true
    for (let i = 0; i < t.length; i++) {
      if (!same(t[i] as Value, path[i] as Value)) {
        ok = false
        break
      }
    }
    if (ok) return true
  }
  return false
}

/** Walks `data` along `path[i:]`, with `node` the rule tree node and `base` the base document here. */
function walkData(
  e: Evaluator,
  path: PTerm[],
  i: number,
  node: VNode | undefined,
  base: Value | undefined,
  frame: Frame,
  iter: ValueIter,
): boolean {
  if (!node) {
    if (base === undefined) return false
    return walkValue(e, base, path, i, frame, iter, true)
  }
  if (i === path.length) {
    const v = extent(e, node, base)
    return v === undefined ? false : iter(v)
  }
  const p = path[i] as PTerm
  const k = groundKey(p, frame)
  if (k !== undefined) return stepData(e, path, i, node, base, k, frame, iter)
  // Enumerate base keys first, then rule tree children not present in the base document.
  const seen = (key: Value) => base !== undefined && getChild(base, key) !== undefined
  if (base !== undefined) {
    const stop = enumerate(e, base, p, frame, () => {
      const key = groundKey(p, frame) as Value
      return stepData(e, path, i, node, base, key, frame, iter)
    })
    if (stop) return true
  }
  for (const key of node.sortedKeys) {
    if (seen(key)) continue
    const child = node.child(key) as VNode
    if (child.hidden && i === 0) continue
    if (unifyValue(e, p, frame, key, () => stepData(e, path, i, node, base, key, frame, iter))) return true
  }
  return false
}

function stepData(
  e: Evaluator,
  path: PTerm[],
  i: number,
  node: VNode,
  base: Value | undefined,
  key: Value,
  frame: Frame,
  iter: ValueIter,
): boolean {
  let child = node.child(key)
  if (child && e.targets.length > 0 && targeted(e, child.path)) child = undefined
  if (child?.ruleSet) {
    if (e.partial() && e.saveSet?.containsRef('data', child.path)) return false
    const set = child.ruleSet
    const next = path[i + 1]
    if (set.kind === SetKind.Object && next !== undefined) {
      // A lookup of one key evaluates only the rules that can produce it, as OPA does.
      const k = groundKey(next, frame)
      if (k !== undefined) {
        const v = objectKeyValue(e, set, k)
        if (v === undefined) return false
        return walkValue(e, v, path, i + 2, frame, iter)
      }
    }
    const v = ruleSetValue(e, set)
    if (v === undefined) return false
    return walkValue(e, v, path, i + 1, frame, iter)
  }
  const nextBase = base === undefined ? undefined : baseChild(base, key)
  if (!child && nextBase === undefined) return false
  return walkData(e, path, i + 1, child, nextBase, frame, iter)
}

/** The full value at a rule tree node without rules: base document merged with virtual documents. */
function extent(e: Evaluator, node: VNode, base: Value | undefined): Value | undefined {
  if (e.targets.length > 0 && targeted(e, node.path)) return base
  const virtual = leaves(e, node)
  if (base === undefined) return virtual
  return merge(base, virtual)
}

function leaves(e: Evaluator, node: VNode): ObjectValue {
  const out = new ObjectValue()
  for (const key of node.sortedKeys) {
    const child = node.child(key) as VNode
    if (child.hidden) continue
    let v: Value | undefined
    if (e.targets.length > 0 && targeted(e, child.path)) {
      v = baseAt(e, child.path)
    } else if (child.ruleSet) {
      v = ruleSetValue(e, child.ruleSet)
    } else {
      v = leaves(e, child)
    }
    if (v !== undefined) out.set(key, v)
  }
  return out
}

function baseAt(e: Evaluator, path: readonly Value[]): Value | undefined {
  let cur: Value | undefined = e.data
  for (const p of path) {
    if (cur === undefined) return undefined
    cur = getChild(cur, p)
  }
  return cur
}

/** Merges two documents: objects key by key, otherwise `a` wins (OPA's `merge`). */
export function merge(a: Value, b: Value): Value {
  if (!isObject(a) || !isObject(b)) return a
  const out = new ObjectValue()
  for (const [k, v] of a.entries()) {
    const v2 = b.get(k)
    out.set(k, v2 !== undefined && isObject(v) && isObject(v2) ? merge(v, v2) : v)
  }
  for (const [k, v] of b.entries()) if (!a.has(k)) out.set(k, v)
  return out
}
