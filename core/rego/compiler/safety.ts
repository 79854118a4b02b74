/**
 * Safety analysis: which variables an expression binds (its output vars) given the vars already
 * bound, and the reordering of a body so that every expression only reads bound vars. This is the
 * heart of OPA's `reorderBodyForSafety`; the evaluator relies on the resulting order.
 */
import type { Body, Expr, Location, Term } from '../syntax/ast.js'
import { isComprehension, isEquality, isEvery } from './terms.js'
import { addAll, collectVars, diff, SAFETY_PARAMS, type VarVisitorParams, varsOf } from './vars.js'

/** Vars that are always bound. */
export const RESERVED_VARS: ReadonlySet<string> = new Set(['data', 'input'])

/** Arity of a function ref, or -1 when it is not a function. */
export type ArityFn = (ref: Term[]) => number

const UNIFY_PARAMS: VarVisitorParams = { skipRefHead: true, skipObjectKeys: true, skipClosures: true }

/** Vars known to be bound: a set, or a view over several (only `has` is read). */
export type BoundVars = Pick<ReadonlySet<string>, 'has'>

/** Vars that unifying `a` and `b` makes safe, given `safe` (OPA's `ast.Unify`). */
export function unifyVars(safe: BoundVars, a: Term, b: Term): Set<string> {
  const unified = new Set<string>()
  const unknown = new Map<string, Set<string>>()
  const isSafe = (v: string) => safe.has(v) || unified.has(v)
  const markSafe = (v: string): void => {
    unified.add(v)
    const deps = unknown.get(v)
    unknown.delete(v)
    if (deps) for (const d of deps) markSafe(d)
    for (const [w, ds] of [...unknown]) {
      if (ds.has(v)) {
        ds.delete(v)
        if (ds.size === 0) markSafe(w)
      }
    }
  }
  const markUnknown = (a: string, b: string): void => {
    let s = unknown.get(a)
    if (!s) {
      s = new Set()
      unknown.set(a, s)
    }
    s.add(b)
  }
  const markAllSafe = (t: Term): void => {
    for (const v of varsOf(t, UNIFY_PARAMS)) markSafe(v)
  }
  const unifyAll = (a: string, b: Term): void => {
    if (isSafe(a)) {
      markAllSafe(b)
      return
    }
    const unsafe = [...varsOf(b, UNIFY_PARAMS)].filter((v) => !safe.has(v) && !unified.has(v))
    if (unsafe.length === 0) markSafe(a)
    else for (const v of unsafe) markUnknown(a, v)
  }
  // As OPA's unifier, a ref or call is bound only by the vars bound before this unification, not
  // by those it binds itself (`[x, y] = [input, x[0]]` binds x, not y); a ref's head may be any
  // term whose vars are bound (`x = [][i]`, as `some i, x in []` is rewritten).
  const allBound = (t: Term): boolean => {
    for (const v of varsOf(t, SAFETY_PARAMS)) if (!safe.has(v)) return false
    return true
  }
  const refHeadSafe = (r: Term[]): boolean => {
    const h = r[0]
    if (!h) return false
    return h.type === 'var' ? safe.has(h.value) : allBound(h)
  }
  const unify = (a: Term, b: Term): void => {
    switch (a.type) {
      case 'var':
        switch (b.type) {
          case 'var':
            if (isSafe(b.value)) markSafe(a.value)
            else if (isSafe(a.value)) markSafe(b.value)
            else {
              markUnknown(a.value, b.value)
              markUnknown(b.value, a.value)
            }
            return
          case 'array':
          case 'object':
            unifyAll(a.value, b)
            return
          case 'ref':
            if (refHeadSafe(b.value)) markSafe(a.value)
            return
          case 'call':
            if (allBound(b)) markSafe(a.value)
            return
          default:
            markSafe(a.value)
            return
        }
      case 'ref':
      case 'call':
        if (a.type === 'ref' ? refHeadSafe(a.value) : allBound(a)) {
          if (b.type === 'var') markSafe(b.value)
          else if (b.type === 'array' || b.type === 'object') markAllSafe(b)
        }
        return
      case 'arraycomprehension':
        if (b.type === 'var') markSafe(b.value)
        else if (b.type === 'array') markAllSafe(b)
        return
      case 'objectcomprehension':
        if (b.type === 'var') markSafe(b.value)
        else if (b.type === 'object') markAllSafe(b)
        return
      case 'setcomprehension':
        if (b.type === 'var') markSafe(b.value)
        return
      case 'array':
        switch (b.type) {
          case 'var':
            unifyAll(b.value, a)
            return
          case 'arraycomprehension':
          case 'objectcomprehension':
          case 'setcomprehension':
            markAllSafe(a)
            return
          case 'ref':
            if (refHeadSafe(b.value)) markAllSafe(a)
            return
          case 'call':
            if (allBound(b)) markAllSafe(a)
            return
          case 'array':
            if (a.value.length === b.value.length) {
              for (let i = 0; i < a.value.length; i++) unify(a.value[i] as Term, b.value[i] as Term)
            }
            return
        }
        return
      case 'object':
        switch (b.type) {
          case 'var':
            unifyAll(b.value, a)
            return
          case 'ref':
            if (refHeadSafe(b.value)) markAllSafe(a)
            return
          case 'call':
            if (allBound(b)) markAllSafe(a)
            return
          case 'object':
            if (a.value.length === b.value.length) {
              for (const [k, v] of a.value) {
                const kk = JSON.stringify(stripLoc(k))
                const match = b.value.find(([k2]) => JSON.stringify(stripLoc(k2)) === kk)
                if (match) unify(v, match[1])
              }
            }
            return
        }
        return
      default:
        if (b.type === 'var') markSafe(b.value)
    }
  }
  unify(a, b)
  return unified
}

