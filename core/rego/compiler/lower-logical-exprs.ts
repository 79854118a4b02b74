/**
 * Lowers the `and` / `or` keywords (OPA 1.20, `LogicalExpr`) to not-bodies, before any compiler
 * stage runs, so every stage, the evaluator and partial evaluation handle them through the
 * not-body machinery they already have:
 *
 *   A or B   =>  not { not { A }; not { B } }
 *   A and B  =>  not { not { A; B } }
 *
 * Each side stays a closure (what it binds does not escape), and the whole expression succeeds at
 * most once, as a not-body does. A `with` on the expression stays on the outer not-body, so it
 * applies to both sides. Mutates the (already copied) module or query it is given.
 */
import type { Body, Expr, Location, LogicalExpr, Module, NotBody } from '../syntax/ast.js'
import { walk } from '../syntax/walk.js'

/** Lowers every `and` / `or` expression under `node`, in place. */
export function lowerLogicalExprs<T extends Module | Body>(node: T): T {
  walk(node, (n) => {
    if (n.type !== 'expr') return
    const t = n.terms
    if (Array.isArray(t) || (t.type !== 'and' && t.type !== 'or')) return
    n.terms = lower(t)
  })
  return node
}

function lower(t: LogicalExpr): NotBody {
  const loc = t.location
  if (t.type === 'and') {
    const both = [...t.lhs, ...t.rhs].map((e, index) => ({ ...e, index }))
    return notBody([exprOf(notBody(both, loc), 0, loc)], loc)
  }
  return notBody([exprOf(notBody(t.lhs, loc), 0, loc), exprOf(notBody(t.rhs, loc), 1, loc)], loc)
}

/** An explicit not-body (`:=` is allowed in it, as in a braced operand). */
function notBody(body: Body, location: Location | undefined): NotBody {
  return location
    ? { type: 'not', body, explicitBody: true, location }
    : { type: 'not', body, explicitBody: true }
}

function exprOf(terms: NotBody, index: number, location: Location | undefined): Expr {
  return location ? { type: 'expr', index, terms, location } : { type: 'expr', index, terms }
}
