/**
 * Generic traversal of the AST. `children` lists a node's direct child nodes in source order;
 * `walk` visits a node and its descendants depth-first, and skips a subtree when the visitor
 * returns `false`. Compiler stages use these instead of hand-written recursion for every kind.
 */
import type { Body, Expr, Node, Rule, Term } from './ast.js'

/** The direct children of `node`, in source order. */
export function children(node: Node): Node[] {
  switch (node.type) {
    case 'module':
      return [node.package, ...node.imports, ...node.rules]
    case 'package':
      return node.path
    case 'import':
      return [node.path]
    case 'rule': {
      const out: Node[] = [node.head, ...node.body]
      if (node.else) out.push(node.else)
      return out
    }
    case 'head': {
      const out: Node[] = [...node.ref, ...(node.args ?? [])]
      if (node.key) out.push(node.key)
      if (node.value) out.push(node.value)
      return out
    }
    case 'expr': {
      const t = node.terms
      const out: Node[] = Array.isArray(t) ? [...t] : [t]
      if (node.with) out.push(...node.with)
      return out
    }
    case 'somedecl':
      return node.symbols
    case 'every':
      return [...(node.key ? [node.key] : []), node.value, node.domain, ...node.body]
    case 'not':
      return [...node.body]
    case 'and':
    case 'or':
      return [...node.lhs, ...node.rhs]
    case 'with':
      return [node.target, node.value]
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      return node.value
    case 'object':
      return node.value.flat()
    case 'arraycomprehension':
    case 'setcomprehension':
      return [node.value.term, ...node.value.body]
    case 'objectcomprehension':
      return [node.value.key, node.value.value, ...node.value.body]
    case 'templatestring':
      return node.value.parts
    default:
      return []
  }
}

/**
 * Visits `node` and its descendants depth-first (pre-order). Returning `false` from `visit` skips
 * the children of that node.
 *
 * @example
 * const vars = new Set<string>()
 * walk(rule, (n) => { if (n.type === 'var') vars.add(n.value) })
 */
export function walk(node: Node | Body, visit: (node: Node, parent: Node | undefined) => unknown): void {
  const stack: Array<[Node, Node | undefined]> = []
  const roots = Array.isArray(node) ? node : [node]
  for (let i = roots.length - 1; i >= 0; i--) stack.push([roots[i] as Node, undefined])
  while (stack.length > 0) {
    const [n, parent] = stack.pop() as [Node, Node | undefined]
    if (visit(n, parent) === false) continue
    const kids = children(n)
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i] as Node, n])
  }
}

/** Every term under `node` (including nested ones), in source order. */
export function terms(node: Node | Body): Term[] {
  const out: Term[] = []
  walk(node, (n) => {
    if (n.type !== 'expr' && isTermNode(n)) out.push(n)
  })
  return out
}

/** Every expression under `node`, including those in comprehensions and `every` bodies. */
export function exprs(node: Node | Body): Expr[] {
  const out: Expr[] = []
  walk(node, (n) => {
    if (n.type === 'expr') out.push(n)
  })
  return out
}

/** A rule followed by its `else` chain. */
export function elseChain(rule: Rule): Rule[] {
  const out: Rule[] = []
  for (let r: Rule | undefined = rule; r; r = r.else) out.push(r)
  return out
}

function isTermNode(n: Node): n is Term {
  switch (n.type) {
    case 'module':
    case 'package':
    case 'import':
    case 'rule':
    case 'head':
    case 'expr':
    case 'somedecl':
    case 'every':
    case 'not':
    case 'and':
    case 'or':
    case 'with':
    case 'comment':
    case 'annotations':
      return false
    default:
      return true
  }
}
