/**
 * Small questions the lint rules ask of the AST: a rule's name, a call's operator, the vars a node
 * mentions. Kept here so each rule file reads as its rationale and its check.
 */
import type { Body, Expr, Module, Node, Rule, Term } from '../rego/syntax/ast.js'
import { isCallExpr, operatorName, WILDCARD_PREFIX } from '../rego/syntax/ast.js'
import { walk } from '../rego/syntax/walk.js'

/** The first part of a rule's head ref (`p` in `p.q[x]`), or undefined for an odd head. */
export function ruleName(rule: Rule): string | undefined {
  const first = rule.head.ref[0]
  return first?.type === 'var' ? first.value : undefined
}

/** The package path without `data` (`a.b`). */
export function packageName(module: Module): string {
  return module.package.path
    .slice(1)
    .map((t) => (t.type === 'string' ? t.value : '?'))
    .join('.')
}

/** True for the vars the parser made of `_`. */
export function isWildcard(term: Term | undefined): boolean {
  return term?.type === 'var' && term.value.startsWith(WILDCARD_PREFIX)
}

/** The operator name of a call expression, else undefined. */
export function callName(expr: Expr): string | undefined {
  return isCallExpr(expr) ? operatorName(expr.terms[0]) : undefined
}

/** How many times each var name occurs under `nodes` (refs' heads and operands included). */
export function varCounts(nodes: ReadonlyArray<Node | Body>): Map<string, number> {
  const counts = new Map<string, number>()
  for (const node of nodes) {
    walk(node, (n) => {
      if (n.type === 'var') counts.set(n.value, (counts.get(n.value) ?? 0) + 1)
    })
  }
  return counts
}

/** Every var name under `node`. */
export function varsIn(node: Node | Body): Set<string> {
  return new Set(varCounts([node]).keys())
}

/** True for null, boolean, number and string terms. */
export function isScalar(term: Term | undefined): boolean {
  return (
    term !== undefined &&
    (term.type === 'null' || term.type === 'boolean' || term.type === 'number' || term.type === 'string')
  )
}

/** A rule and its `else` chain, with every rule of the module. */
export function allRules(module: Module): Rule[] {
  const out: Rule[] = []
  for (const rule of module.rules) for (let r: Rule | undefined = rule; r; r = r.else) out.push(r)
  return out
}

/** True when a test rule (`test_…`) or a `todo_test_…`. */
export function isTestName(name: string | undefined): boolean {
  return name !== undefined && (name.startsWith('test_') || name.startsWith('todo_test_'))
}

/** Names a body may use without binding them: the module's rule names and import names. */
export function topLevelNames(module: Module): Set<string> {
  const names = new Set<string>(['input', 'data'])
  for (const rule of module.rules) {
    const name = ruleName(rule)
    if (name) names.add(name)
  }
  for (const imp of module.imports) {
    const last = imp.path.value.at(-1)
    if (imp.alias) names.add(imp.alias)
    else if (last?.type === 'string' || last?.type === 'var') names.add(last.value)
  }
  return names
}
