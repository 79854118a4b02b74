/**
 * CheckPathConflicts: a rule must not be defined where the base documents (the data loaded beside
 * the policy: `data.json` files, bundle data, data written to a server) already hold a value, as
 * OPA's compiler refuses with `WithPathConflictsCheck` and `storage.NonEmpty`.
 */
import { compileError, type RegoError } from '../../errors.js'
import { isObject, type Value } from '../../values/index.js'
import type { Compiler } from '../compiler.js'
import type { RuleTreeNode } from '../rule-tree.js'

/** The stage: runs when the compiler was given the base documents. */
export function checkPathConflicts(c: Compiler): void {
  if (c.baseData !== undefined) c.err(...dataConflicts(c.ruleTree, c.baseData))
}

/**
 * The `conflicting rule for data path a/b found` errors of a rule tree against base data: a rule
 * conflicts when data exists at its path (even `{}`), or when the nearest existing value above it
 * is not an object (the rule's document could not be merged into it). Rules under non-string keys
 * (`p[1]`, `p[x]`) cannot be located in JSON data ahead of evaluation and are not checked.
 */
export function dataConflicts(ruleTree: RuleTreeNode, data: Value): RegoError[] {
  const errors: RegoError[] = []
  const visit = (node: RuleTreeNode, path: string[]): void => {
    if (node.key.type !== 'string') return
    const here = [...path, node.key.value]
    const first = node.rules[0]
    if (first && nonEmpty(data, here)) {
      errors.push(compileError(first.rule.location, `conflicting rule for data path ${here.join('/')} found`))
      return
    }
    for (const child of node.children.values()) visit(child, here)
  }
  for (const child of ruleTree.children.values()) visit(child, [])
  return errors
}

/** OPA's `storage.NonEmpty` (an array above the path is a non-object, so indices need no reading). */
function nonEmpty(data: Value, path: readonly string[]): boolean {
  let node: Value = data
  for (let i = 0; i < path.length; i++) {
    if (!isObject(node)) return i > 0
    const next = node.get(path[i] as string)
    if (next === undefined) return false
    node = next
  }
  return true
}
