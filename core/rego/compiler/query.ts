/**
 * Compilation of ad-hoc queries (`regent eval 'data.x.p = y'`) against a compiled module set: the
 * query stages of OPA's `queryCompiler`, in its order. Generated vars use the `__localq<N>__`
 * prefix so they never clash with the modules' own.
 */

import { compileError, type RegoError, RegoErrors } from '../errors.js'
import type { Body, Expr, Term } from '../syntax/ast.js'
import { copyBody } from '../syntax/copy.js'
import { locationText } from '../syntax/source.js'
import {
  type CompiledQuery,
  type Compiler,
  type QueryContext,
  type QueryExprInfo,
  sortedErrors,
} from './compiler.js'
import { LocalVarGenerator } from './local-vars.js'
import { lowerLogicalExprs } from './lower-logical-exprs.js'
import { RESERVED_VARS } from './safety.js'
import { checkQuerySafety } from './stages/check-safety.js'
import { typeErrors } from './stages/check-types.js'
import { undefinedFuncErrors } from './stages/check-undefined-funcs.js'
import { voidCallErrors } from './stages/check-void-calls.js'
import {
  DeclaredVarStack,
  declaredVars,
  exportsOf,
  getGlobals,
  resolveRefsInBody,
} from './stages/resolve-refs.js'
import { rewriteComprehensionsIn } from './stages/rewrite-comprehension-terms.js'
import { rewriteDynamics } from './stages/rewrite-dynamic-terms.js'
import { rewriteEqualsIn } from './stages/rewrite-equals.js'
import { rewriteExprTermsInBody } from './stages/rewrite-expr-terms.js'
import { rewriteQueryLocalVars } from './stages/rewrite-local-vars.js'
import { erasePrintCalls, rewritePrintCallsInBody } from './stages/rewrite-print-calls.js'
import { rewriteTemplateStringsInBody } from './stages/rewrite-template-strings.js'
import { rewriteWithModifiersInBody } from './stages/rewrite-with-modifiers.js'
import { isAssignment, isEquality, operatorTerm, refName, varTerm, walkTerms } from './terms.js'

type QueryStage = (state: { body: Body; rewritten: Map<string, string> }) => RegoError[]

/** Compiles `query` in the context of `c`; throws `RegoErrors` on failure. */
export function compileQuery(c: Compiler, query: Body, ctx: QueryContext = {}): CompiledQuery {
  if (query.length === 0) throw new RegoErrors([compileError(undefined, 'empty query cannot be compiled')])
  const state = { body: lowerLogicalExprs(copyBody(query)), rewritten: new Map<string, string>() }
  let exprs: QueryExprInfo[] = query.map((e) => ({
    text: locationText(e.location) ?? '',
    location: e.location,
    capture: undefined,
  }))
  const gen = () => LocalVarGenerator.forQuery(state.body)
  const arity = (ref: Parameters<Compiler['getArity']>[0]) => c.getArity(ref)
  // NOTE(strict): strict mode checks the policy, not the query: OPA's rego package compiles ad-hoc
  // queries without it (its cmd/eval_test.go: `opa eval --strict 'x := data.x.foo'` succeeds, the
  // assigned var being the query's result), so unused assignments, root document shadowing and
  // deprecated built-ins are not errors in a query.
  const stages: QueryStage[] = [
    (s) => {
      const pkg = ctx.package
      const globals = getGlobals(pkg, pkg ? exportsOf(c.sortedModules(), pkg) : [], ctx.imports ?? [])
      const ignore = new DeclaredVarStack()
      ignore.push(declaredVars(s.body))
      s.body = resolveRefsInBody(globals, ignore, s.body)
      if (ctx.captureValues) exprs = captureValues(c, s.body, query)
      return []
    },
    (s) => {
      const r = rewriteQueryLocalVars(gen(), s.body, false)
      s.body = r.body
      s.rewritten = r.rewritten
      return r.errors
    },
    (s) => {
      const errs: RegoError[] = []
      rewriteTemplateStringsInBody(c, gen(), arity, new Set(RESERVED_VARS), s.body, errs)
      return errs
    },
    (s) => voidCallErrors(c, s.body),
    (s) => {
      if (!c.options.enablePrintStatements) {
        s.body = erasePrintCalls(s.body)
        return []
      }
      return rewritePrintCallsInBody(gen(), arity, new Set(RESERVED_VARS), s.body)
    },
    (s) => {
      s.body = rewriteExprTermsInBody(gen(), s.body)
      return []
    },
    (s) => {
      rewriteComprehensionsIn(gen(), s.body)
      return []
    },
    (s) => {
      const r = rewriteWithModifiersInBody(c, gen(), s.body)
      s.body = r.body
      return r.error ? [r.error] : []
    },
    (s) => undefinedFuncErrors(c, s.body, s.rewritten),
    (s) => {
      const r = checkQuerySafety(c, s.body, s.rewritten)
      s.body = r.body
      return r.errors
    },
    // NOTE(regent): OPA's query compiler has no RewriteEquals stage; only partial evaluation adds
    // one after CheckSafety (rego.PrepareForPartial), so `not input.x == 1` is undefined as an
    // ad-hoc query on `{}` and true in a rule body or a partially evaluated query.
    (s) => {
      if (ctx.rewriteEquals) rewriteEqualsIn(s.body)
      return []
    },
    (s) => {
      s.body = rewriteDynamics(gen(), s.body)
      return []
    },
    (s) => typeErrors(c, s.body),
  ]
  for (const stage of stages) {
    const errs = stage(state)
    if (errs.length > 0) {
      const max = c.options.maxErrors
      const limited =
        max > 0 && errs.length > max
          ? [...errs.slice(0, max), compileError(undefined, 'error limit reached')]
          : errs
      throw sortedErrors(limited)
    }
  }
  state.body.forEach((e, i) => {
    e.index = i
  })
  return { body: state.body, rewrittenVars: state.rewritten, exprs }
}

