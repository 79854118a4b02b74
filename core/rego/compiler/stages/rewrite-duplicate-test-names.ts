/**
 * RewriteDuplicateTestNames (only when compiling for `regent test`, OPA's tester stage of the
 * same name, run after RewriteRuleHeadRefs): several test rules with one name in one package are
 * separate tests, so every definition after the first is renamed `name#01`, `name#02`, ... and
 * runs, passes and fails on its own instead of being merged into one rule.
 */
import type { Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { stringTerm, varTerm } from '../terms.js'
import { TEST_PREFIX, testPath, testRuleName } from '../test-rules.js'
import { refString } from '../text.js'

/** The stage. */
export function rewriteDuplicateTestNames(c: Compiler): void {
  const seen = new Map<string, number>()
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      const test = testRuleName(rule.head)
      if (!test?.name.startsWith(TEST_PREFIX)) continue
      const key = refString(testPath(mod.package.path, test.ref))
      const count = seen.get(key) ?? 0
      seen.set(key, count + 1)
      if (count === 0) continue
      const renamed = `${test.name}#${String(count).padStart(2, '0')}`
      const at = test.ref.length - 1
      // An else chain carries the head of the rule it belongs to.
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const old = r.head.ref[at] as Term
        r.head.ref[at] = at === 0 ? varTerm(renamed, old.location) : stringTerm(renamed, old.location)
        if (at === 0 && r.head.name !== undefined) r.head.name = renamed
      }
    }
  }
}
