/**
 * RewriteExprTerms: nested calls become their own expressions with generated output vars, so each
 * expression the evaluator sees is a single call, unification or term: `x = count(a) + 1` becomes
 * `count(a, __local0__); plus(__local0__, 1, __local1__); x = __local1__`. Composite ref heads
 * (`[1, 2][i]`) are bound to a var first. As in OPA, the `not` of an expression does not cover
 * the extracted calls (open-policy-agent/opa#1877).
 */
import type { Body, Expr, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { equalityExpr } from '../terms.js'

/** The stage. */
export function rewriteExprTerms(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        rewriteExprTermsInHead(c.localVarGen, r)
        r.body = rewriteExprTermsInBody(c.localVarGen, r.body)
      }
    }
  }
}

function rewriteExprTermsInHead(gen: LocalVarGenerator, rule: Rule): void {
  const h = rule.head
  if (h.args) {
    h.args = h.args.map((a) => {
      const { support, output } = expandExprTerm(gen, a)
      rule.body.push(...support)
      return output
    })
  }
  if (h.key) {
    const { support, output } = expandExprTerm(gen, h.key)
    rule.body.push(...support)
    h.key = output
  }
  if (h.value) {
    const { support, output } = expandExprTerm(gen, h.value)
    rule.body.push(...support)
    h.value = output
  }
}

/** Rewrites every expression of a body. */
export function rewriteExprTermsInBody(gen: LocalVarGenerator, body: Body): Body {
  const out: Body = []
  for (const e of body) out.push(...expandExpr(gen, e))
  return out
}

function expandExpr(gen: LocalVarGenerator, expr: Expr): Expr[] {
  const result: Expr[] = []
  for (const w of expr.with ?? []) {
    const { support, output } = expandExprTerm(gen, w.value)
    w.value = output
    result.push(...support)
  }
  const ts = expr.terms
  if (Array.isArray(ts)) {
    for (let i = 1; i < ts.length; i++) {
      const { support, output } = expandExprTerm(gen, ts[i] as Term)
      ts[i] = output
      if (expr.with) for (const s of support) s.with = expr.with
      result.push(...support)
    }
    result.push(expr)
  } else if (ts.type === 'every') {
    const v = gen.generateTerm(ts.domain.location)
    const eq = equalityExpr(v, ts.domain, ts.domain.location)
    if (expr.with) eq.with = expr.with
    const extras = expandExpr(gen, eq)
    ts.domain = v
    ts.body = rewriteExprTermsInBody(gen, ts.body)
    result.push(...extras, expr)
  } else if (ts.type === 'somedecl') {
    result.push(expr)
  } else if (ts.type === 'not') {
    // The point of the not-body: what the compiler expands stays inside the negation.
    ts.body = rewriteExprTermsInBody(gen, ts.body)
    result.push(expr)
  } else if (ts.type === 'and' || ts.type === 'or') {
    // Lowered to not-bodies before the stages run (lower-logical-exprs.ts); kept whole if not.
    ts.lhs = rewriteExprTermsInBody(gen, ts.lhs)
    ts.rhs = rewriteExprTermsInBody(gen, ts.rhs)
    result.push(expr)
  } else {
    const { support, output } = expandExprTerm(gen, ts)
    if (expr.with) for (const s of support) s.with = expr.with
    result.push(...support)
    expr.terms = output
    result.push(expr)
  }
  return result
}

/** Extracts nested calls from a term: the expressions to run first and the term to use instead. */
export function expandExprTerm(gen: LocalVarGenerator, term: Term): { support: Expr[]; output: Term } {
  const support: Expr[] = []
  switch (term.type) {
    case 'call': {
      for (let i = 1; i < term.value.length; i++) {
        const r = expandExprTerm(gen, term.value[i] as Term)
        support.push(...r.support)
        term.value[i] = r.output
      }
      const output = gen.generateTerm(term.location)
      const expr: Expr = { type: 'expr', index: 0, terms: [...term.value, output], generated: true }
      if (term.location) expr.location = term.location
      support.push(expr)
      return { support, output }
    }
    case 'ref': {
      for (let i = 0; i < term.value.length; i++) {
        const r = expandExprTerm(gen, term.value[i] as Term)
        support.push(...r.support)
        term.value[i] = r.output
      }
      const subject = term.value[0] as Term
      switch (subject.type) {
        case 'array':
        case 'object':
        case 'set':
        case 'arraycomprehension':
        case 'setcomprehension':
        case 'objectcomprehension':
        case 'call': {
          const v = gen.generateTerm(subject.location)
          support.push(equalityExpr(v, subject, subject.location))
          term.value[0] = v
        }
      }
      return { support, output: term }
    }
    case 'array':
      for (let i = 0; i < term.value.length; i++) {
        const r = expandExprTerm(gen, term.value[i] as Term)
        support.push(...r.support)
        term.value[i] = r.output
      }
      return { support, output: term }
    case 'object': {
      const entries: Array<[Term, Term]> = term.value.map(([k, v]) => {
        const rk = expandExprTerm(gen, k)
        const rv = expandExprTerm(gen, v)
        support.push(...rk.support, ...rv.support)
        return [rk.output, rv.output]
      })
      return { support, output: { ...term, value: entries } }
    }
    case 'set': {
      const items = term.value.map((x) => {
        const r = expandExprTerm(gen, x)
        support.push(...r.support)
        return r.output
      })
      return { support, output: { ...term, value: items } }
    }
    case 'arraycomprehension':
    case 'setcomprehension': {
      const r = expandExprTerm(gen, term.value.term)
      term.value.body.push(...r.support)
      term.value.term = r.output
      term.value.body = rewriteExprTermsInBody(gen, term.value.body)
      return { support, output: term }
    }
    case 'objectcomprehension': {
      const rk = expandExprTerm(gen, term.value.key)
      term.value.body.push(...rk.support)
      term.value.key = rk.output
      const rv = expandExprTerm(gen, term.value.value)
      term.value.body.push(...rv.support)
      term.value.value = rv.output
      term.value.body = rewriteExprTermsInBody(gen, term.value.body)
      return { support, output: term }
    }
  }
  return { support, output: term }
}
