/**
 * The cached value of a rule a failed expression refers to, for `regent test --var-values` (OPA's
 * localVirtualCacheSnapshot): a ref whose path, after `data`, is written out names one rule set;
 * the value evaluation stored for it is what the failure diagram shows.
 */
import type { Term } from '../syntax/ast.js'
import { fromCached } from './cache.js'
import type { Evaluator } from './evaluator.js'
import { SetKind } from './ir.js'
import type { RuleValueOf } from './trace-failure.js'

/**
 * Looks rule values up in `e`'s cache. `popped`: read the layer of the `with` that just ended
 * (the failed expression had `with` modifiers and its layer is gone once it returns).
 */
export function cachedRuleValues(e: Evaluator, popped: boolean): RuleValueOf {
  return (ref: Term & { type: 'ref' }) => {
    const [head, ...path] = ref.value
    if (head?.type !== 'var' || head.value !== 'data' || path.length === 0) return undefined
    let node = e.policy.root
    for (const part of path) {
      if (part.type !== 'string') return undefined
      const child = node.child(part.value)
      if (!child) return undefined
      node = child
    }
    const set = node.ruleSet
    if (!set || set.kind === SetKind.Function) return undefined
    const cached = e.cache.lastRule(set.id, popped)
    return cached === undefined ? undefined : { value: fromCached(cached) }
  }
}
