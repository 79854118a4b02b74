/**
 * Deep copies of AST nodes. Use these, never `structuredClone`: they are several times faster on
 * large trees and share locations (never changed in place), whereas `structuredClone` would keep
 * only the own fields of the parser's locations (`source`, `offset`, `end`: no row, column or text).
 */
import type { Body, Expr, Head, Import, Module, Package, Rule, Term } from './ast.js'

/** A deep copy of a rule head. */
export function copyHead(head: Head): Head {
  const out: Head = { ...head, ref: head.ref.map(copyTerm) }
  if (head.args) out.args = head.args.map(copyTerm)
  if (head.key) out.key = copyTerm(head.key)
  if (head.value) out.value = copyTerm(head.value)
  if (head.keywords) out.keywords = { ...head.keywords }
  return out
}

/** A deep copy of a term (locations are shared: they are never mutated in place). */
export function copyTerm<T extends Term>(t: T): T {
  switch (t.type) {
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      return { ...t, value: t.value.map(copyTerm) }
    case 'object':
      return { ...t, value: t.value.map(([k, v]) => [copyTerm(k), copyTerm(v)]) }
    case 'arraycomprehension':
    case 'setcomprehension':
      return { ...t, value: { term: copyTerm(t.value.term), body: t.value.body.map(copyExpr) } }
    case 'objectcomprehension':
      return {
        ...t,
        value: {
          key: copyTerm(t.value.key),
          value: copyTerm(t.value.value),
          body: t.value.body.map(copyExpr),
        },
      }
    case 'templatestring':
      return {
        ...t,
        value: {
          ...t.value,
          parts: t.value.parts.map((p) => (p.type === 'expr' ? copyExpr(p) : copyTerm(p))),
        },
      }
    default:
      return { ...t }
  }
}

/** A deep copy of an expression, its terms and its `with` modifiers. */
export function copyExpr(e: Expr): Expr {
  const terms = e.terms
  let copied: Expr['terms']
  if (Array.isArray(terms)) copied = terms.map(copyTerm)
  else if (terms.type === 'somedecl') copied = { ...terms, symbols: terms.symbols.map(copyTerm) }
  else if (terms.type === 'every') {
    copied = {
      ...terms,
      key: terms.key ? copyTerm(terms.key) : null,
      value: copyTerm(terms.value),
      domain: copyTerm(terms.domain),
      body: terms.body.map(copyExpr),
    }
  } else if (terms.type === 'not') copied = { ...terms, body: terms.body.map(copyExpr) }
  else if (terms.type === 'and' || terms.type === 'or')
    copied = { ...terms, lhs: terms.lhs.map(copyExpr), rhs: terms.rhs.map(copyExpr) }
  else copied = copyTerm(terms)
  const out: Expr = { ...e, terms: copied }
  if (e.with) out.with = e.with.map((w) => ({ ...w, target: copyTerm(w.target), value: copyTerm(w.value) }))
  return out
}

/** A deep copy of a body. */
export function copyBody(body: Body): Body {
  return body.map(copyExpr)
}

/** A deep copy of a rule and its `else` chain. */
export function copyRule(rule: Rule): Rule {
  const out: Rule = { ...rule, head: copyHead(rule.head), body: copyBody(rule.body) }
  if (rule.else) out.else = copyRule(rule.else)
  if (rule.annotations) out.annotations = [...rule.annotations]
  return out
}

/** A deep copy of a package statement. */
export function copyPackage(pkg: Package): Package {
  return { ...pkg, path: pkg.path.map(copyTerm) }
}

/** A deep copy of an import statement. */
export function copyImport(imp: Import): Import {
  return { ...imp, path: copyTerm(imp.path) }
}

/**
 * A deep copy of a module: package, imports and rules are copied; annotations and comments are
 * shared (nothing changes them in place, and a rule's annotations stay the same objects as the
 * module's, as the metadata lookups expect).
 */
export function copyModule(m: Module): Module {
  return {
    ...m,
    package: copyPackage(m.package),
    imports: m.imports.map(copyImport),
    rules: m.rules.map(copyRule),
    annotations: [...m.annotations],
    comments: [...m.comments],
  }
}
