/**
 * Where `opa fmt` writes parentheses around an operand of `and` / `or` (or of a `not`): the
 * grouping the AST holds is written back with as few parentheses as reading it again needs.
 * `and` binds tighter than `or` and chains associate to the left, so `(a or b) or c` prints as
 * `a or b or c`, `(a and b) or c` as `a and b or c`, while `a or (b or c)` and
 * `(a or b) and c` keep theirs (OPA's v1/format/testfiles/v1/test_logical_parens.rego).
 */
import type { Expr } from '../syntax/ast.js'
import { startsWithBrace } from './layout.js'

/** The `and` / `or` an expression holds, when it is a plain (not negated) one. */
function logicalWord(expr: Expr): 'and' | 'or' | undefined {
  const t = expr.terms
  if (expr.negated || Array.isArray(t)) return undefined
  return t.type === 'and' || t.type === 'or' ? t.type : undefined
}

/**
 * True when `expr`, the one expression on a side of `word` (`right` for its right operand), is
 * written in parentheses: a lower-precedence or right-nested chain, an operand with `with`
 * modifiers, or one that starts with a brace (it would read back as a braced body).
 */
export function operandNeedsGroup(expr: Expr, word: 'and' | 'or', right: boolean): boolean {
  if (expr.with?.length) return true
  const child = logicalWord(expr)
  if (child) return (child === 'or' && word === 'and') || (right && child === word)
  return startsWithBrace(expr)
}

/** True when the one expression of an implicit not-body is written as `not (expr)`. */
export function needsGroupUnderNot(expr: Expr): boolean {
  return !!expr.with?.length || logicalWord(expr) !== undefined
}
