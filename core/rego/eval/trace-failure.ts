/**
 * `regent test --var-values`: what OPA's `topdown.PrettyEvent` shows under a failed test, the
 * variables of the expression that failed with where they stand in its text and the values they
 * had. The compiler's rewritten expressions keep the location of the text they came from: a
 * generated `__local3__` stands for `y + z`, so it is shown as `y + z: 5`. Expressions generated
 * from the failed one and evaluated before it (OPA's co-generated expressions) add their
 * variables: `y` and `z` of `plus(y, z, __local3__)`.
 */
import type { Expr, Location, Term } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import { type Frame, plug, TermBinding } from './bindings.js'

/** One variable of a failed expression: its text (`y + z`), where it starts, and its value. */
export interface FailedExprVar {
  title: string
  location: Location
  /** Undefined when the variable had no value when the expression failed. */
  value: Value | undefined
}

/** The failed expression (its location spans its text) and its variables. */
export interface FailedExpr {
  location: Location
  vars: FailedExprVar[]
}

const ROOTS = new Set(['data', 'input'])

/** The value a ref to a rule had when the expression failed (undefined: not evaluated). */
export type RuleValueOf = (ref: Term & { type: 'ref' }) => { value: Value | undefined } | undefined

/**
 * The variables of `expr` (which failed) and of `coExprs`, read from `frame`. In the failed
 * expression a variable without value is shown `undefined` (unless the expression is negated: the
 * compiler may not have split it); in the others, only variables with a value are shown. When
 * `expr` is itself generated, `base` is the written expression it came from: its text is shown.
 */
export function failedExpr(
  expr: Expr,
  coExprs: readonly Expr[],
  frame: Frame,
  text: (location: Location) => string | undefined,
  base: Expr = expr,
  ruleValueOf?: RuleValueOf,
): FailedExpr | undefined {
  if (!base.location) return undefined
  const vars = new Map<string, FailedExprVar>()
  // OPA's localVirtualCacheSnapshot: the rules the expression refers to, with the values they were
  // evaluated to, shown under the ref's head (`not data.x.allowed` shows `true`).
  if (ruleValueOf)
    walkTestRefs(expr, (ref) => {
      const head = ref.value[0]
      const location = head?.location ?? ref.location
      const known = location && ruleValueOf(ref)
      if (!location || !known) return
      const title = text(location) ?? 'data'
      vars.set(title, { title, location, value: known.value })
    })
  const add = (t: Term & { type: 'var' }, undefinedIfUnbound: boolean) => {
    if (!t.location || ROOTS.has(t.value)) return
    const slot = frame.names.indexOf(t.value)
    const bound = slot < 0 ? undefined : frame.s[slot]
    const value = bound instanceof TermBinding ? plug(bound.term, bound.frame) : bound
    if (value === undefined && !undefinedIfUnbound) return
    const title = text(t.location) ?? t.value
    const known = vars.get(title)
    if (!known || known.value === undefined) vars.set(title, { title, location: t.location, value })
  }
  walkTestTerms(expr, (t) => add(t, !expr.negated))
  for (const co of coExprs) walkTestTerms(co, (t) => add(t, false))
  if (base !== expr) walkTestTerms(base, (t) => add(t, false))
  return { location: base.location, vars: [...vars.values()] }
}

function walkTestRefs(expr: Expr, visit: (t: Term & { type: 'ref' }) => void): void {
  walkTestTerms(expr, () => {}, visit)
}

// OPA's walkTestTerms: a call's operands (not its operator), `with` values, and every term inside,
// except comprehension bodies (evaluated on their own, their variables are not the expression's).
function walkTestTerms(
  expr: Expr,
  visit: (t: Term & { type: 'var' }) => void,
  visitRef?: (t: Term & { type: 'ref' }) => void,
): void {
  const term = (t: Term): void => {
    switch (t.type) {
      case 'var':
        visit(t)
        return
      case 'ref':
        visitRef?.(t)
        for (const x of t.value) term(x)
        return
      case 'array':
      case 'set':
        for (const x of t.value) term(x)
        return
      case 'call':
        for (const x of t.value.slice(1)) term(x)
        return
      case 'object':
        for (const [k, v] of t.value) {
          term(k)
          term(v)
        }
        return
      default:
        return
    }
  }
  const ts = expr.terms
  if (Array.isArray(ts)) for (const t of ts.slice(1)) term(t)
  else if (ts.type !== 'every' && ts.type !== 'somedecl' && ts.type !== 'not') term(ts as Term)
  for (const w of expr.with ?? []) term(w.value)
}
