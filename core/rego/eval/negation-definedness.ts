/**
 * Where a residual expression still needs a value to be defined. A removed copy `k = input.x` made
 * its query fail when `input.x` is undefined; copy propagation may drop it only if an expression
 * that keeps that failure still reads `input.x`. A positive expression does, wherever it reads it.
 * Under `not`, only the operands the compiler takes out of the negation do (RewriteDynamicTerms and
 * RewriteExprTerms put refs nested in call arguments, ref keys and composites, and nested calls,
 * before the negated expression, as in OPA: open-policy-agent/opa#1877): `not gt(input.x, 2)` stays
 * undefined without `input.x`, while `not input.x = "a"` holds then.
 */
import { isEquality } from '../compiler/terms.js'
import type { Expr, Term } from '../syntax/ast.js'

/**
 * The terms of `expr` within which any occurrence of a value keeps the expression failing when the
 * value is undefined; `undefined` means the whole expression (a positive one).
 */
export function strictTerms(expr: Expr): readonly Term[] | undefined {
  const terms = expr.terms
  if (!Array.isArray(terms)) {
    if (terms.type === 'not') return []
    if (!expr.negated) return undefined
    if (terms.type === 'every' || terms.type === 'somedecl' || terms.type === 'and' || terms.type === 'or')
      return []
    return operandParts(terms)
  }
  if (!expr.negated) return undefined
  if (isEquality(expr)) return terms.slice(1).flatMap(operandParts)
  // A call: every argument is taken out of the negation (or is already a plain value).
  return terms.slice(1)
}

// An operand of `=` (or a statement): the ref itself stays under the `not`, its keys do not; a
// comprehension stays; a composite's elements are taken out.
function operandParts(t: Term): Term[] {
  switch (t.type) {
    case 'ref':
      return t.value.slice(1)
    case 'arraycomprehension':
    case 'setcomprehension':
    case 'objectcomprehension':
      return []
    default:
      return [t]
  }
}
