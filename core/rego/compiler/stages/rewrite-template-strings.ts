/**
 * RewriteTemplateStrings: `$"Hello {input.name}"` becomes `internal.template_string(["Hello ",
 * {x | x = input.name}])`: each `{...}` part is captured in a set comprehension so an undefined
 * part prints `<undefined>` instead of making the whole string undefined.
 */
import { compileError, type RegoError } from '../../errors.js'
import type { Body, Expr, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { type ArityFn, outputVarsForBody, RESERVED_VARS } from '../safety.js'
import { equalityExpr, operatorTerm, refName, someTerm, stringTerm } from '../terms.js'
import { collectVars, SAFETY_PARAMS, varsOf } from '../vars.js'

/** The stage. */
export function rewriteTemplateStrings(c: Compiler): void {
  const arity: ArityFn = (ref) => c.getArity(ref)
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        // The rewrite needs the body's safe vars, a costly analysis, so rules without a template
        // string (nearly all of them) are passed over.
        if (!hasTemplateString(r)) continue
        const globals = new Set(RESERVED_VARS)
        if (r.head.args) collectVars(r.head.args, {}, globals)
        const errs: RegoError[] = []
        const safe = rewriteTemplateStringsInBody(c, c.localVarGen, arity, globals, r.body, errs)
        const h = r.head
        if (h.args) h.args = h.args.map((a) => rewriteTerm(c, c.localVarGen, arity, safe, a, errs))
        if (h.key) h.key = rewriteTerm(c, c.localVarGen, arity, safe, h.key, errs)
        if (h.value) h.value = rewriteTerm(c, c.localVarGen, arity, safe, h.value, errs)
        if (!c.err(...errs)) return
      }
    }
  }
}

function hasTemplateString(r: Rule): boolean {
  const isTemplate = (t: Term) => t.type === 'templatestring'
  const h = r.head
  return (
    someTerm(r.body, isTemplate) ||
    (h.args !== undefined && someTerm(h.args, isTemplate)) ||
    (h.key !== undefined && someTerm(h.key, isTemplate)) ||
    (h.value !== undefined && someTerm(h.value, isTemplate))
  )
}

/** Rewrites template strings in a body; returns the vars safe after the body. */
export function rewriteTemplateStringsInBody(
  c: Compiler,
  gen: LocalVarGenerator,
  arity: ArityFn,
  globals: Set<string>,
  body: Body,
  errs: RegoError[],
): Set<string> {
  const safe = outputVarsForBody(body, arity, globals)
  for (const g of globals) safe.add(g)
  for (const e of body) {
    const ts = e.terms
    if (Array.isArray(ts)) {
      for (let i = 0; i < ts.length; i++) ts[i] = rewriteTerm(c, gen, arity, safe, ts[i] as Term, errs)
    } else if (ts.type === 'every') {
      ts.domain = rewriteTerm(c, gen, arity, safe, ts.domain, errs)
      const s = new Set(safe)
      if (ts.key) collectVars(ts.key, {}, s)
      collectVars(ts.value, {}, s)
      rewriteTemplateStringsInBody(c, gen, arity, s, ts.body, errs)
    } else if (ts.type === 'not') {
      rewriteTemplateStringsInBody(c, gen, arity, new Set(safe), ts.body, errs)
    } else if (ts.type === 'and' || ts.type === 'or') {
      rewriteTemplateStringsInBody(c, gen, arity, new Set(safe), ts.lhs, errs)
      rewriteTemplateStringsInBody(c, gen, arity, new Set(safe), ts.rhs, errs)
    } else if (ts.type !== 'somedecl') {
      e.terms = rewriteTerm(c, gen, arity, safe, ts, errs)
    }
    for (const w of e.with ?? []) w.value = rewriteTerm(c, gen, arity, safe, w.value, errs)
  }
  return safe
}

function rewriteTerm(
  c: Compiler,
  gen: LocalVarGenerator,
  arity: ArityFn,
  safe: Set<string>,
  t: Term,
  errs: RegoError[],
): Term {
  switch (t.type) {
    case 'templatestring':
      return rewriteTemplateString(c, gen, arity, safe, t, errs)
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      for (let i = 0; i < t.value.length; i++)
        t.value[i] = rewriteTerm(c, gen, arity, safe, t.value[i] as Term, errs)
      return t
    case 'object':
      t.value = t.value.map(([k, v]) => [
        rewriteTerm(c, gen, arity, safe, k, errs),
        rewriteTerm(c, gen, arity, safe, v, errs),
      ])
      return t
    case 'arraycomprehension':
    case 'setcomprehension': {
      const s = rewriteTemplateStringsInBody(c, gen, arity, safe, t.value.body, errs)
      t.value.term = rewriteTerm(c, gen, arity, s, t.value.term, errs)
      return t
    }
    case 'objectcomprehension': {
      const s = rewriteTemplateStringsInBody(c, gen, arity, safe, t.value.body, errs)
      t.value.key = rewriteTerm(c, gen, arity, s, t.value.key, errs)
      t.value.value = rewriteTerm(c, gen, arity, s, t.value.value, errs)
      return t
    }
  }
  return t
}

function rewriteTemplateString(
  c: Compiler,
  gen: LocalVarGenerator,
  arity: ArityFn,
  safe: Set<string>,
  ts: Extract<Term, { type: 'templatestring' }>,
  errs: RegoError[],
): Term {
  const loc = ts.location
  const parts: Term[] = []
  if (ts.value.parts.length === 0) parts.push(stringTerm('', loc))
  for (const p of ts.value.parts) {
    if (p.type !== 'expr') {
      parts.push(p)
      continue
    }
    let t: Term
    if (Array.isArray(p.terms)) {
      const op = p.terms[0]
      const name = op ? refName(op) : undefined
      if (name !== undefined && c.builtin(name)?.relation) {
        errs.push(
          compileError(
            p.location,
            `illegal call to relation built-in '${name}' that may cause multiple outputs`,
          ),
        )
        continue
      }
      t = { type: 'call', value: p.terms }
      if (p.location) t.location = p.location
    } else if (
      p.terms.type === 'somedecl' ||
      p.terms.type === 'every' ||
      p.terms.type === 'not' ||
      p.terms.type === 'and' ||
      p.terms.type === 'or'
    ) {
      errs.push(compileError(p.location, 'unexpected template-string expression type'))
      continue
    } else {
      t = p.terms
    }
    // Nested template strings and comprehensions inside the part are rewritten first.
    t = rewriteTerm(c, gen, arity, safe, t, errs)
    for (const v of [...varsOf(t, SAFETY_PARAMS)].sort()) {
      if (!safe.has(v)) errs.push(compileError(t.location, `var ${v} is undeclared`))
    }
    const x = gen.generateTerm(t.location)
    const capture: Expr = equalityExpr(x, t, t.location)
    capture.generated = false
    if (p.with) capture.with = p.with
    const set: Term = { type: 'setcomprehension', value: { term: x, body: [capture] } }
    if (t.location) set.location = t.location
    parts.push(set)
  }
  const arr: Term = { type: 'array', value: parts }
  if (loc) arr.location = loc
  const call: Term = { type: 'call', value: [operatorTerm('internal.template_string', loc), arr] }
  if (loc) call.location = loc
  return call
}
