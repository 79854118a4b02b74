/**
 * CheckTypes: the `rego_type_error`s compiler/body-checker.ts finds in every rule body, with the
 * types compiler/rule-types.ts infers. NOTE(regent): OPA infers a little more (a few corners
 * listed in docs/conformance.md), so a policy regent accepts may still be rejected by
 * OPA, never the other way round.
 */
import type { RegoError } from '../../errors.js'
import type { Body } from '../../syntax/ast.js'
import { BodyChecker } from '../body-checker.js'
import type { Compiler } from '../compiler.js'
import { RuleTypes } from '../rule-types.js'
import { BodyTypes } from '../type-inference.js'

/**
 * The rule types of a compiled module set, worked out once: queries compiled later against the
 * same modules (every compile request of the compile endpoint) reuse them.
 */
const ruleTypesByCompiler = new WeakMap<Compiler, RuleTypes>()

function ruleTypesOf(c: Compiler): RuleTypes {
  let rules = ruleTypesByCompiler.get(c)
  if (!rules) {
    rules = new RuleTypes(c)
    ruleTypesByCompiler.set(c, rules)
  }
  return rules
}

/** The stage. */
export function checkTypes(c: Compiler): void {
  const rules = ruleTypesOf(c)
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: typeof rule | undefined = rule; r; r = r.else) {
        if (!c.err(...rules.errorsOf(r))) return
      }
    }
  }
}

/** The type errors of a query's `body`. */
export function typeErrors(c: Compiler, body: Body, rules = ruleTypesOf(c)): RegoError[] {
  const checker = new BodyChecker(c, new BodyTypes(c, rules))
  checker.body(body)
  return checker.errors
}