/**
 * OPA's `rewriteQueryToCaptureValue`: each term expression becomes `term = $termN` and each call
 * that returns a value gets `$termN` as output, so results can report every expression's value
 * (`1 > 2` is `false`, not undefined). With iteration or several expressions, a `$termN` check is
 * appended so false values still fail the query.
 */
function captureValues(c: Compiler, body: Body, original: Body): QueryExprInfo[] {
  const check = body.length > 1 || iterates(body)
  const infos: QueryExprInfo[] = []
  const extra: Body = []
  let n = 0
  for (const [i, expr] of body.entries()) {
    // The original expression's location (the copy shares it; rewritten ones may not have one).
    const loc = original[i]?.location ?? expr.location
    const info: QueryExprInfo = { text: locationText(loc) ?? '', location: loc, capture: undefined }
    infos.push(info)
    if (expr.negated || isAssignment(expr) || isEquality(expr)) continue
    const ts = expr.terms
    let capture: string | undefined
    if (!Array.isArray(ts)) {
      if (
        ts.type === 'somedecl' ||
        ts.type === 'every' ||
        ts.type === 'not' ||
        ts.type === 'and' ||
        ts.type === 'or'
      )
        continue
      capture = `$term${n++}`
      expr.terms = [operatorTerm('eq', expr.location), ts, varTerm(capture, expr.location)]
    } else {
      const op = ts[0]
      const ref = op?.type === 'ref' ? op.value : op ? [op] : []
      const name = refName(op as Term)
      const bi = name !== undefined ? c.builtin(name) : undefined
      if (bi && !bi.hasResult) continue
      if (c.getArity(ref) === ts.length - 1) {
        capture = `$term${n++}`
        ts.push(varTerm(capture, expr.location))
      }
    }
    info.capture = capture
    if (capture && check) {
      const e: Expr = { type: 'expr', index: 0, terms: varTerm(capture, expr.location), generated: true }
      if (expr.location) e.location = expr.location
      extra.push(e)
    }
  }
  body.push(...extra)
  return infos
}

function iterates(body: Body): boolean {
  let found = false
  walkTerms(body, (t) => {
    if (found) return true
    if (t.type === 'arraycomprehension' || t.type === 'setcomprehension' || t.type === 'objectcomprehension')
      return true
    if (t.type === 'ref') {
      if (t.value.slice(1).some((x) => x.type === 'var')) found = true
    }
    return found
  })
  return found
}
