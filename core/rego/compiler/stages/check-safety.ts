/**
 * CheckSafetyRuleHeads and CheckSafetyRuleBodies: every variable in a rule head must be bound by
 * the body or the arguments, and each body is reordered so that variables are bound before they
 * are read (`rego_unsafe_var_error: var x is unsafe` otherwise).
 */
import { type RegoError, RegoError as RegoErrorClass, unsafeVarError } from '../../errors.js'
import type { Body, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { compareLocations, RESERVED_VARS, reorderBodyForSafety, type UnsafeVars } from '../safety.js'
import { isGeneratedVar, isScalar } from '../terms.js'
import { collectVars, SAFETY_PARAMS, varsOf } from '../vars.js'

/** The head stage. */
export function checkSafetyRuleHeads(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        if (!headMayHaveVars(r)) continue
        const bound = varsOf(r.body, SAFETY_PARAMS)
        if (r.head.args) collectVars(r.head.args, {}, bound)
        for (const v of headVars(r)) {
          if (bound.has(v)) continue
          const name = c.rewrittenVars.get(v) ?? v
          if (isGeneratedVar(name)) continue
          if (!c.err(unsafeVarError(r.location, name))) return
        }
      }
    }
  }
}

function headMayHaveVars(r: Rule): boolean {
  const h = r.head
  return (
    (h.args ?? []).some((a) => !isScalar(a)) ||
    (h.key !== undefined && !isScalar(h.key)) ||
    (h.value !== undefined && !isScalar(h.value)) ||
    h.ref.slice(1).some((t) => !isScalar(t))
  )
}

function headVars(r: Rule): Set<string> {
  const out = new Set<string>()
  const h = r.head
  if (h.args) collectVars(h.args, {}, out)
  if (h.key) collectVars(h.key, {}, out)
  if (h.value) collectVars(h.value, {}, out)
  collectVars(h.ref.slice(1), {}, out)
  return out
}

/** The body stage. */
export function checkSafetyRuleBodies(c: Compiler): void {
  const arity = (ref: Term[]) => c.getArity(ref)
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const globals = new Set(RESERVED_VARS)
        if (r.head.args) collectVars(r.head.args, {}, globals)
        const res = reorderBodyForSafety(arity, globals, r.body)
        const errs = safetyErrors(res.unsafe, c.rewrittenVars)
        if (errs.length > 0) {
          if (!c.err(...errs)) return
          continue
        }
        r.body = res.body
      }
    }
  }
}

/** Checks and reorders a query body (`data`, `input` and `extra` are bound). */
export function checkQuerySafety(
  c: Compiler,
  body: Body,
  rewritten: Map<string, string>,
): { body: Body; errors: RegoError[] } {
  const res = reorderBodyForSafety((ref) => c.getArity(ref), new Set(RESERVED_VARS), body)
  return { body: res.body, errors: safetyErrors(res.unsafe, rewritten) }
}

const CAPTURE_VAR = /^\$term\d+$/

/** One error per unsafe user variable (at its first location), or per unsafe expression. */
export function safetyErrors(unsafe: UnsafeVars, rewritten: Map<string, string>): RegoError[] {
  if (unsafe.size === 0) return []
  const locs = new Map<string, { loc: Term['location'] }>()
  for (const [expr, vars] of unsafe) {
    for (const v of vars) {
      const prev = locs.get(v)
      if (!prev || compareLocations(prev.loc, expr.location) > 0) locs.set(v, { loc: expr.location })
    }
  }
  const sorted = [...locs].sort((a, b) => compareLocations(a[1].loc, b[1].loc) || (a[0] < b[0] ? -1 : 1))
  const out: RegoError[] = []
  for (const [v, { loc }] of sorted) {
    const name = rewritten.get(v) ?? v
    // A query's capture var (`$term0`, the value of `y > 1`) is unsafe only because an input of its
    // expression is, and that one is reported.
    if (isGeneratedVar(name) || CAPTURE_VAR.test(name)) continue
    out.push(unsafeVarError(loc, name.startsWith('$') ? '_' : name))
  }
  if (out.length > 0) return out
  const seen = new Set<string>()
  const pairs = [...unsafe].sort((a, b) => compareLocations(a[0].location, b[0].location))
  for (const [expr, vars] of pairs) {
    const before = seen.size
    for (const v of vars) if (isGeneratedVar(v)) seen.add(v)
    if (seen.size > before)
      out.push(new RegoErrorClass('rego_unsafe_var_error', 'expression is unsafe', expr.location))
  }
  return out
}
