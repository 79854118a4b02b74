/**
 * RewriteRuleHeadRefs: non-scalar, non-var terms in a rule's head ref are moved into the body so
 * the rule tree only ever sees vars and scalars there: `p.q[y.z]` becomes `p.q[__local0__]` with
 * `__local0__ = y.z` appended to the body.
 */
import type { Rule } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { equalityExpr, isScalar, termsEqual } from '../terms.js'

/** The stage. */
export function rewriteRuleHeadRefs(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) rewriteHead(c, r)
    }
  }
}

function rewriteHead(c: Compiler, rule: Rule): void {
  const ref = rule.head.ref
  for (let i = 1; i < ref.length; i++) {
    const part = ref[i]
    if (!part || part.type === 'var' || isScalar(part)) continue
    const v = c.localVarGen.generateTerm(part.location)
    if (i === ref.length - 1 && rule.head.key && termsEqual(rule.head.key, part)) rule.head.key = v
    ref[i] = v
    rule.body.push(equalityExpr(v, part, part.location))
  }
}
