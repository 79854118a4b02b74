/**
 * Unification (OPA's `biunify`): makes two terms equal by binding variables, evaluating refs and
 * comprehensions on either side, and recursing into arrays and objects. `unifyValue` is the fast
 * path against a ground value, which is what nearly every expression reduces to.
 */
import { isArray, isObject, type Value } from '../values/index.js'
import { bindValue, type Frame, plug, same, TermBinding } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import { K, type PTerm, Root } from './ir.js'
import { valueToTerm } from './partial-plug.js'

/** True for terms that are evaluated rather than matched (refs, comprehensions). */
function isDynamic(t: PTerm): boolean {
  return t.k === K.Ref || t.k >= K.ArrayCompr
}

/** Unifies a term with a ground value. */
export function unifyValue(e: Evaluator, a: PTerm, fa: Frame, v: Value, iter: Iter): boolean {
  switch (a.k) {
    case K.Value:
      return same(a.v, v) ? iter() : false
    case K.Var: {
      const b = fa.s[a.slot]
      if (b === undefined) {
        if (e.saveSet?.containsVar(fa, a.slot)) {
          return e.saveUnify(a, fa, { k: K.Value, v, src: a.src }, fa, iter)
        }
        return bindValue(fa, a.slot, v, iter)
      }
      if (b instanceof TermBinding) return unifyValue(e, b.term, b.frame, v, iter)
      return same(b, v) ? iter() : false
    }
    case K.Array: {
      if (!isArray(v) || v.length !== a.items.length) return false
      return unifyArrayValue(e, a.items, fa, v, 0, iter)
    }
    case K.Object: {
      if (!isObject(v) || v.size !== a.entries.length) return false
      return unifyObjectValue(e, a.entries, fa, v, 0, iter)
    }
    case K.Set: {
      const p = plug(a, fa)
      if (p === undefined) {
        // A set with an unknown element cannot be matched element by element: saved whole, as
        // OPA's biunifyValues does (`{input} = {1}`).
        if (e.partial() && e.unknown(a, fa))
          return e.saveUnify(a, fa, { k: K.Value, v, src: valueToTerm(v) }, fa, iter)
        return false
      }
      return same(p, v) ? iter() : false
    }
    default:
      if (e.pe !== undefined && a.k === K.Ref && a.root === Root.Data)
        return e.pe.unifyRef(e, a, fa, { k: K.Value, v, src: a.src }, fa, iter)
      if (e.partial() && e.unknown(a, fa))
        return e.saveUnify(a, fa, { k: K.Value, v, src: valueToTerm(v) }, fa, iter)
      return e.evalTermValues(a, fa, (x) => (same(x, v) ? iter() : false))
  }
}

function unifyArrayValue(
  e: Evaluator,
  items: PTerm[],
  fa: Frame,
  v: readonly Value[],
  i: number,
  iter: Iter,
): boolean {
  if (i === items.length) return iter()
  return unifyValue(e, items[i] as PTerm, fa, v[i] as Value, () =>
    unifyArrayValue(e, items, fa, v, i + 1, iter),
  )
}

function unifyObjectValue(
  e: Evaluator,
  entries: Array<[PTerm, PTerm]>,
  fa: Frame,
  v: { get(k: Value): Value | undefined },
  i: number,
  iter: Iter,
): boolean {
  if (i === entries.length) return iter()
  const [kt, vt] = entries[i] as [PTerm, PTerm]
  const k = plug(kt, fa)
  if (k === undefined) return false
  const x = v.get(k)
  if (x === undefined) return false
  return unifyValue(e, vt, fa, x, () => unifyObjectValue(e, entries, fa, v, i + 1, iter))
}

