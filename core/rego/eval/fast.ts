/**
 * Specialized steps for the expression shapes that dominate real policies, chosen once at prepare
 * time: binding an unbound var to a ref over `input` or a bound local (`x = input.user`,
 * `y = perm.action`). They do exactly what the generic unify/evalRef path does for these shapes,
 * without its closures and dispatch. The evaluator uses them only outside partial evaluation and
 * tracing, and any shape or binding they do not expect falls back to the generic step.
 */
import { isArray, isObject, isSet, type Value } from '../values/index.js'
import { bindValue, type Frame, plug, same, TermBinding } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import { GENERIC, lookupOf, refStart } from './fast-lookup.js'
import { K, type PExpr, type PRef, type PTerm, Root, type VNode, X } from './ir.js'
import { getChild } from './refs.js'

/** A specialized step: returns undefined when it cannot handle the current bindings. */
export type FastStep = (e: Evaluator, frame: Frame, iter: Iter) => boolean | undefined

function child(v: Value, key: Value): Value | undefined {
  if (typeof key === 'string') return isObject(v) ? v.get(key) : isSet(v) && v.has(key) ? key : undefined
  return getChild(v, key)
}

/** The keys of a ref path when every element is a constant or a var (bound at run time). */
function pathSpec(path: PTerm[]): Array<Value | number> | undefined {
  // Constants are kept as values; vars as `~slot` encoded in a parallel kinds array below.
  return path.every((p) => p.k === K.Value || p.k === K.Var)
    ? path.map((p) => (p.k === K.Value ? p.v : p.slot))
    : undefined
}

/** Object keys of base documents are strings: `data.x[2]` reads key "2" (see refs.ts baseChild). */
function baseChild(v: Value, key: Value): Value | undefined {
  const c = child(v, key)
  if (c !== undefined || typeof key !== 'number' || !isObject(v)) return c
  return v.get(String(key))
}

/**
 * `target = head.path` for refs over `input`, a bound local, or a base document outside the rule
 * tree, with constant or bound path elements; a trailing unbound var enumerates the collection.
 */
function refStep(target: number, ref: PRef, root: VNode): FastStep | undefined {
  const spec = pathSpec(ref.path)
  if (!spec) return undefined
  const isVar = ref.path.map((p) => p.k === K.Var)
  const n = spec.length
  const start = refStart(ref, root)
  if (!start) return undefined
  const { headSlot, base } = start
  const lastSlot = n > 0 && isVar[n - 1] ? (spec[n - 1] as number) : -1
  return (e, frame, iter) => {
    const s = frame.s
    if (s[target] !== undefined) return undefined
    let cur: Value | undefined
    if (headSlot >= 0) {
      const h = s[headSlot]
      if (h === undefined || h instanceof TermBinding) return undefined
      cur = h
    } else {
      cur = base ? e.data : e.input
    }
    let stop = n
    if (lastSlot >= 0 && s[lastSlot] === undefined) stop = n - 1
    for (let i = 0; i < stop && cur !== undefined; i++) {
      let key: Value
      if (isVar[i]) {
        const b = s[spec[i] as number]
        if (b === undefined || b instanceof TermBinding) return undefined
        key = b
      } else {
        key = spec[i] as Value
      }
      cur = base ? baseChild(cur, key) : child(cur, key)
    }
    if (cur === undefined) return false
    if (stop === n) return bindValue(frame, target, cur, iter)
    // Enumerate the last path element, binding it and the target.
    if (target === lastSlot) return undefined
    return each(e, cur, (k, v) => {
      s[lastSlot] = k
      s[target] = v
      const r = iter()
      s[target] = undefined
      s[lastSlot] = undefined
      return r
    })
  }
}

function each(e: Evaluator, v: Value, f: (k: Value, v: Value) => boolean): boolean {
  if (isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if ((++e.instructions & 1023) === 0) e.checkLimits()
      if (f(i, v[i] as Value)) return true
    }
    return false
  }
  if (isObject(v)) {
    for (const [k, x] of v.entries()) {
      if ((++e.instructions & 1023) === 0) e.checkLimits()
      if (f(k, x)) return true
    }
    return false
  }
  if (isSet(v)) {
    for (const x of v.values()) {
      if ((++e.instructions & 1023) === 0) e.checkLimits()
      if (f(x, x)) return true
    }
  }
  return false
}

