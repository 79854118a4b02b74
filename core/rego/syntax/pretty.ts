/**
 * A human-readable tree of the AST, one node per line with one space of indentation per level, as
 * OPA's `ast.Pretty` prints it (what `regent parse` prints by default): each node is its type name,
 * scalars and vars are their values, and children come in the order of OPA's AST walk (a head shows
 * its ref, its args and its value, unlabelled; OPA's cmd/parse_test.go).
 *
 * @example
 * prettyAst(parseModule('package a\np := 1'))
 * // module
 * //  package
 * //   ref
 * //    data
 * //    "a"
 * //  rule
 * //   head ...
 */
import type { Body, Node, Term } from './ast.js'

/** Renders `node` as an indented tree. */
export function prettyAst(node: Node | Body): string {
  const lines: string[] = []
  const emit = (depth: number, text: string) => lines.push(`${' '.repeat(depth)}${text}`)
  const visit = (n: Node | Body, depth: number): void => {
    if (Array.isArray(n)) {
      emit(depth, 'body')
      for (const e of n) visit(e, depth + 1)
      return
    }
    switch (n.type) {
      case 'module':
        emit(depth, 'module')
        visit(n.package, depth + 1)
        for (const i of n.imports) visit(i, depth + 1)
        for (const r of n.rules) visit(r, depth + 1)
        for (const a of n.annotations) visit(a, depth + 1)
        for (const c of n.comments) visit(c, depth + 1)
        return
      case 'package':
        emit(depth, 'package')
        visit({ type: 'ref', value: n.path }, depth + 1)
        return
      case 'import':
        emit(depth, 'import')
        visit(n.path, depth + 1)
        // OPA walks the alias too, a var that is empty without `as`.
        emit(depth + 1, n.alias ?? '')
        return
      case 'rule':
        emit(depth, 'rule')
        visit(n.head, depth + 1)
        visit(n.body, depth + 1)
        if (n.else) visit(n.else, depth + 1)
        return
      case 'head':
        // NOTE(parse): OPA walks the head's ref and not its key (the ref of `p contains x` is `p`).
        emit(depth, 'head')
        visit({ type: 'ref', value: n.ref }, depth + 1)
        if (n.args && n.args.length > 0) {
          emit(depth + 1, 'args')
          for (const a of n.args) visit(a, depth + 2)
        }
        if (n.value) visit(n.value, depth + 1)
        return
      case 'expr': {
        emit(depth, `expr ${n.negated ? 'negated ' : ''}index=${n.index}`)
        const t = n.terms
        if (Array.isArray(t)) for (const x of t) visit(x, depth + 1)
        else visit(t, depth + 1)
        for (const w of n.with ?? []) visit(w, depth + 1)
        return
      }
      case 'somedecl':
        emit(depth, 'somedecl')
        for (const s of n.symbols) visit(s, depth + 1)
        return
      case 'every':
        emit(depth, 'every')
        if (n.key) visit(n.key, depth + 1)
        visit(n.value, depth + 1)
        visit(n.domain, depth + 1)
        visit(n.body, depth + 1)
        return
      case 'not':
        emit(depth, n.explicitBody ? 'not-body explicit' : 'not-body')
        visit(n.body, depth + 1)
        return
      case 'and':
      case 'or':
        emit(depth, `${n.type}${n.explicitLhs ? ' explicit-lhs' : ''}${n.explicitRhs ? ' explicit-rhs' : ''}`)
        visit(n.lhs, depth + 1)
        visit(n.rhs, depth + 1)
        return
      case 'with':
        emit(depth, 'with')
        visit(n.target, depth + 1)
        visit(n.value, depth + 1)
        return
      case 'comment':
        emit(depth, 'comment')
        return
      case 'annotations':
        emit(depth, 'annotations')
        return
      default:
        visitTerm(n, depth)
    }
  }
  const visitTerm = (t: Term, depth: number): void => {
    switch (t.type) {
      case 'null':
        emit(depth, 'null')
        return
      case 'boolean':
      case 'number':
        emit(depth, String(t.value))
        return
      case 'string':
        emit(depth, JSON.stringify(t.value))
        return
      case 'var':
        emit(depth, t.value)
        return
      case 'ref':
      case 'array':
      case 'set':
      case 'call':
        emit(depth, t.type)
        for (const x of t.value) visit(x, depth + 1)
        return
      case 'object':
        emit(depth, 'object')
        for (const [k, v] of t.value) {
          visit(k, depth + 1)
          visit(v, depth + 1)
        }
        return
      case 'arraycomprehension':
      case 'setcomprehension':
        emit(depth, t.type)
        visit(t.value.term, depth + 1)
        visit(t.value.body, depth + 1)
        return
      case 'objectcomprehension':
        emit(depth, t.type)
        visit(t.value.key, depth + 1)
        visit(t.value.value, depth + 1)
        visit(t.value.body, depth + 1)
        return
      case 'templatestring':
        emit(depth, 'templatestring')
        for (const p of t.value.parts) visit(p, depth + 1)
        return
    }
  }
  visit(node, 0)
  return `${lines.join('\n')}\n`
}
