/**
 * RewriteWithValues: validates `with` targets (input, data, a function or a built-in; never a
 * partial replacement of a virtual document, never `eq`, internal functions, relations or void
 * functions) and binds values that need evaluation to vars before the expression.
 */
import { compileError, type RegoError, typeError } from '../../errors.js'
import type { Body, Expr, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { equalityExpr, refName, refTerm, requiresEval, walkTerms } from '../terms.js'

/** The stage. */
export function rewriteWithModifiers(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const err = rewriteBodies(c, c.localVarGen, r)
        if (err && !c.err(err)) return
      }
    }
  }
}

function rewriteBodies(c: Compiler, gen: LocalVarGenerator, rule: Rule): RegoError | undefined {
  let first: RegoError | undefined
  const fix = (body: Body): Body => {
    const r = rewriteWithModifiersInBody(c, gen, body)
    if (r.error && !first) first = r.error
    return r.body
  }
  const visitTerm = (t: Term): boolean => {
    switch (t.type) {
      case 'arraycomprehension':
      case 'setcomprehension':
      case 'objectcomprehension':
        t.value.body = fix(t.value.body)
        walkBodyTerms(t.value.body)
        return false
    }
    return false
  }
  const walkBodyTerms = (body: Body): void => {
    for (const e of body) {
      const ts = e.terms
      if (!Array.isArray(ts) && ts.type === 'every') {
        ts.body = fix(ts.body)
        walkBodyTerms(ts.body)
        walkTerms(ts.domain, visitTerm)
      } else if (!Array.isArray(ts) && ts.type === 'not') {
        ts.body = fix(ts.body)
        walkBodyTerms(ts.body)
      } else if (Array.isArray(ts) || ts.type !== 'somedecl') {
        walkTerms(ts as Term | Term[], visitTerm)
      }
    }
  }
  for (const t of [rule.head.key, rule.head.value]) if (t) walkTerms(t, visitTerm)
  rule.body = fix(rule.body)
  walkBodyTerms(rule.body)
  return first
}

/** Rewrites the `with` modifiers of each expression of a body. */
export function rewriteWithModifiersInBody(
  c: Compiler,
  gen: LocalVarGenerator,
  body: Body,
): { body: Body; error?: RegoError } {
  const out: Body = []
  for (const expr of body) {
    if (!expr.with || expr.with.length === 0) {
      out.push(expr)
      continue
    }
    const pre: Expr[] = []
    for (const w of expr.with) {
      const r = validateWith(c, expr, w.target, w.value)
      if (r.error) return { body, error: r.error }
      if (r.eval) {
        const v = gen.generateTerm(w.value.location)
        pre.push(equalityExpr(v, w.value, w.value.location))
        w.value = v
      }
    }
    out.push(...pre, expr)
  }
  return { body: out }
}

function isDataRef(t: Term): boolean {
  return t.type === 'ref' && t.value[0]?.type === 'var' && t.value[0].value === 'data'
}

function isInputRef(t: Term): boolean {
  return t.type === 'ref' && t.value[0]?.type === 'var' && t.value[0].value === 'input'
}

function validateWith(
  c: Compiler,
  _expr: Expr,
  target: Term,
  value: Term,
): { eval: boolean; error?: RegoError } {
  if (value.type === 'var' && c.builtin(value.value)) {
    Object.assign(value, refTerm([{ type: 'var', value: value.value }], value.location))
  }
  const targetName = target.type === 'var' || target.type === 'ref' ? refName(target) : undefined
  const bi =
    targetName !== undefined && !isDataRef(target) && !isInputRef(target) ? c.builtin(targetName) : undefined
  if (isDataRef(target)) {
    const ref = target.type === 'ref' ? target.value : []
    let node = c.ruleTree
    for (let i = 1; i < ref.length - 1; i++) {
      const child = node.child(ref[i] as Term)
      if (!child) break
      if (child.rules.length > 0) {
        return {
          eval: false,
          error: compileError(target.location, 'with keyword cannot partially replace virtual document(s)'),
        }
      }
      node = child
    }
    const last = ref[ref.length - 1]
    const child = last && ref.length > 1 ? c.ruleTree.lookup(ref.slice(1)) : undefined
    if (child?.rules.some((r) => (r.rule.head.args?.length ?? 0) > 0)) {
      const r = validateWithFunctionValue(c, value)
      if (r.error || r.ok) return { eval: false, ...(r.error ? { error: r.error } : {}) }
    }
    if (value.type === 'ref' && isDataRef(value)) {
      const valueNode = c.ruleTree.lookup(value.value.slice(1))
      if (valueNode?.rules.some((r) => (r.rule.head.args?.length ?? 0) > 0)) {
        return { eval: false }
      }
    }
  } else if (isInputRef(target)) {
    // valid
  } else if (bi) {
    if (target.type === 'var')
      Object.assign(target, refTerm([{ type: 'var', value: target.value }], target.location))
    const name = bi.name
    if (name === 'eq' || name === 'rego.metadata.chain' || name === 'rego.metadata.rule') {
      return {
        eval: false,
        error: compileError(
          target.location,
          `with keyword replacing built-in function: replacement of "${name}" invalid`,
        ),
      }
    }
    if (name.startsWith('internal.')) {
      return {
        eval: false,
        error: compileError(
          target.location,
          `with keyword replacing built-in function: replacement of internal function "${name}" invalid`,
        ),
      }
    }
    if (bi.relation) {
      return {
        eval: false,
        error: compileError(
          target.location,
          'with keyword replacing built-in function: target must not be a relation',
        ),
      }
    }
    if (!bi.hasResult) {
      return {
        eval: false,
        error: compileError(
          target.location,
          'with keyword replacing built-in function: target must not be a void function',
        ),
      }
    }
    const r = validateWithFunctionValue(c, value)
    if (r.error || r.ok) return { eval: false, ...(r.error ? { error: r.error } : {}) }
  } else {
    return {
      eval: false,
      error: typeError(
        target.location,
        'with keyword target must reference existing input, data, or a function',
      ),
    }
  }
  return { eval: requiresEval(value) }
}

function validateWithFunctionValue(c: Compiler, value: Term): { ok: boolean; error?: RegoError } {
  if (value.type === 'ref' && isDataRef(value) && c.ruleTree.lookup(value.value.slice(1))) return { ok: true }
  if (value.type === 'ref' || value.type === 'var') {
    const name = refName(value)
    if (name !== undefined && c.builtin(name)) return { ok: true }
  }
  return { ok: false }
}