function stripLoc(t: Term): unknown {
  return JSON.parse(JSON.stringify(t, (k, v) => (k === 'location' ? undefined : v)))
}

/** True when a ref's head is bound. */
export function isRefSafe(ref: Term[], safe: Set<string>): boolean {
  const head = ref[0]
  if (!head) return false
  if (head.type === 'var') return safe.has(head.value)
  // A call or composite head (`split(s, ".")[i]`, `[1, x][i]`): its vars, not a call's name.
  for (const v of varsOf(head, SAFETY_PARAMS)) if (!safe.has(v)) return false
  return true
}

/** Vars output by refs within `node` whose heads are safe (`data.x[i]` outputs `i`). */
export function outputVarsForTerms(
  node: Term | Expr | Term[],
  safe: Set<string>,
  out = new Set<string>(),
): Set<string> {
  const visit = (t: Term): void => {
    if (isComprehension(t) || t.type === 'templatestring') return
    if (t.type === 'ref') {
      if (!isRefSafe(t.value, safe)) return
      collectVars(t, { skipRefHead: true }, out)
      for (const x of t.value) visit(x)
      return
    }
    switch (t.type) {
      case 'array':
      case 'set':
      case 'call':
        for (const x of t.value) visit(x)
        return
      case 'object':
        for (const [k, v] of t.value) {
          visit(k)
          visit(v)
        }
        return
    }
  }
  if (Array.isArray(node)) for (const t of node) visit(t)
  else if (node.type === 'expr') {
    const ts = node.terms
    if (Array.isArray(ts)) for (const t of ts) visit(t)
    else if (ts.type === 'every') visit(ts.domain)
    else if (ts.type !== 'somedecl' && ts.type !== 'not' && ts.type !== 'and' && ts.type !== 'or') visit(ts)
    for (const w of node.with ?? []) {
      visit(w.target)
      visit(w.value)
    }
  } else visit(node)
  return out
}

/** Output vars of `a = b` given `safe`. */
export function outputVarsForExprEq(expr: Expr, safe: Set<string>): Set<string> {
  const ts = expr.terms as Term[]
  if (ts.length !== 3) return new Set(safe)
  const output = outputVarsForTerms(expr, safe)
  // A view rather than a union: copying `safe` would make each expression of a long body cost as
  // much as all the vars bound before it.
  const bound: BoundVars = { has: (v) => output.has(v) || safe.has(v) }
  addAll(output, unifyVars(bound, ts[1] as Term, ts[2] as Term))
  return diff(output, safe)
}

function outputVarsForExprCall(expr: Expr, arity: number, safe: Set<string>, terms: Term[]): Set<string> {
  const output = outputVarsForTerms(expr, safe)
  const numInputTerms = arity + 1
  if (numInputTerms >= terms.length) return output
  const params: VarVisitorParams = {
    skipClosures: true,
    skipSets: true,
    skipObjectKeys: true,
    skipRefHead: true,
  }
  const inputs = varsOf(terms.slice(0, numInputTerms), params)
  for (const v of inputs) if (!output.has(v) && !safe.has(v)) return new Set()
  addAll(output, varsOf(terms.slice(numInputTerms), params))
  return output
}

