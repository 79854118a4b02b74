/**
 * Collecting the variables of AST nodes, with the same knobs as OPA's `VarVisitor` (skip ref heads,
 * call operators, closures, sets, object keys). Safety, local-var rewriting and indexing all depend on
 * exactly which occurrences count, so the knobs are kept one to one.
 */
import type { Body, Every, Expr, LogicalExpr, NotBody, SomeDecl, Term, With } from '../syntax/ast.js'

/** Which occurrences of variables to ignore. */
export interface VarVisitorParams {
  /** Skip `ref[0]` of every ref. */
  skipRefHead?: boolean
  /** Skip the operator of calls and call expressions (ref heads elsewhere are kept). */
  skipRefCallHead?: boolean
  /** Do not descend into comprehensions, template strings and `every` bodies. */
  skipClosures?: boolean
  /** Skip set terms entirely. */
  skipSets?: boolean
  /** Skip object keys (walk values only). */
  skipObjectKeys?: boolean
  /** Skip `with` targets (walk values only). */
  skipWithTarget?: boolean
}

/** The params OPA's safety check uses. */
export const SAFETY_PARAMS: VarVisitorParams = { skipRefCallHead: true, skipClosures: true }

type Node = Term | Expr | Body | With | SomeDecl | Every | NotBody | LogicalExpr | Term[]

/** Collects vars of `node` into a new set. */
export function varsOf(node: Node, params: VarVisitorParams = {}): Set<string> {
  const out = new Set<string>()
  collectVars(node, params, out)
  return out
}

/** Collects vars of `node` into `out`. */
export function collectVars(node: Node, params: VarVisitorParams, out: Set<string>): void {
  if (Array.isArray(node)) {
    for (const x of node) collectVars(x, params, out)
    return
  }
  switch (node.type) {
    case 'expr':
      collectExpr(node, params, out)
      return
    case 'with':
      if (params.skipRefCallHead) {
        // OPA: target and value refs are walked without their heads (`with count as f`).
        if (!params.skipWithTarget && node.target.type === 'ref')
          collectVars(node.target.value.slice(1), params, out)
        if (node.value.type === 'ref') collectVars(node.value.value.slice(1), params, out)
        else collectVars(node.value, params, out)
        return
      }
      if (!params.skipWithTarget) collectVars(node.target, params, out)
      collectVars(node.value, params, out)
      return
    case 'somedecl':
      for (const s of node.symbols) collectVars(s, params, out)
      return
    case 'every':
      if (node.key) collectVars(node.key, params, out)
      collectVars(node.value, params, out)
      collectVars(node.domain, params, out)
      collectVars(node.body, params, out)
      return
    case 'not':
      collectVars(node.body, params, out)
      return
    case 'and':
    case 'or':
      collectVars(node.lhs, params, out)
      collectVars(node.rhs, params, out)
      return
  }
  collectTerm(node, params, out)
}

function collectExpr(expr: Expr, params: VarVisitorParams, out: Set<string>): void {
  const terms = expr.terms
  if (Array.isArray(terms)) {
    if (params.skipRefCallHead) {
      const op = terms[0]
      if (op?.type === 'ref') collectVars(op.value.slice(1), params, out)
      for (let i = 1; i < terms.length; i++) collectVars(terms[i] as Term, params, out)
    } else {
      for (const t of terms) collectVars(t, params, out)
    }
  } else if (terms.type === 'every') {
    if (params.skipClosures) {
      collectVars(terms.domain, params, out)
    } else {
      collectVars(terms, params, out)
    }
  } else if (terms.type === 'not') {
    // A not-body is a closure: what it binds stays inside (OPA's VarVisitor skips it likewise).
    if (!params.skipClosures) collectVars(terms.body, params, out)
  } else if (terms.type === 'and' || terms.type === 'or') {
    // Each side is a closure too (see LogicalExpr).
    if (!params.skipClosures) collectVars([...terms.lhs, ...terms.rhs], params, out)
  } else {
    collectVars(terms, params, out)
  }
  if (expr.with) for (const w of expr.with) collectVars(w, params, out)
}

function collectTerm(t: Term, params: VarVisitorParams, out: Set<string>): void {
  switch (t.type) {
    case 'var':
      out.add(t.value)
      return
    case 'ref': {
      const start = params.skipRefHead ? 1 : 0
      for (let i = start; i < t.value.length; i++) collectTerm(t.value[i] as Term, params, out)
      return
    }
    case 'call': {
      const op = t.value[0]
      if (params.skipRefCallHead && op?.type === 'ref') {
        for (const x of op.value.slice(1)) collectTerm(x, params, out)
      } else if (op) {
        collectTerm(op, params, out)
      }
      for (let i = 1; i < t.value.length; i++) collectTerm(t.value[i] as Term, params, out)
      return
    }
    case 'array':
      for (const x of t.value) collectTerm(x, params, out)
      return
    case 'set':
      if (params.skipSets) return
      for (const x of t.value) collectTerm(x, params, out)
      return
    case 'object':
      for (const [k, v] of t.value) {
        if (!params.skipObjectKeys) collectTerm(k, params, out)
        collectTerm(v, params, out)
      }
      return
    case 'arraycomprehension':
    case 'setcomprehension':
      if (params.skipClosures) return
      collectTerm(t.value.term, params, out)
      collectVars(t.value.body, params, out)
      return
    case 'objectcomprehension':
      if (params.skipClosures) return
      collectTerm(t.value.key, params, out)
      collectTerm(t.value.value, params, out)
      collectVars(t.value.body, params, out)
      return
    case 'templatestring':
      if (params.skipClosures) return
      for (const p of t.value.parts) collectVars(p, params, out)
      return
  }
}

/** Elements of `a` not in `b`. */
export function diff(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>()
  for (const x of a) if (!b.has(x)) out.add(x)
  return out
}

/** Adds every element of `b` to `a`. */
export function addAll(a: Set<string>, b: Iterable<string>): Set<string> {
  for (const x of b) a.add(x)
  return a
}
