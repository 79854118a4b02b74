/**
 * RewriteEquals: every `a == b` in the modules becomes the unification `a = b`, as OPA's compiler
 * rewrites it (its `rewriteEquals` stage), in rule bodies, `else` bodies, function bodies,
 * comprehension and `every` bodies alike.
 *
 * NOTE(regent): this changes what a negation means, which is why it is a stage of its own and why
 * it runs before RewriteDynamicTerms. RewriteDynamicTerms moves a ref out of a call's operands
 * (`__local0__ = input.x; not __local0__ == 1`), so an undefined `input.x` would make the whole
 * body undefined; it leaves a unification's operands in place, so after this stage `not input.x
 * == 1` keeps the ref inside the negation and succeeds when `input.x` is undefined, as OPA
 * answers (issue 24, item 1). It runs after the safety checks: `==` is a built-in with no
 * outputs, so its vars must already be bound, and `=` would mark them safe.
 *
 * Ad-hoc queries do not run this stage (OPA's query compiler has no such stage: a query's `==`
 * reports true or false, where `=` is only ever true or undefined); partial evaluation of a query
 * does, through `rewriteEqualsIn`, as OPA's `PrepareForPartial` adds it after CheckSafety.
 */
import type { Body, Node } from '../../syntax/ast.js'
import { exprs } from '../../syntax/walk.js'
import type { Compiler } from '../compiler.js'
import { isOperator, operatorTerm } from '../terms.js'

/** The stage. */
export function rewriteEquals(c: Compiler): void {
  for (const mod of c.sortedModules()) rewriteEqualsIn(mod)
}

/**
 * Rewrites every two-operand `equal` call expression under `node` (nested bodies included) to
 * `eq`. A `==` whose value is used (`x := a == b`, by then `equal(a, b, __local1__)`) has an
 * output operand and stays a comparison.
 */
export function rewriteEqualsIn(node: Node | Body): void {
  for (const expr of exprs(node)) {
    const terms = expr.terms
    if (!Array.isArray(terms) || terms.length !== 3) continue
    const op = terms[0]
    if (isOperator(op, 'equal')) terms[0] = operatorTerm('eq', op?.location)
  }
}