/** Unifies two terms, each read in its own frame. */
export function unify(e: Evaluator, a: PTerm, fa: Frame, b: PTerm, fb: Frame, iter: Iter): boolean {
  if (e.pe !== undefined) {
    if (a.k === K.Ref && a.root === Root.Data) return e.pe.unifyRef(e, a, fa, b, fb, iter)
    if (b.k === K.Ref && b.root === Root.Data) return e.pe.unifyRef(e, b, fb, a, fa, iter)
  }
  // Ground right side: the common `x = <value>` / `<pattern> = <value>` case.
  if (b.k === K.Value) return unifyValue(e, a, fa, b.v, iter)
  if (a.k === K.Value) return valueFirst(e, a.v, a, fa, b, fb, iter)
  if (a.k === K.Var) {
    const ba = fa.s[a.slot]
    if (ba !== undefined) {
      if (ba instanceof TermBinding) return unify(e, ba.term, ba.frame, b, fb, iter)
      return valueFirst(e, ba, a, fa, b, fb, iter)
    }
    return unifyUnboundVar(e, a, fa, b, fb, iter)
  }
  if (b.k === K.Var) {
    // A bound right side is plugged in place, so a saved `a = b` keeps its order (OPA's biunify).
    const bb = fb.s[b.slot]
    if (bb !== undefined && !(bb instanceof TermBinding)) return unifyValue(e, a, fa, bb, iter)
    if (bb === undefined) return unifyUnboundVar(e, b, fb, a, fa, iter, true)
    return unify(e, b, fb, a, fa, iter)
  }
  if (isDynamic(a)) {
    if (e.partial()) {
      const ua = e.unknown(a, fa)
      const ub = e.unknown(b, fb)
      if (ua || ub) return unifyPartial(e, a, fa, ua, b, fb, ub, iter)
    }
    return e.evalTermValues(a, fa, (v) => unifyValue(e, b, fb, v, iter))
  }
  if (isDynamic(b)) return unify(e, b, fb, a, fa, iter)
  // Two composites with vars.
  if (a.k === K.Array && b.k === K.Array) {
    if (a.items.length !== b.items.length) return false
    return unifyArrays(e, a.items, fa, b.items, fb, 0, iter)
  }
  if (a.k === K.Object && b.k === K.Object) {
    if (a.entries.length !== b.entries.length) return false
    return unifyObjects(e, a.entries, fa, b.entries, fb, 0, iter)
  }
  const pa = plug(a, fa)
  const pb = plug(b, fb)
  if (pa !== undefined && pb !== undefined) return same(pa, pb) ? iter() : false
  // Sets (or a set and an object) with unknown members: saved whole, as above.
  if (e.partial() && (e.unknown(a, fa) || e.unknown(b, fb))) return e.saveUnify(a, fa, b, fb, iter)
  return false
}

/**
 * The value `v` (the left side `a`, plugged) unified with `b`. During partial evaluation an unknown
 * `b` is saved after the value, as OPA writes it (`1 = input.x`, and `y = input.y` with `y` bound
 * to 2 becomes `2 = input.y`), rather than swapped.
 */
function valueFirst(e: Evaluator, v: Value, a: PTerm, fa: Frame, b: PTerm, fb: Frame, iter: Iter): boolean {
  if (e.partial() && (b.k === K.Ref || b.k === K.Var) && e.unknown(b, fb)) {
    return e.saveUnify({ k: K.Value, v, src: a.src }, fa, b, fb, iter)
  }
  return unifyValue(e, b, fb, v, iter)
}

/**
 * Unifies `other` with `v`, the value of a virtual document: an unknown `other` is saved after the
 * value, as OPA writes a rule's value against the other side (`"foo" = input.x`).
 */
export function unifyWithRuleValue(e: Evaluator, v: Value, other: PTerm, fo: Frame, iter: Iter): boolean {
  return valueFirst(e, v, { k: K.Value, v, src: valueToTerm(v) }, fo, other, fo, iter)
}

/**
 * OPA's biunifyValues when a side is unknown: a ref that is not unknown is evaluated first and its
 * value saved against the other side (`input.fruits.colour = input.fav` becomes `"green" =
 * input.fruits.colour`, the value first as OPA writes it); otherwise `a = b` is saved as it is.
 */
