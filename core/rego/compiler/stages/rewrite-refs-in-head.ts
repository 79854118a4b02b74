/**
 * RewriteRefsInHead: rule head keys, values and arguments that need evaluation (refs,
 * comprehensions) are bound to vars in the body, so a head only holds terms the evaluator can
 * plug: `p[{"foo": data.foo[i]}] { i < 100 }` becomes `p[__local0__] { i < 100; __local0__ = ... }`.
 */
import type { Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { equalityExpr, requiresEval } from '../terms.js'

/** The stage. */
export function rewriteRefsInHead(c: Compiler): void {
  const gen = c.localVarGen
  const lift = (rule: Rule, t: Term): Term => {
    const v = gen.generateTerm(t.location)
    rule.body.push(equalityExpr(v, t, t.location))
    return v
  }
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const h = r.head
        if (h.key && requiresEval(h.key)) h.key = lift(r, h.key)
        if (h.value && requiresEval(h.value)) h.value = lift(r, h.value)
        if (h.args) h.args = h.args.map((a) => (requiresEval(a) ? lift(r, a) : a))
      }
    }
  }
}
