/**
 * `not` over something unknown (OPA's evalNotPartial): the positive expression is partially
 * evaluated on its own; no residual means the negation holds, an unconditional residual means it
 * fails; otherwise the residual is complemented in place (`not (A and B) or not (C)` becomes the
 * cross product of negated expressions) when that is safe and small, or kept as a support rule
 * `data.partial.__not…__` that the residual negates.
 */
import type { Body, Expr, Term } from '../syntax/ast.js'
import type { Frame } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import type { PExpr } from './ir.js'
import type { PartialEval } from './partial-eval.js'

/** `not expr` in partial mode; undefined when nothing about it is unknown. */
export function evalNotPartial(
  pe: PartialEval,
  e: Evaluator,
  expr: PExpr,
  frame: Frame,
  iter: Iter,
): boolean | undefined {
  const positive: PExpr = { ...expr, negated: false, with: undefined, fast: undefined }
  if (!pe.analysis.expr(positive, frame)) return undefined
  const unknowns = new Set(pe.set.vars().map((v) => pe.names.varName(v.name, v.frame)))
  const negationId = pe.names.next()
  const queries: Body[] = []
  pe.stack.pushQuery()
  try {
    e.evalStep(positive, frame, () => {
      const q = pe.plugger.query(pe.stack.entries())
      queries.push(pe.propagate(q, { live: unknowns, arity: pe.arity, ensureNonEmpty: true }))
      return false
    })
  } finally {
    pe.stack.popGroup()
  }
  if (queries.length === 0) return iter()
  if (queries.some(isTrue)) return false
  if (!canInline(unknowns, queries)) {
    const name = `__not${pe.names.id(frame)}_${expr.src.index}_${negationId}__`
    return supportNegation(pe, expr, name, unknowns, queries, iter)
  }
  return product(queries, 0, [], (exprs) => pe.saveExprs(exprs, iter))
}

function isTrue(body: Body): boolean {
  const only = body[0]
  return (
    body.length === 1 &&
    only !== undefined &&
    !only.negated &&
    !Array.isArray(only.terms) &&
    only.terms.type === 'boolean' &&
    only.terms.value === true
  )
}

function supportNegation(
  pe: PartialEval,
  expr: PExpr,
  name: string,
  unknowns: ReadonlySet<string>,
  queries: Body[],
  iter: Iter,
): boolean {
  const used = new Set<string>()
  for (const q of queries) for (const v of bodyVars(q)) if (unknowns.has(v)) used.add(v)
  const args: Term[] = [...used].sort().map((v) => ({ type: 'var', value: v }))
  const path = { pkg: [...pe.namespace], rule: [{ type: 'var', value: name } as Term] }
  for (const body of queries) {
    pe.support.insert(
      path,
      { name, value: { type: 'boolean', value: true }, ...(args.length > 0 ? { args } : {}) },
      body,
      false,
    )
  }
  pe.support.mark(path)
  const ref: Term = {
    type: 'ref',
    value: [...pe.syntheticRoot(), { type: 'string', value: name }],
  }
  const saved: Expr = {
    type: 'expr',
    index: 0,
    negated: true,
    terms: args.length > 0 ? [ref, ...args] : ref,
  }
  if (expr.src.location) saved.location = expr.src.location
  return pe.saveExprs([saved], iter)
}

/**
 * OPA's canInlineNegation: no nested refs or calls (their complement would not be the negation), no
 * positive expression with vars that are not already bound, and at most 16 combinations.
 */
function canInline(safe: ReadonlySet<string>, queries: Body[]): boolean {
  let size = 1
  for (const q of queries) {
    size *= q.length
    for (const x of q) {
      if (nestedRefOrCall(x)) return false
      if (!x.negated) {
        for (const v of exprVars(x)) if (!safe.has(v) && v !== 'input' && v !== 'data') return false
      }
    }
  }
  return size <= 16
}

function nestedRefOrCall(x: Expr): boolean {
  const terms = x.terms
  if (Array.isArray(terms)) {
    const eq =
      terms[0]?.type === 'ref' &&
      terms[0].value.length === 1 &&
      terms[0].value[0]?.type === 'var' &&
      terms[0].value[0].value === 'eq'
    return terms.slice(1).some((t) => (eq ? nestedIn(t) : hasRefOrCall(t)))
  }
  if (
    terms.type === 'every' ||
    terms.type === 'somedecl' ||
    terms.type === 'not' ||
    terms.type === 'and' ||
    terms.type === 'or'
  )
    return true
  return nestedIn(terms)
}

// Refs are fine at the top of an equality operand or a statement, not inside one.
function nestedIn(t: Term): boolean {
  if (t.type === 'ref') return t.value.slice(1).some(hasRefOrCall)
  return hasRefOrCall(t)
}

function hasRefOrCall(t: Term): boolean {
  switch (t.type) {
    case 'ref':
    case 'call':
      return true
    case 'array':
    case 'set':
      return t.value.some(hasRefOrCall)
    case 'object':
      return t.value.some(([k, v]) => hasRefOrCall(k) || hasRefOrCall(v))
    default:
      return false
  }
}

function exprVars(x: Expr): Set<string> {
  const out = new Set<string>()
  const terms = x.terms
  const ts = Array.isArray(terms)
    ? terms.slice(1)
    : terms.type === 'every' ||
        terms.type === 'somedecl' ||
        terms.type === 'not' ||
        terms.type === 'and' ||
        terms.type === 'or'
      ? []
      : [terms]
  for (const t of ts) collect(t, out)
  return out
}

function bodyVars(body: Body): Set<string> {
  const out = new Set<string>()
  for (const x of body) for (const v of exprVars(x)) out.add(v)
  return out
}

function collect(t: Term, out: Set<string>): void {
  switch (t.type) {
    case 'var':
      out.add(t.value)
      return
    case 'ref':
    case 'array':
    case 'set':
      for (const x of t.value) collect(x, out)
      return
    case 'call':
      for (const x of t.value.slice(1)) collect(x, out)
      return
    case 'object':
      for (const [k, v] of t.value) {
        collect(k, out)
        collect(v, out)
      }
      return
    default:
      return
  }
}

/** `(A and B) or (C)` negated: one complemented expression from each query, in every combination. */
function product(queries: Body[], i: number, acc: Expr[], iter: (exprs: Expr[]) => boolean): boolean {
  if (i === queries.length) return iter(acc)
  for (const x of queries[i] as Body) {
    const complement: Expr = { ...x, negated: !x.negated }
    if (product(queries, i + 1, [...acc, complement], iter)) return true
  }
  return false
}
