/**
 * The budget a residual costs (budget.ts's work limit): partial evaluation charges every residual it
 * keeps by its size, so that one producing a huge residual stops.
 */
import type { Body, Expr, Term } from '../syntax/ast.js'

/**
 * Units of budget a residual costs: {@link UNITS_PER_AST_NODE} per AST node (a node with its
 * location holds about as much memory as a few values; measured ~700 bytes for `input.x == 5`).
 * Expressions and the common terms are counted by their shape: the generic walk (`Object.entries`
 * on every node) was 15% of a 1,000-rule compile request (docs/performance.md).
 */
export function astUnits(body: Body): number {
  let n = 0
  for (const e of body) n += exprUnits(e)
  return n
}

function exprUnits(e: Expr): number {
  let n = UNITS_PER_AST_NODE
  const terms = e.terms
  if (Array.isArray(terms)) for (const t of terms) n += termUnits(t)
  else n += termUnits(terms as Term)
  if (e.with) n += genericUnits(e.with)
  return n
}

/** Units of one term of a residual (see {@link astUnits}). */
export function termUnits(t: Term): number {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
    case 'var':
      return UNITS_PER_AST_NODE
    case 'ref':
    case 'array':
    case 'set':
    case 'call': {
      let n = UNITS_PER_AST_NODE
      for (const x of t.value) n += termUnits(x)
      return n
    }
    default:
      return genericUnits(t)
  }
}

/** Any AST shape: every object not under a `location` key is a node. */
function genericUnits(x: unknown): number {
  if (Array.isArray(x)) {
    let n = 0
    for (const y of x) n += genericUnits(y)
    return n
  }
  if (x === null || typeof x !== 'object') return 0
  let n = UNITS_PER_AST_NODE
  for (const [k, v] of Object.entries(x)) if (k !== 'location' && typeof v === 'object') n += genericUnits(v)
  return n
}

/** Budget units per AST node of a residual. */
export const UNITS_PER_AST_NODE = 4