/** The vars an expression binds, given the vars already bound. */
export function outputVarsForExpr(expr: Expr, arity: ArityFn, safe: Set<string>): Set<string> {
  if (expr.negated) return new Set()
  for (const w of expr.with ?? []) {
    for (const v of varsOf(w, SAFETY_PARAMS)) if (!safe.has(v)) return new Set()
  }
  const ts = expr.terms
  if (Array.isArray(ts)) {
    if (isEquality(expr)) return outputVarsForExprEq(expr, safe)
    const op = ts[0]
    if (op?.type !== 'ref') return new Set()
    const ar = arity(op.value)
    if (ar < 0) return new Set()
    return outputVarsForExprCall(expr, ar, safe, ts)
  }
  if (ts.type === 'every') return outputVarsForTerms(ts.domain, safe)
  if (ts.type === 'somedecl' || ts.type === 'not') return new Set()
  return outputVarsForTerms(expr, safe)
}

/** Vars made safe by a whole body. */
export function outputVarsForBody(body: Body, arity: ArityFn, safe: Set<string>): Set<string> {
  const o = new Set(safe)
  for (const e of body) addAll(o, outputVarsForExpr(e, arity, o))
  return diff(o, safe)
}

/** Unsafe vars per expression, as the reordering reports them. */
export type UnsafeVars = Map<Expr, Set<string>>

/**
 * Reorders `body` so that left-to-right evaluation never reads an unbound var; nested closures
 * (comprehensions, `every`) are reordered in place. Returns the reordered body and the unsafe
 * vars left (empty when the body is safe).
 */
export function reorderBodyForSafety(
  arity: ArityFn,
  globals: Set<string>,
  body: Body,
): { body: Body; unsafe: UnsafeVars } {
  const bodyVars = varsOf(body, SAFETY_PARAMS)
  const safe = new Set([...bodyVars].filter((v) => globals.has(v)))
  const unsafe: UnsafeVars = new Map()
  for (const e of body) {
    for (const v of varsOf(e, SAFETY_PARAMS)) {
      if (!safe.has(v)) addUnsafe(unsafe, e, v)
    }
  }
  const reordered: Body = []
  const added = new Set<Expr>()
  let boundBy = { vars: new Set<string>(), length: -1 }
  // An expression refused on one pass is refused again on the next unless one of its vars was
  // bound in between (what decides is which of its vars are bound; closures aside, which also
  // read the prefix): such expressions are `settled` and passed over until then. A body written
  // last expression first needs one pass per expression, each of which examined them all.
  const settled = new Set<Expr>()
  const readers = new Map<string, Expr[]>()
  for (const e of body) {
    for (const v of varsOf(e)) {
      const list = readers.get(v)
      if (list) list.push(e)
      else readers.set(v, [e])
    }
  }
  for (;;) {
    const n = reordered.length
    for (const e of body) {
      if (added.has(e) || settled.has(e)) continue
      const ovs = outputVarsForExpr(e, arity, safe)
      const cv = diff(intersect(closureVars(e), bodyVars), globals)
      // The closure vars the reordered prefix does not bind. The prefix's output vars never
      // include `safe` ones, so closures that read only safe vars need not compute them; the
      // others do so only after the prefix grew (once per expression made long bodies cubic).
      let uv = cv
      if (cv.size > 0 && !isSubset(cv, safe)) {
        if (boundBy.length !== reordered.length) {
          boundBy = { vars: outputVarsForBody(reordered, arity, safe), length: reordered.length }
        }
        uv = diff(cv, boundBy.vars)
      }
      if (uv.size > 0) {
        if (setsEqual(uv, ovs)) continue
        unsafe.set(e, uv)
      }
      const u = unsafe.get(e)
      if (u) for (const v of [...u]) if (ovs.has(v) || safe.has(v)) u.delete(v)
      if (!u || u.size === 0) {
        unsafe.delete(e)
        reordered.push(e)
        added.add(e)
        for (const v of ovs) {
          if (safe.has(v)) continue
          safe.add(v)
          for (const r of readers.get(v) ?? []) settled.delete(r)
        }
      } else if (cv.size === 0) {
        settled.add(e)
      }
    }
    if (reordered.length === n) break
  }
  const g = new Set(globals)
  for (const [i, e] of reordered.entries()) {
    if (i > 0) addAll(g, varsOf(reordered[i - 1] as Expr, SAFETY_PARAMS))
    reorderClosures(arity, e, e, g, unsafe)
  }
  return { body: reordered, unsafe }
}

