/**
 * BuildRuleIndices: for every rule set, the equality constraints the evaluator can check before
 * running a body (`input.method = "GET"`, a constant function argument), and whether the set allows
 * early exit (all values ground and equal, so the first success decides).
 */
import type { Compiler } from '../compiler.js'
import { buildRuleIndex } from '../rule-index.js'

/** The stage. */
export function buildRuleIndices(c: Compiler): void {
  c.ruleTree.depthFirst((node) => {
    if (node.rules.length > 0) c.ruleIndices.set(node, buildRuleIndex(node.rules, c.ruleTree))
    return false
  })
}
