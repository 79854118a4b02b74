/**
 * CheckRuleConflicts: rules at one path must agree on kind (single/multi value) and arity, there is
 * at most one default, a complete rule has no rules in its extent, and a package does not collide
 * with a rule of another package.
 */
import { typeError } from '../../errors.js'
import type { Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { type RuleEntry, type RuleTreeNode, ruleRef } from '../rule-tree.js'
import { groundPrefix, isGround } from '../terms.js'
import { packageString, refString } from '../text.js'

/** Whether a rule produces one value (complete, function, object key) or a set (contains). */
export function isMultiValue(entry: RuleEntry): boolean {
  return entry.rule.head.key !== undefined && entry.rule.head.value === undefined
}

/** The stage. */
export function checkRuleConflicts(c: Compiler): void {
  let stop = false
  c.ruleTree.depthFirst((node) => {
    if (stop) return true
    if (node.rules.length === 0) return false
    const kinds = new Set<boolean>()
    const arities = new Set<number>()
    let complete = 0
    let partial = 0
    let conflicts: string[] | undefined
    const defaults: RuleEntry[] = []
    let name = ''
    for (const entry of node.rules) {
      const ref = ruleRef(entry)
      name = refString(displayRef(c, ref))
      kinds.add(isMultiValue(entry))
      arities.add(entry.rule.head.args?.length ?? 0)
      if (entry.rule.default) defaults.push(entry)
      const ground = ref.slice(1).every(isGround)
      if (ground && node.children.size > 0) conflicts = flattenChildren(node)
      if (!isMultiValue(entry) && ground) complete++
      else partial++
    }
    const first = node.rules[0] as RuleEntry
    if (conflicts) {
      stop = !c.err(typeError(first.rule.location, `rule ${name} conflicts with [${conflicts.join(' ')}]`))
      return stop
    }
    if (kinds.size > 1 || arities.size > 1 || (complete >= 1 && partial >= 1)) {
      stop = !c.err(typeError(first.rule.location, `conflicting rules ${name} found`))
      return stop
    }
    if (defaults.length > 1) {
      const locs = defaults.map((d) => locString(d.rule.location)).join(', ')
      stop = !c.err(
        typeError(first.module.package.location, `multiple default rules ${name} found at ${locs}`),
      )
      return stop
    }
    return false
  })
  if (stop) return
  // A package path must not be the full ref of a rule in another package.
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      const ref = ruleRef({ rule, module: mod })
      if (groundPrefix(ref).length < ref.length) continue
      for (const other of c.sortedModules()) {
        if (other === mod || other.package.path.length !== ref.length) continue
        if (refString(other.package.path) !== refString(ref)) continue
        if (
          !c.err(
            typeError(
              mod.package.location,
              `${packageString(other.package.path)} conflicts with rule ${refString(rule.head.ref)} defined at ${locString(rule.location)}`,
            ),
          )
        )
          return
      }
    }
  }
}

function displayRef(c: Compiler, ref: Term[]): Term[] {
  return ref.map((t) => (t.type === 'var' ? { ...t, value: c.rewrittenVars.get(t.value) ?? t.value } : t))
}

function flattenChildren(node: RuleTreeNode): string[] {
  const out = new Set<string>()
  for (const child of node.children.values()) {
    child.depthFirst((x) => {
      for (const r of x.rules) out.add(refString(ruleRef(r)))
      return false
    })
  }
  return [...out].sort()
}

function locString(loc: { file: string; row: number; col: number } | undefined): string {
  if (!loc) return ''
  return `${loc.file}:${loc.row}`
}
