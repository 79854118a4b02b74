/**
 * Where a residual expression starts, for fragment errors. Expressions the parser read carry their
 * location (for a `not`, the keyword's); one that partial evaluation built may not, and then the
 * earliest location of any of its terms stands in for it, so that no fragment error goes without one.
 */
import type { Expr, Location, Term } from '../../core/rego/syntax/ast.js'
import { isTerm } from '../../core/rego/syntax/ast.js'

/** The expression's own location, else the earliest location found among its terms. */
export function expressionStart(expr: Expr): Location | undefined {
  if (expr.location) return expr.location
  let earliest: Location | undefined
  const visit = (t: Term | undefined, depth: number): void => {
    // Bounded: residual terms are shallow, and only the outer parts can start an expression.
    if (!t || depth > 8) return
    if (t.location && (!earliest || before(t.location, earliest))) earliest = t.location
    if (t.type === 'ref' || t.type === 'call') for (const p of t.value) visit(p, depth + 1)
  }
  const terms = expr.terms
  if (Array.isArray(terms)) for (const t of terms) visit(t, 0)
  else if (isTerm(terms)) visit(terms, 0)
  return earliest
}

function before(a: Location, b: Location): boolean {
  if (a.file !== b.file) return false
  return a.row < b.row || (a.row === b.row && a.col < b.col)
}