function compareStep(call: NonNullable<PExpr['call']>, root: VNode): FastStep | undefined {
  const compare = call.compare
  if (!compare || call.output) return undefined
  const [x, y] = call.args as [PTerm, PTerm]
  if (x.k === K.Ref || y.k === K.Ref) {
    // `perm.action == input.action`: both sides read directly; a missing path makes it undefined.
    const lx = lookupOf(x, root)
    const ly = lookupOf(y, root)
    if (lx && ly)
      return (e, frame, iter) => {
        if (!e.mocks.empty) return undefined
        const a = lx(e, frame.s)
        if (a === GENERIC) return undefined
        const b = ly(e, frame.s)
        if (b === GENERIC) return undefined
        if (a === undefined || b === undefined) return false
        return compare(a, b) ? iter() : false
      }
  }
  return (e, frame, iter) => {
    if (!e.mocks.empty) return undefined
    const a = plug(x, frame)
    const b = plug(y, frame)
    if (a === undefined || b === undefined) return undefined
    return compare(a, b) ? iter() : false
  }
}

/**
 * `a = b` where neither side is a var and at least one is a plain ref (`perm.action = input.action`
 * after `==` became unification): with both sides ground it is an equality test.
 */
function equalStep(x: PTerm, y: PTerm, root: VNode): FastStep | undefined {
  if (x.k !== K.Ref && y.k !== K.Ref) return undefined
  const lx = lookupOf(x, root)
  const ly = lookupOf(y, root)
  if (!lx || !ly) return undefined
  return (e, frame, iter) => {
    const a = lx(e, frame.s)
    if (a === GENERIC) return undefined
    if (a === undefined) return false
    const b = ly(e, frame.s)
    if (b === GENERIC) return undefined
    if (b === undefined) return false
    // Equal strings are identical; a string never equals another type.
    const equal = typeof a === 'string' ? a === b : same(a, b)
    return equal ? iter() : false
  }
}

/** The specialized step for `expr`, if its shape has one. */
export function fastStep(expr: PExpr, root: VNode): FastStep | undefined {
  if (expr.negated || expr.with) return undefined
  if (expr.kind === X.Call && expr.call) return compareStep(expr.call, root)
  if (expr.kind !== X.Unify) return undefined
  const a = expr.a as PTerm
  const b = expr.b as PTerm
  if (a.k === K.Var && b.k === K.Ref) return refStep(a.slot, b, root)
  if (b.k === K.Var && a.k === K.Ref) return refStep(b.slot, a, root)
  if (a.k === K.Var && b.k === K.Var) return copyStep(a.slot, b.slot)
  if (a.k !== K.Var && b.k !== K.Var) return equalStep(a, b, root)
  return undefined
}

/**
 * `x = y` where one side is unbound and the other bound to a value: what every `x := f(...)`
 * becomes after RewriteExprTerms (`f(..., __local0__)`, then `x = __local0__`).
 */
function copyStep(x: number, y: number): FastStep {
  return (_e, frame, iter) => {
    const vx = frame.s[x]
    const vy = frame.s[y]
    if (vx === undefined && vy !== undefined && !(vy instanceof TermBinding))
      return bindValue(frame, x, vy, iter)
    if (vy === undefined && vx !== undefined && !(vx instanceof TermBinding))
      return bindValue(frame, y, vx, iter)
    return undefined
  }
}

/** True for `x = input.a.b` (constant path) where nothing before it mentions `x`. */
function hoistable(expr: PExpr): number | undefined {
  if (expr.negated || expr.with || expr.kind !== X.Unify) return undefined
  const a = expr.a as PTerm
  const b = expr.b as PTerm
  const pick = (v: PTerm, r: PTerm): number | undefined =>
    v.k === K.Var && r.k === K.Ref && r.root === Root.Input && r.path.every((p) => p.k === K.Value)
      ? v.slot
      : undefined
  return pick(a, b) ?? pick(b, a)
}

