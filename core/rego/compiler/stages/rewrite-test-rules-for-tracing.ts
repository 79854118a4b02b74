/**
 * RewriteTestRulesForTracing (OPA's `WithRewriteTestRules`, on for `regent test --var-values`): in
 * test rules, a ref or comprehension compared by `==` or `=` is bound to a variable first, so the
 * value it had is in the frame when the comparison fails and `--var-values` can show it:
 * `p == {4, 5, 6}` becomes `__local0__ = data.test.p; __local0__ == {4, 5, 6}`, the generated
 * variable located at `p`. Negated expressions are left as they are (their refs may be undefined).
 */
import type { Body, Expr, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { equalityExpr, isEquality } from '../terms.js'
import { testRuleName } from '../test-rules.js'

/** The stage: runs only when the compiler is asked to (`traceTestRules`). */
export function rewriteTestRulesForTracing(c: Compiler): void {
  if (!c.options.traceTestRules) return
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      if (!testRuleName(rule.head)) continue
      rule.body = rewriteTestEqualities(c.localVarGen, rule.body)
    }
  }
}

function rewriteTestEqualities(gen: LocalVarGenerator, body: Body): Body {
  const result: Body = []
  for (const expr of body) {
    if (!expr.negated && !expr.generated) {
      const ts = expr.terms
      if (isEquality(expr)) {
        const terms = ts as Term[]
        terms[1] = bound(gen, expr, terms[1] as Term, result)
        terms[2] = bound(gen, expr, terms[2] as Term, result)
      } else if (!Array.isArray(ts) && ts.type === 'every') {
        // A failure inside an every body fails the test: its comparisons are shown too.
        ts.body = rewriteTestEqualities(gen, ts.body)
      }
    }
    result.push(expr)
  }
  return result
}

function bound(gen: LocalVarGenerator, original: Expr, term: Term, result: Body): Term {
  switch (term.type) {
    case 'ref':
    case 'arraycomprehension':
    case 'setcomprehension':
    case 'objectcomprehension': {
      const v = gen.generateTerm(term.location)
      const eq = equalityExpr(v, term, term.location)
      if (original.with) eq.with = original.with
      result.push(eq)
      return v
    }
    default:
      return term
  }
}
