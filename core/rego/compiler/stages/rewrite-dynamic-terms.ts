/**
 * RewriteDynamicTerms: refs and comprehensions nested inside call arguments and composite terms are
 * bound to vars by expressions placed before their user, which makes evaluation eager and keeps
 * every call operand a plain value: `foo(data.bar) = 1` becomes `__local0__ = data.bar;
 * foo(__local0__) = 1`.
 */
import type { Body, Expr, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { equalityExpr, isEquality } from '../terms.js'

/** The stage. */
export function rewriteDynamicTerms(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) r.body = rewriteDynamics(c.localVarGen, r.body)
    }
  }
}

/** Rewrites a body. */
export function rewriteDynamics(gen: LocalVarGenerator, body: Body): Body {
  const result: Body = []
  for (const expr of body) {
    const ts = expr.terms
    if (isEquality(expr)) {
      const terms = ts as Term[]
      terms[1] = rewriteDynamicsInTerm(gen, expr, terms[1] as Term, result)
      terms[2] = rewriteDynamicsInTerm(gen, expr, terms[2] as Term, result)
    } else if (Array.isArray(ts)) {
      for (let i = 1; i < ts.length; i++) ts[i] = rewriteDynamicsOne(gen, expr, ts[i] as Term, result)
    } else if (ts.type === 'every') {
      ts.domain = rewriteDynamicsOne(gen, expr, ts.domain, result)
      ts.body = rewriteDynamics(gen, ts.body)
    } else if (ts.type === 'not') {
      ts.body = rewriteDynamics(gen, ts.body)
    } else if (ts.type !== 'somedecl' && ts.type !== 'and' && ts.type !== 'or') {
      expr.terms = rewriteDynamicsInTerm(gen, expr, ts, result)
    }
    result.push(expr)
  }
  return result
}

function rewriteDynamicsInTerm(gen: LocalVarGenerator, original: Expr, term: Term, result: Body): Term {
  switch (term.type) {
    case 'ref':
      for (let i = 1; i < term.value.length; i++) {
        term.value[i] = rewriteDynamicsOne(gen, original, term.value[i] as Term, result)
      }
      return term
    case 'arraycomprehension':
    case 'setcomprehension':
    case 'objectcomprehension':
      term.value.body = rewriteDynamics(gen, term.value.body)
      return term
    default:
      return rewriteDynamicsOne(gen, original, term, result)
  }
}

function generate(gen: LocalVarGenerator, original: Expr, term: Term, result: Body): Term {
  const v = gen.generateTerm(term.location)
  const eq = equalityExpr(v, term, term.location)
  if (original.with) eq.with = original.with
  result.push(eq)
  return v
}

function rewriteDynamicsOne(gen: LocalVarGenerator, original: Expr, term: Term, result: Body): Term {
  switch (term.type) {
    case 'ref':
      for (let i = 1; i < term.value.length; i++) {
        term.value[i] = rewriteDynamicsOne(gen, original, term.value[i] as Term, result)
      }
      return generate(gen, original, term, result)
    case 'array':
      for (let i = 0; i < term.value.length; i++) {
        term.value[i] = rewriteDynamicsOne(gen, original, term.value[i] as Term, result)
      }
      return term
    case 'object':
      return {
        ...term,
        value: term.value.map(([k, v]) => {
          const k2 = rewriteDynamicsOne(gen, original, k, result)
          const v2 = rewriteDynamicsOne(gen, original, v, result)
          return [k2, v2] as [Term, Term]
        }),
      }
    case 'set':
      return { ...term, value: term.value.map((x) => rewriteDynamicsOne(gen, original, x, result)) }
    case 'arraycomprehension':
    case 'setcomprehension':
    case 'objectcomprehension':
      term.value.body = rewriteDynamics(gen, term.value.body)
      return generate(gen, original, term, result)
  }
  return term
}
