/**
 * RewriteComprehensionTerms: a comprehension's head term that needs evaluation (refs, nested
 * comprehensions) is bound to a var at the end of its body: `[x[0] | x = y[_]]` becomes
 * `[__local0__ | x = y[_]; __local0__ = x[0]]`.
 */
import type { Body, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { equalityExpr, requiresEval, walkTerms } from '../terms.js'

/** The stage. */
export function rewriteComprehensionTerms(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        for (const t of [...r.head.ref, ...(r.head.args ?? []), r.head.key, r.head.value]) {
          if (t) rewriteComprehensionsIn(c.localVarGen, t)
        }
        rewriteComprehensionsIn(c.localVarGen, r.body)
      }
    }
  }
}

/** Rewrites the comprehensions found anywhere under `node`, innermost first. */
export function rewriteComprehensionsIn(gen: LocalVarGenerator, node: Term | Body): void {
  walkTerms(node, (t) => {
    switch (t.type) {
      case 'arraycomprehension':
      case 'setcomprehension':
        rewriteComprehensionsIn(gen, t.value.term)
        rewriteComprehensionsIn(gen, t.value.body)
        if (requiresEval(t.value.term)) {
          const v = gen.generateTerm(t.value.term.location)
          t.value.body.push(equalityExpr(v, t.value.term, t.value.term.location))
          t.value.term = v
        }
        return true
      case 'objectcomprehension':
        rewriteComprehensionsIn(gen, t.value.key)
        rewriteComprehensionsIn(gen, t.value.value)
        rewriteComprehensionsIn(gen, t.value.body)
        if (requiresEval(t.value.key)) {
          const v = gen.generateTerm(t.value.key.location)
          t.value.body.push(equalityExpr(v, t.value.key, t.value.key.location))
          t.value.key = v
        }
        if (requiresEval(t.value.value)) {
          const v = gen.generateTerm(t.value.value.location)
          t.value.body.push(equalityExpr(v, t.value.value, t.value.value.location))
          t.value.value = v
        }
        return true
    }
    return false
  })
}
