/**
 * Test helpers that build residual queries from Rego text with the real parser, the way the compiler
 * leaves them for partial evaluation: a top-level `==` becomes unification `eq` and loses its operator
 * location (OPA's rewrite does the same, which is why `==` errors point at the expression start).
 */
import type { Body, Expr, Module, Term } from '../../core/rego/syntax/ast.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'

/** The bodies of every rule named `rule` (default `include`) in `moduleText`, as residual queries. */
export function residualOf(moduleText: string, rule = 'include', file = 'filters.rego'): Body[] {
  const module = parseModule(moduleText, { file })
  return module.rules
    .filter((r) => r.head.ref[0]?.type === 'var' && r.head.ref[0].value === rule)
    .map((r) => r.body.map(rewriteEqual))
}

/** Residual queries from bodies written one per string (`input.fruits.price > 1; input.fruits.name = "x"`). */
export function residual(...bodies: string[]): Body[] {
  if (bodies.length === 0) return []
  const text = `package filters\n${bodies.map((b) => `include if {\n${b}\n}`).join('\n')}\n`
  return residualOf(text)
}

/** Parses a module (support modules in tests). */
export function moduleOf(text: string, file = 'support.rego'): Module {
  return parseModule(text, { file })
}

function rewriteEqual(expr: Expr): Expr {
  const terms = expr.terms
  if (!Array.isArray(terms)) return expr
  const operator = terms[0]
  if (operator?.type === 'ref' && operator.value.length === 1 && operator.value[0]?.type === 'var') {
    if (operator.value[0].value === 'equal') {
      const eq: Term = { type: 'ref', value: [{ type: 'var', value: 'eq' }] }
      return { ...expr, terms: [eq, ...terms.slice(1)] }
    }
  }
  return expr
}