function addUnsafe(unsafe: UnsafeVars, e: Expr, v: string): void {
  let s = unsafe.get(e)
  if (!s) {
    s = new Set()
    unsafe.set(e, s)
  }
  s.add(v)
}

/** Vars used inside the closures (comprehensions, every bodies) of an expression. */
function closureVars(e: Expr): Set<string> {
  const out = new Set<string>()
  const visitTerm = (t: Term): void => {
    switch (t.type) {
      case 'arraycomprehension':
      case 'setcomprehension':
      case 'objectcomprehension':
      case 'templatestring':
        collectVars(t, {}, out)
        return
      case 'ref':
      case 'array':
      case 'set':
      case 'call':
        for (const x of t.value) visitTerm(x)
        return
      case 'object':
        for (const [k, v] of t.value) {
          visitTerm(k)
          visitTerm(v)
        }
        return
    }
  }
  const ts = e.terms
  if (Array.isArray(ts)) for (const t of ts) visitTerm(t)
  else if (ts.type === 'every') {
    collectVars(ts.body, {}, out)
    visitTerm(ts.domain)
  } else if (ts.type === 'not') collectVars(ts.body, {}, out)
  else if (ts.type === 'and' || ts.type === 'or') collectVars([...ts.lhs, ...ts.rhs], {}, out)
  else if (ts.type !== 'somedecl') visitTerm(ts)
  for (const w of e.with ?? []) visitTerm(w.value)
  return out
}

/** Reorders the bodies of the closures inside `node`, recording unsafe vars against `current`. */
function reorderClosures(
  arity: ArityFn,
  node: Expr | Term,
  current: Expr,
  globals: Set<string>,
  unsafe: UnsafeVars,
): void {
  const reorder = (termVars: Set<string>, body: Body): Body => {
    const bv = varsOf(body, SAFETY_PARAMS)
    addAll(bv, globals)
    for (const v of termVars) if (!bv.has(v)) addUnsafe(unsafe, current, v)
    const r = reorderBodyForSafety(arity, globals, body)
    if (r.unsafe.size === 0) return r.body
    for (const [k, vs] of r.unsafe) for (const v of vs) addUnsafe(unsafe, k, v)
    return body
  }
  const visit = (t: Term): void => {
    switch (t.type) {
      case 'arraycomprehension':
      case 'setcomprehension':
        t.value.body = reorder(varsOf(t.value.term), t.value.body)
        return
      case 'objectcomprehension': {
        const tv = varsOf(t.value.key)
        collectVars(t.value.value, {}, tv)
        t.value.body = reorder(tv, t.value.body)
        return
      }
      case 'ref':
      case 'array':
      case 'set':
      case 'call':
        for (const x of t.value) visit(x)
        return
      case 'object':
        for (const [k, v] of t.value) {
          visit(k)
          visit(v)
        }
        return
    }
  }
  if (node.type !== 'expr') {
    visit(node)
    return
  }
  const ts = node.terms
  if (Array.isArray(ts)) for (const t of ts) visit(t)
  else if (isEvery(node)) {
    const ev = node.terms
    if (ev.key) collectVars(ev.key, {}, globals)
    collectVars(ev.value, {}, globals)
    ev.body = reorder(new Set(), ev.body)
  } else if (ts.type === 'not') ts.body = reorder(new Set(), ts.body)
  else if (ts.type !== 'somedecl') visit(ts as Term)
  for (const w of node.with ?? []) visit(w.value)
}

function intersect(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>()
  for (const x of a) if (b.has(x)) out.add(x)
  return out
}

function isSubset(a: Set<string>, b: Set<string>): boolean {
  for (const x of a) if (!b.has(x)) return false
  return true
}

function setsEqual(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && isSubset(a, b)
}

/** Orders locations as OPA does: by file, then row, then column. */
export function compareLocations(a: Location | undefined, b: Location | undefined): number {
  if (!a) return b ? -1 : 0
  if (!b) return 1
  if (a.file !== b.file) return a.file < b.file ? -1 : 1
  if (a.row !== b.row) return a.row - b.row
  return a.col - b.col
}
