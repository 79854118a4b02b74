/**
 * The module tree (keyed by package path) and the rule tree (keyed by the ground prefix of every
 * rule's full reference), as OPA's compiler builds them. The evaluator walks the rule tree to find
 * the virtual documents under a `data` ref; the compiler uses it for conflicts, `with` checks and
 * the dependency graph.
 */
import type { Module, Rule, Term } from '../syntax/ast.js'
import { groundPrefix, isGround, stringTerm, TERM_TYPE_ORDER, termKey } from './terms.js'

/** A rule together with the module it came from. */
export interface RuleEntry {
  rule: Rule
  module: Module
}

/** One node of the rule tree. `key` is the path segment (the root has key `data`). */
export class RuleTreeNode {
  readonly key: Term
  readonly children = new Map<string, RuleTreeNode>()
  /** Rules whose ground ref prefix ends exactly here. */
  readonly rules: RuleEntry[] = []
  /** True for `data.system`, which is hidden from whole-document reads. */
  hidden = false

  constructor(key: Term) {
    this.key = key
  }

  /** The child for a ground key term, if any. Refs and calls never match. */
  child(key: Term): RuleTreeNode | undefined {
    if (key.type === 'ref' || key.type === 'call') return undefined
    return this.children.get(nodeKey(key))
  }

  /** Children sorted by key as OPA orders values (strings before composites, etc.). */
  sortedChildren(): RuleTreeNode[] {
    return [...this.children.values()].sort((a, b) => compareKeys(a.key, b.key))
  }

  /** Follows `path` as far as it goes; returns the deepest node and the unmatched tail. */
  find(path: Term[]): { node: RuleTreeNode; tail: Term[] } {
    let node: RuleTreeNode = this
    for (let i = 0; i < path.length; i++) {
      const next = node.child(path[i] as Term)
      if (!next) return { node, tail: path.slice(i) }
      node = next
    }
    return { node, tail: [] }
  }

  /** The node at exactly `path`, if any. */
  lookup(path: Term[]): RuleTreeNode | undefined {
    const { node, tail } = this.find(path)
    return tail.length === 0 ? node : undefined
  }

  /** Adds `entry` (or just the path, for packages without rules) under `path`. */
  add(path: Term[], entry: RuleEntry | undefined): void {
    let node: RuleTreeNode = this
    for (const part of path) {
      const k = nodeKey(part)
      let next = node.children.get(k)
      if (!next) {
        next = new RuleTreeNode(part)
        node.children.set(k, next)
      }
      node = next
    }
    if (entry) node.rules.push(entry)
  }

  /** Depth-first walk; `f` returns true to skip a node's children. */
  depthFirst(f: (node: RuleTreeNode) => boolean | undefined): void {
    if (f(this)) return
    for (const c of this.children.values()) c.depthFirst(f)
  }
}

/** Map key of a tree segment. String segments use the plain string so lookups by name are cheap. */
export function nodeKey(t: Term): string {
  return t.type === 'string' ? t.value : `\u0000${termKey(t)}`
}

/** The full reference of a rule: the package path followed by the head ref (`data.a.b.p[x]`). */
export function ruleRef(entry: RuleEntry): Term[] {
  const head = entry.rule.head.ref
  const first = head[0]
  const rest = head.slice(1)
  const name = first?.type === 'var' ? stringTerm(first.value, first.location) : first
  return [...entry.module.package.path, ...(name ? [name] : []), ...rest]
}

/** Builds the rule tree of a module set (`modules` in sorted order). */
export function buildRuleTree(modules: Module[]): RuleTreeNode {
  const root = new RuleTreeNode({ type: 'var', value: 'data' })
  for (const module of modules) {
    const pkgPath = module.package.path.slice(1)
    if (module.rules.length === 0) root.add(pkgPath, undefined)
    for (const rule of module.rules) {
      const entry: RuleEntry = { rule, module }
      root.add(groundPrefix(ruleRef(entry)).slice(1), entry)
    }
  }
  const system = root.children.get('system')
  if (system) system.hidden = true
  return root
}

/** True when some rule's ref below `node` (including node itself) is not ground. */
export function hasNonGroundRules(node: RuleTreeNode): boolean {
  return node.rules.some((r) => !ruleRef(r).every((t, i) => i === 0 || isGround(t)))
}

/** Orders tree keys the way OPA sorts values: by type first, then by value. */
function compareKeys(a: Term, b: Term): number {
  const ta = TERM_TYPE_ORDER[a.type] ?? 9
  const tb = TERM_TYPE_ORDER[b.type] ?? 9
  if (ta !== tb) return ta - tb
  if (a.type === 'string' && b.type === 'string') return compareUtf8(a.value, b.value)
  if (a.type === 'number' && b.type === 'number') return Number(a.value) - Number(b.value)
  const ka = termKey(a)
  const kb = termKey(b)
  return ka < kb ? -1 : ka > kb ? 1 : 0
}

/** Compares strings by their UTF-8 bytes, as Go does. */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0
  const ba = Buffer.from(a, 'utf8')
  const bb = Buffer.from(b, 'utf8')
  return Buffer.compare(ba, bb)
}
