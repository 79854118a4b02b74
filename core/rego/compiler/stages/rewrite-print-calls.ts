/**
 * RewritePrintCalls: with printing enabled, `print(a, b)` becomes `internal.print([{x | x = a},
 * {y | y = b}])` so an undefined operand prints as `<undefined>` instead of cancelling the call;
 * with printing disabled, print calls are erased (as OPA does).
 */
import { compileError, type RegoError } from '../../errors.js'
import type { Body, Expr, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { type ArityFn, outputVarsForBody, RESERVED_VARS } from '../safety.js'
import {
  equalityExpr,
  isGeneratedVar,
  isOperator,
  operatorTerm,
  someTerm,
  trueBody,
  walkTerms,
} from '../terms.js'
import { collectVars, SAFETY_PARAMS, varsOf } from '../vars.js'

/** The stage. */
export function rewritePrintCalls(c: Compiler): void {
  const arity: ArityFn = (ref) => c.getArity(ref)
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        if (!c.options.enablePrintStatements) {
          r.body = erasePrintCalls(r.body)
          continue
        }
        // The rewrite needs the safe vars before each expression, a costly analysis, so bodies
        // without a print call (nearly all of them) are passed over.
        if (!someTerm(r.body, isPrintOperator)) continue
        const globals = new Set(RESERVED_VARS)
        if (r.head.args) collectVars(r.head.args, {}, globals)
        const errs = rewritePrintCallsInBody(c.localVarGen, arity, globals, r.body)
        if (!c.err(...errs)) return
      }
    }
  }
}

function isPrintCall(e: Expr): boolean {
  return Array.isArray(e.terms) && isOperator(e.terms[0], 'print')
}

function isPrintOperator(t: Term): boolean {
  return isOperator(t, 'print')
}

/** Removes print calls from `body` and the bodies nested in it. */
export function erasePrintCalls(body: Body): Body {
  for (const e of body) eraseInClosures(e)
  if (!body.some(isPrintCall)) return body
  const out = body.filter((e) => !isPrintCall(e))
  return out.length > 0 ? out : trueBody(body[0]?.location)
}

function eraseInClosures(e: Expr): void {
  const ts = e.terms
  if (!Array.isArray(ts) && (ts.type === 'every' || ts.type === 'not')) {
    ts.body = erasePrintCalls(ts.body)
    return
  }
  if (!Array.isArray(ts) && (ts.type === 'and' || ts.type === 'or')) {
    ts.lhs = erasePrintCalls(ts.lhs)
    ts.rhs = erasePrintCalls(ts.rhs)
    return
  }
  walkTerms(Array.isArray(ts) ? ts : ts.type === 'somedecl' ? [] : ts, (t) => {
    if (
      t.type === 'arraycomprehension' ||
      t.type === 'setcomprehension' ||
      t.type === 'objectcomprehension'
    ) {
      t.value.body = erasePrintCalls(t.value.body)
    }
    return false
  })
}

/** Rewrites print calls in place; returns errors for undeclared vars in print operands. */
export function rewritePrintCallsInBody(
  gen: LocalVarGenerator,
  arity: ArityFn,
  globals: Set<string>,
  body: Body,
): RegoError[] {
  const errs: RegoError[] = []
  for (let i = 0; i < body.length; i++) {
    const e = body[i] as Expr
    const safe = outputVarsForBody(body.slice(0, i), arity, globals)
    for (const g of globals) safe.add(g)
    visitClosures(e, safe, (b, s) => errs.push(...rewritePrintCallsInBody(gen, arity, s, b)))
  }
  if (errs.length > 0) return errs
  for (let i = 0; i < body.length; i++) {
    const e = body[i] as Expr
    if (!isPrintCall(e)) continue
    const safe = outputVarsForBody(body.slice(0, i), arity, globals)
    for (const g of globals) safe.add(g)
    walkTerms(body.slice(0, i), (t) => {
      if (t.type === 'var' && isGeneratedVar(t.value)) safe.add(t.value)
      return false
    })
    const args = (e.terms as Term[]).slice(1)
    for (const a of args) {
      for (const v of [...varsOf(a, SAFETY_PARAMS)].sort()) {
        if (!safe.has(v)) errs.push(compileError(a.location, `var ${v} is undeclared`))
      }
    }
    if (errs.length > 0) return errs
    const captured: Term[] = args.map((a) => {
      const x = gen.generateTerm(a.location)
      const t: Term = { type: 'setcomprehension', value: { term: x, body: [equalityExpr(x, a, a.location)] } }
      if (a.location) t.location = a.location
      return t
    })
    const arr: Term = { type: 'array', value: captured }
    if (e.location) arr.location = e.location
    const replaced: Expr = {
      type: 'expr',
      index: e.index,
      terms: [operatorTerm('internal.print', e.location), arr],
    }
    if (e.location) replaced.location = e.location
    body[i] = replaced
  }
  return errs
}

function visitClosures(e: Expr, safe: Set<string>, f: (body: Body, safe: Set<string>) => void): void {
  const ts = e.terms
  if (!Array.isArray(ts) && ts.type === 'every') {
    const s = new Set(safe)
    if (ts.key) collectVars(ts.key, {}, s)
    collectVars(ts.value, {}, s)
    f(ts.body, s)
    return
  }
  if (!Array.isArray(ts) && ts.type === 'not') {
    f(ts.body, new Set(safe))
    return
  }
  if (!Array.isArray(ts) && (ts.type === 'and' || ts.type === 'or')) {
    f(ts.lhs, new Set(safe))
    f(ts.rhs, new Set(safe))
    return
  }
  walkTerms(Array.isArray(ts) ? ts : ts.type === 'somedecl' ? [] : ts, (t) => {
    if (
      t.type === 'arraycomprehension' ||
      t.type === 'setcomprehension' ||
      t.type === 'objectcomprehension'
    ) {
      f(t.value.body, safe)
      return true
    }
    return false
  })
}