function unifyPartial(
  e: Evaluator,
  a: PTerm,
  fa: Frame,
  ua: boolean,
  b: PTerm,
  fb: Frame,
  ub: boolean,
  iter: Iter,
): boolean {
  if (a.k === K.Ref && !ua) return evalThenUnify(e, a, fa, b, fb, iter)
  if (b.k === K.Ref && !ub) return evalThenUnify(e, b, fb, a, fa, iter)
  return e.saveUnify(a, fa, b, fb, iter)
}

/** Evaluates the known ref `known`, then unifies each value with `other` (saved when unknown). */
function evalThenUnify(e: Evaluator, known: PTerm, fk: Frame, other: PTerm, fo: Frame, iter: Iter): boolean {
  return e.evalTermValues(known, fk, (v) => {
    if ((other.k === K.Var || isDynamic(other)) && e.unknown(other, fo)) {
      return e.saveUnify({ k: K.Value, v, src: known.src }, fk, other, fo, iter)
    }
    return unifyValue(e, other, fo, v, iter)
  })
}

/**
 * `a = b` with `a` an unbound var. `swapped` when the var was written on the right (`input = x`):
 * a saved unification then keeps the sides in the order written, as OPA's biunify saves them.
 */
function unifyUnboundVar(
  e: Evaluator,
  a: PTerm & { k: K.Var },
  fa: Frame,
  b: PTerm,
  fb: Frame,
  iter: Iter,
  swapped = false,
): boolean {
  const saveAsWritten = (): boolean =>
    swapped ? e.saveUnify(b, fb, a, fa, iter) : e.saveUnify(a, fa, b, fb, iter)
  if (e.pe?.unknownVars(a, fa, b, fb)) {
    if (b.k === K.Ref && !e.unknown(b, fb)) return evalThenUnify(e, b, fb, a, fa, iter)
    return saveAsWritten()
  }
  if (b.k === K.Var) {
    const bb = fb.s[b.slot]
    if (bb !== undefined) {
      if (bb instanceof TermBinding) return unify(e, a, fa, bb.term, bb.frame, iter)
      return unifyValue(e, a, fa, bb, iter)
    }
    if (fa === fb && a.slot === b.slot) return iter()
    return bindValue(fa, a.slot, new TermBinding(b, fb), iter)
  }
  if (isDynamic(b)) {
    if (e.partial() && (e.unknown(b, fb) || e.saveSet?.containsVar(fa, a.slot))) return saveAsWritten()
    // Evaluating `b` can bind `a` itself (`foo = input.foos[foo]`, as `foo == input.foos[foo]`
    // becomes once RewriteEquals ran): the value is then checked against that binding.
    return e.evalTermValues(b, fb, (v) => unifyValue(e, a, fa, v, iter))
  }
  const v = plug(b, fb)
  if (v !== undefined) return unifyValue(e, a, fa, v, iter)
  return bindValue(fa, a.slot, new TermBinding(b, fb), iter)
}

function unifyArrays(
  e: Evaluator,
  a: PTerm[],
  fa: Frame,
  b: PTerm[],
  fb: Frame,
  i: number,
  iter: Iter,
): boolean {
  if (i === a.length) return iter()
  return unify(e, a[i] as PTerm, fa, b[i] as PTerm, fb, () => unifyArrays(e, a, fa, b, fb, i + 1, iter))
}

function unifyObjects(
  e: Evaluator,
  a: Array<[PTerm, PTerm]>,
  fa: Frame,
  b: Array<[PTerm, PTerm]>,
  fb: Frame,
  i: number,
  iter: Iter,
): boolean {
  if (i === a.length) return iter()
  const [ka, va] = a[i] as [PTerm, PTerm]
  const key = plug(ka, fa)
  if (key === undefined) return false
  for (const [kb, vb] of b) {
    const k2 = plug(kb, fb)
    if (k2 !== undefined && same(key, k2)) {
      return unify(e, va, fa, vb, fb, () => unifyObjects(e, a, fa, b, fb, i + 1, iter))
    }
  }
  return false
}
