/**
 * Two checks OPA runs before it accepts a write: base data must not sit where a rule produces a
 * document (`ast.CheckPathConflicts` with `storage.NonEmpty`), and nothing may be written under a
 * path a bundle owns (the server's `checkPathScope`).
 */

import type { RuleTreeNode } from '../core/rego/compiler/rule-tree.js'
import { compileError, type RegoError } from '../core/rego/errors.js'
import { isObject, type Value } from '../core/rego/values/index.js'
import { readPath } from './data-tree.js'

/**
 * The `conflicting rule for data path a/b found` errors of a rule tree against base data: a rule
 * conflicts when data exists at its path, or when the nearest existing value above it is not an
 * object (the rule's document could not be merged into it).
 */
export function dataConflicts(ruleTree: RuleTreeNode, data: Value): RegoError[] {
  const errors: RegoError[] = []
  const visit = (node: RuleTreeNode, path: string[]): void => {
    // Rules under non-string keys (`p[1]`) cannot collide with JSON data.
    if (node.key.type !== 'string') return
    const here = [...path, node.key.value]
    const first = node.rules[0]
    if (first && nonEmpty(data, here)) {
      errors.push(compileError(first.rule.location, `conflicting rule for data path ${here.join('/')} found`))
      return
    }
    for (const c of node.children.values()) visit(c, here)
  }
  for (const c of ruleTree.children.values()) visit(c, [])
  return errors
}

function nonEmpty(data: Value, path: readonly string[]): boolean {
  if (readPath(data, path) !== undefined) return true
  for (let i = path.length - 1; i > 0; i--) {
    const above = readPath(data, path.slice(0, i))
    if (above !== undefined) return !isObject(above)
  }
  return false
}

/** A bundle's name and the roots it owns (`''` owns everything). */
export interface OwnedRoots {
  name: string
  roots: readonly string[]
}

/**
 * Why a write at `path` is refused because a bundle owns it, or undefined when it is allowed. As
 * OPA, a path conflicts with a root when either is a prefix of the other.
 * @example ownershipConflict(['a'], [{ name: 'b', roots: ['a/x'] }]) // 'path a is owned by bundle "b"'
 */
export function ownershipConflict(
  path: readonly string[],
  bundles: readonly OwnedRoots[],
): string | undefined {
  if (bundles.length === 0) return undefined
  if (path.length === 0) return "can't write to document root with bundle roots configured"
  for (const { name, roots } of bundles) {
    for (const root of roots) {
      if (root === '') return `all paths owned by bundle ${JSON.stringify(name)}`
      const parts = root.split('/')
      const n = Math.min(parts.length, path.length)
      let owned = true
      for (let i = 0; i < n; i++) if (parts[i] !== path[i]) owned = false
      if (owned) return `path ${path.join('/')} is owned by bundle ${JSON.stringify(name)}`
    }
  }
  return undefined
}
