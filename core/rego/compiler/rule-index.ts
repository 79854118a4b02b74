/**
 * Rule indices: which rules of a rule set can possibly match, decided from equality constraints
 * between a base-document ref (or a function argument) and a constant, plus the facts the
 * evaluator needs about the set as a whole (kind, default rule, early exit). Built once at compile
 * time; the evaluator resolves the constrained refs per query.
 */
import type { Expr, Term } from '../syntax/ast.js'
import type { RuleEntry, RuleTreeNode } from './rule-tree.js'
import { isConstant, isEquality, isGround, refName, termsEqual } from './terms.js'

/** Where an indexed value comes from: a ground `input`/`data` path, or a function argument. */
export type IndexSource =
  | { root: 'input' | 'data'; path: Term[] }
  | { root: 'arg'; index: number; path: Term[] }

/** One `source = constant` constraint of a rule body or head. */
export interface IndexConstraint {
  source: IndexSource
  value: Term
}

/** The index of one rule set. */
export interface RuleIndex {
  /** True for `contains` rules. */
  multiValue: boolean
  /** Non-default rules, in order. */
  rules: RuleEntry[]
  defaultRule: RuleEntry | undefined
  /** Per rule (same order as `rules`): constraints that must all hold. */
  constraints: IndexConstraint[][]
  /** True when no rule of the set has vars in its ref. */
  onlyGroundRefs: boolean
  /** True when the first successful body decides the value (all values ground and equal, no else). */
  earlyExit: boolean
}

/** Builds the index for the rules at one node. */
export function buildRuleIndex(entries: RuleEntry[], tree: RuleTreeNode): RuleIndex {
  const rules = entries.filter((e) => !e.rule.default)
  const defaultRule = entries.find((e) => e.rule.default)
  const first = entries[0]
  const multiValue = first ? first.rule.head.key !== undefined && first.rule.head.value === undefined : false
  const onlyGroundRefs = entries.every((e) => e.rule.head.ref.slice(1).every(isGround))
  let earlyExit = !multiValue && onlyGroundRefs && rules.length > 0
  let value: Term | undefined
  for (const e of rules) {
    const v = e.rule.head.value
    if (!v || !isGround(v) || e.rule.else) {
      earlyExit = false
      break
    }
    if (!value) value = v
    else if (!termsEqual(value, v)) {
      earlyExit = false
      break
    }
  }
  const constraints = rules.map((e) => constraintsOf(e, tree))
  return { multiValue, rules, defaultRule, constraints, onlyGroundRefs, earlyExit }
}

function constraintsOf(entry: RuleEntry, tree: RuleTreeNode): IndexConstraint[] {
  const out: IndexConstraint[] = []
  const args = entry.rule.head.args ?? []
  const argVars = new Map<string, number>()
  for (const [i, a] of args.entries()) {
    if (a.type === 'var') argVars.set(a.value, i)
    else if (isConstant(a)) out.push({ source: { root: 'arg', index: i, path: [] }, value: a })
  }
  // The else chain shares the rule's place in the index, so only its own body counts when it has none.
  if (entry.rule.else) return out
  // `v = input.x` (as the compiler writes `input.x == 1`) makes `v` stand for the ref.
  const aliases = new Map<string, IndexSource>()
  for (const expr of entry.rule.body) {
    const c = constraintOf(expr, argVars, aliases, tree)
    if (c) out.push(c)
  }
  return out
}

function constraintOf(
  expr: Expr,
  argVars: Map<string, number>,
  aliases: Map<string, IndexSource>,
  tree: RuleTreeNode,
): IndexConstraint | undefined {
  if (expr.negated || (expr.with && expr.with.length > 0) || !Array.isArray(expr.terms)) return undefined
  const [op, a, b, extra] = expr.terms as Term[]
  const isEq = isEquality(expr)
  // equal(a, b) with a captured output can be false without failing, so it cannot exclude a rule.
  const isEqual = !isEq && op !== undefined && refName(op) === 'equal' && extra === undefined
  if ((!isEq && !isEqual) || !a || !b) return undefined
  if (isEq) {
    const alias = (v: Term, r: Term): boolean => {
      if (v.type !== 'var' || aliases.has(v.value) || argVars.has(v.value)) return false
      const source = sourceOf(r, argVars, tree)
      if (!source) return false
      aliases.set(v.value, source)
      return true
    }
    if (alias(a, b) || alias(b, a)) return undefined
  }
  const pick = (ref: Term, value: Term): IndexConstraint | undefined => {
    if (!isConstant(value)) return undefined
    const source =
      ref.type === 'var'
        ? (aliases.get(ref.value) ?? sourceOf(ref, argVars, tree))
        : sourceOf(ref, argVars, tree)
    return source ? { source, value } : undefined
  }
  return pick(a, b) ?? pick(b, a)
}

function sourceOf(t: Term, argVars: Map<string, number>, tree: RuleTreeNode): IndexSource | undefined {
  if (t.type === 'var') {
    const i = argVars.get(t.value)
    return i === undefined ? undefined : { root: 'arg', index: i, path: [] }
  }
  if (t.type !== 'ref') return undefined
  const [head, ...path] = t.value
  if (head?.type !== 'var' || !path.every((p) => p.type === 'string' || p.type === 'number')) return undefined
  if (head.value === 'input') return { root: 'input', path }
  if (head.value === 'data') {
    // Only base documents: a path that reaches a node with rules is virtual.
    let node: RuleTreeNode | undefined = tree
    for (const p of path) {
      node = node.child(p)
      if (!node) break
      if (node.rules.length > 0) return undefined
    }
    if (node) return undefined
    return { root: 'data', path }
  }
  const i = argVars.get(head.value)
  return i === undefined ? undefined : { root: 'arg', index: i, path }
}
