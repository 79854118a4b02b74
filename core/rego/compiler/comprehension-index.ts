/**
 * Comprehension indices: which comprehensions the evaluator may compute once, grouped by the values
 * of some of their variables, instead of once per binding of the enclosing body (OPA's
 * `ComprehensionIndex`, ast/compile.go).
 *
 * In `x := data.a[_]; ys := [y | data.b[y] = x]` the comprehension only depends on the outer body
 * through `x`, which its own body binds too. Evaluated on its own, the body yields every `(x, y)`;
 * grouping the `y`s by `x` answers every outer iteration with one lookup, which takes the query
 * from O(|a|·|b|) to O(|a|+|b|). The keys of a comprehension are the outer variables ("candidates":
 * function arguments and the variables of the expressions before it) that its body outputs.
 *
 * OPA indexes only `var = comprehension` expressions (after `:=` and `==` became `=`) and leaves out
 * comprehensions that read outer variables they do not bind, that would enumerate a candidate
 * through a ref (`data.b[x]` before `x` is seen: grouping would be slower), or that contain
 * comprehensions closing over candidates. Indexing changes one observable thing beyond speed: a
 * grouped object comprehension keeps the last value of a duplicated key instead of failing with
 * a conflict, as OPA's cache does.
 */
import type { Body, Expr, Module, Rule, Term } from '../syntax/ast.js'
import { type ArityFn, outputVarsForBody, RESERVED_VARS } from './safety.js'
import { isComprehension, isEquality, isOperator, walkTerms } from './terms.js'
import { addAll, SAFETY_PARAMS, varsOf } from './vars.js'

/** Comprehension term → the names of its index keys, sorted. */
export type ComprehensionIndices = Map<Term, string[]>

/** Built-ins whose output operand must not be a candidate (OPA's blacklist: `walk`). */
const OUTPUT_POSITION: ReadonlyMap<string, number> = new Map([['walk', 1]])

/** Adds the indices of every rule (and `else`) of `modules` to `out`. */
export function indexComprehensions(modules: Module[], arity: ArityFn, out: ComprehensionIndices): void {
  for (const mod of modules) {
    for (const rule of mod.rules) {
      const args = rule.head.args
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const candidates = new Set(RESERVED_VARS)
        for (const a of r.head.args ?? args ?? []) addAll(candidates, varsOf(a))
        indexBodies(r.body, arity, candidates, out)
      }
    }
  }
}

/**
 * Walks `body` and the bodies nested in it (in OPA's WalkBodies order: a body's expressions, then
 * the bodies inside them). `candidates` grows with the vars of every expression walked, nested
 * bodies included, as OPA's does.
 */
function indexBodies(body: Body, arity: ArityFn, candidates: Set<string>, out: ComprehensionIndices): void {
  for (const expr of body) {
    const found = indexOf(expr, arity, candidates)
    if (found) out.set(found.term, found.keys)
    addAll(candidates, varsOf(expr, SAFETY_PARAMS))
  }
  for (const expr of body)
    for (const nested of nestedBodies(expr)) indexBodies(nested, arity, candidates, out)
}

/** The bodies directly inside `expr`: comprehension, `every` and not-bodies (not their own nested ones). */
function nestedBodies(expr: Expr): Body[] {
  const ts = expr.terms
  if (!Array.isArray(ts) && ts.type === 'every') return [ts.body]
  if (!Array.isArray(ts) && ts.type === 'not') return [ts.body]
  const out: Body[] = []
  walkTerms(expr, (t) => {
    if (
      t.type === 'arraycomprehension' ||
      t.type === 'setcomprehension' ||
      t.type === 'objectcomprehension'
    ) {
      out.push(t.value.body)
      return true
    }
    return false
  })
  return out
}

/** The comprehension of a `var = comprehension` expression and its keys, when it can be indexed. */
function indexOf(
  expr: Expr,
  arity: ArityFn,
  candidates: Set<string>,
): { term: Term; keys: string[] } | undefined {
  if (!isEquality(expr) || expr.negated || (expr.with?.length ?? 0) > 0) return undefined
  const [, lhs, rhs] = expr.terms as Term[]
  let term: Term | undefined
  if (lhs?.type === 'var' && rhs && isComprehension(rhs)) term = rhs
  else if (rhs?.type === 'var' && lhs && isComprehension(lhs)) term = lhs
  if (!term || !isComprehension(term)) return undefined
  const body = (term.value as { body: Body }).body

  // Evaluated without the outer bindings, the body must bind every var it reads.
  const outputs = outputVarsForBody(body, arity, new Set(RESERVED_VARS))
  for (const v of varsOf(body, SAFETY_PARAMS)) if (!outputs.has(v) && !RESERVED_VARS.has(v)) return undefined
  if (enumeratesCandidate(body, candidates)) return undefined
  if (nestedClosesOver(body, candidates)) return undefined

  const keys = [...outputs].filter((v) => candidates.has(v)).sort()
  return keys.length > 0 ? { term, keys } : undefined
}

/**
 * True when a ref in `body` would enumerate a candidate not seen earlier in the body (or `walk`
 * outputs one): grouping would then enumerate what the outer binding looks up directly.
 */
function enumeratesCandidate(body: Body, candidates: Set<string>): boolean {
  const seen = new Set<string>()
  let worse = false
  const check = (vars: Iterable<string>): void => {
    for (const v of vars) if (candidates.has(v) && !seen.has(v)) worse = true
  }
  for (const expr of body) {
    const ts = expr.terms
    if (Array.isArray(ts)) {
      const op = ts[0]
      for (const [name, pos] of OUTPUT_POSITION) {
        const operand = ts[pos + 1]
        if (isOperator(op, name) && operand && pos + 1 < ts.length) check(varsOf(operand))
      }
    }
    walkTerms(expr, (t) => {
      if (worse) return true
      if (isComprehension(t)) return true
      if (t.type === 'ref') check(varsOf(t, { skipRefHead: true }))
      else if (t.type === 'var') seen.add(t.value)
      return false
    })
    if (worse) return true
  }
  return worse
}

/** True when a comprehension nested in `body` reads a candidate. */
function nestedClosesOver(body: Body, candidates: Set<string>): boolean {
  let found = false
  walkTerms(body, (t) => {
    if (found) return true
    if (!isComprehension(t)) return false
    for (const v of varsOf(t, { skipRefHead: true })) if (candidates.has(v)) found = true
    return true
  })
  return found
}