/** Adds the slots of every var `expr` mentions (closures included) to `out`. */
export function collectSlots(expr: PExpr, out: Set<number>): void {
  const visit = (t: PTerm | undefined): void => {
    if (!t) return
    switch (t.k) {
      case K.Var:
        out.add(t.slot)
        return
      case K.Ref:
        if (t.head) visit(t.head)
        for (const p of t.path) visit(p)
        return
      case K.Array:
      case K.Set:
        for (const x of t.items) visit(x)
        return
      case K.Object:
        for (const [k, v] of t.entries) {
          visit(k)
          visit(v)
        }
        return
      case K.ArrayCompr:
      case K.SetCompr:
        visit(t.term)
        for (const e of t.body) collectSlots(e, out)
        return
      case K.ObjectCompr:
        visit(t.key)
        visit(t.value)
        for (const e of t.body) collectSlots(e, out)
        return
    }
  }
  visit(expr.a)
  visit(expr.b)
  visit(expr.term)
  for (const t of expr.call?.args ?? []) visit(t)
  visit(expr.call?.output)
  if (expr.every) {
    visit(expr.every.domain)
    visit(expr.every.key)
    visit(expr.every.value)
    for (const e of expr.every.body) collectSlots(e, out)
  }
  for (const w of expr.with ?? []) visit(w.value)
}

/**
 * The body with loop-invariant lookups of `input` moved to the front: `x = input.action` after a
 * `some perm in ...` generator is evaluated once instead of once per element. Such a lookup has
 * one solution or none and no side effects, so the set of solutions and their order are the
 * same. Returns the body itself when nothing moves. Not used during partial evaluation or
 * tracing, where OPA's expression order is observable.
 */
export function hoistInvariants(body: PExpr[], root: VNode): PExpr[] {
  const front: PExpr[] = []
  const rest: PExpr[] = []
  let pure = true
  // Slots mentioned by the expressions before the current one, kept as the loop goes (asking each
  // earlier expression again made long bodies quadratic).
  const mentioned = new Set<number>()
  for (const [i, expr] of body.entries()) {
    const slot = hoistable(expr)
    if (slot !== undefined && i > 0 && pure && !mentioned.has(slot)) front.push(expr)
    else rest.push(expr)
    // Only move past expressions that cannot raise errors: pure lookups and comparisons.
    if (!pureExpr(expr, root)) pure = false
    if (pure) collectSlots(expr, mentioned)
  }
  return front.length === 0 ? body : [...front, ...rest]
}

function pureExpr(expr: PExpr, root: VNode): boolean {
  if (expr.negated || expr.with || expr.every) return false
  if (expr.kind === X.Call) {
    const c = expr.call
    return c !== undefined && c.compare !== undefined && c.args.every((t) => pureTerm(t, root))
  }
  return [expr.a, expr.b, expr.term].every((t) => t === undefined || pureTerm(t, root))
}

/** Terms whose evaluation cannot fail with an error: no comprehensions, no virtual documents. */
function pureTerm(t: PTerm, root: VNode): boolean {
  switch (t.k) {
    case K.Value:
    case K.Var:
      return true
    case K.Array:
    case K.Set:
      return t.items.every((x) => pureTerm(x, root))
    case K.Object:
      return t.entries.every(([k, v]) => pureTerm(k, root) && pureTerm(v, root))
    case K.Ref: {
      if (!t.path.every((p) => pureTerm(p, root))) return false
      if (t.root === Root.Term) return t.head !== undefined && pureTerm(t.head, root)
      if (t.root === Root.Input) return true
      let node: VNode | undefined = root
      for (const p of t.path) {
        if (!node) return true
        if (p.k !== K.Value) return false
        node = node.child(p.v)
        if (node?.ruleSet) return false
      }
      return node === undefined
    }
    default:
      return false
  }
}
