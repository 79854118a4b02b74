/**
 * Rego terms and expressions printed as OPA's `String()` methods print them, because the fragment
 * errors quote residual expressions (`invalid statement "input.fruits.colour"`, `gt: nested call operand:
 * equal(input.fruits.colour, "orange")`) and clients compare those messages.
 */
import type { Body, Expr, Term } from '../core/rego/syntax/ast.js'
import { isTerm } from '../core/rego/syntax/ast.js'

// OPA prints a string ref part as `.name` when it could be a variable name.
const VAR_COMPATIBLE = /^[A-Za-z_][A-Za-z0-9_]*$/

/** True when `s` can follow a `.` in a ref (`input.fruits` rather than `input["fruits"]`). */
export function isVarCompatible(s: string): boolean {
  return VAR_COMPATIBLE.test(s)
}

/**
 * A term in Rego syntax, as OPA's `Term.String()`.
 * @example termToString(ref) // 'input.fruits[__local1__1].price'
 */
export function termToString(term: Term): string {
  switch (term.type) {
    case 'null':
      return 'null'
    case 'boolean':
      return term.value ? 'true' : 'false'
    case 'number':
      return term.value
    case 'string':
      return JSON.stringify(term.value)
    case 'var':
      return term.value
    case 'ref':
      return refToString(term.value)
    case 'array':
      return `[${term.value.map(termToString).join(', ')}]`
    case 'set':
      return term.value.length === 0 ? 'set()' : `{${term.value.map(termToString).join(', ')}}`
    case 'object':
      return `{${term.value.map(([k, v]) => `${termToString(k)}: ${termToString(v)}`).join(', ')}}`
    case 'call':
      return callToString(term.value)
    case 'arraycomprehension':
      return `[${termToString(term.value.term)} | ${bodyToString(term.value.body)}]`
    case 'setcomprehension':
      return `{${termToString(term.value.term)} | ${bodyToString(term.value.body)}}`
    case 'objectcomprehension':
      return `{${termToString(term.value.key)}: ${termToString(term.value.value)} | ${bodyToString(term.value.body)}}`
    case 'templatestring':
      return `$"${term.value.parts.map((p) => (p.type === 'string' ? p.value : `{${partToString(p)}}`)).join('')}"`
  }
}

function partToString(part: Term | Expr): string {
  return part.type === 'expr' ? exprToString(part) : termToString(part)
}

/** A ref's parts in Rego syntax: `data.a["b-c"][x]`. */
export function refToString(parts: readonly Term[]): string {
  const [head, ...rest] = parts
  if (!head) return ''
  let out = head.type === 'var' ? head.value : termToString(head)
  for (const part of rest) {
    if (part.type === 'string' && isVarCompatible(part.value)) out += `.${part.value}`
    else out += `[${termToString(part)}]`
  }
  return out
}

/** A call in prefix form: `equal(input.x, "orange")`, as OPA's `Call.String()`. */
export function callToString(terms: readonly Term[]): string {
  const [operator, ...args] = terms
  if (!operator) return '()'
  return `${termToString(operator)}(${args.map(termToString).join(', ')})`
}

/** A body with `; ` between expressions, as OPA's `Body.String()`. */
export function bodyToString(body: Body): string {
  return body.map(exprToString).join('; ')
}

/**
 * An expression as OPA's `Expr.String()`: `not` prefix, `a = b` for unification, every other call in
 * prefix form, `with` modifiers appended.
 */
export function exprToString(expr: Expr): string {
  const parts: string[] = []
  if (expr.negated) parts.push('not')
  const terms = expr.terms
  if (Array.isArray(terms)) {
    const [operator, a, b] = terms
    if (terms.length === 3 && operator?.type === 'ref' && isEqOperator(operator) && a && b) {
      parts.push(`${termToString(a)} = ${termToString(b)}`)
    } else {
      parts.push(callToString(terms))
    }
  } else if (isTerm(terms)) {
    parts.push(termToString(terms))
  } else if (terms.type === 'somedecl') {
    parts.push(`some ${terms.symbols.map(termToString).join(', ')}`)
  } else if (terms.type === 'not') {
    parts.push(`not { ${bodyToString(terms.body)} }`)
  } else if (terms.type === 'and' || terms.type === 'or') {
    parts.push(`{ ${bodyToString(terms.lhs)} } ${terms.type} { ${bodyToString(terms.rhs)} }`)
  } else {
    const key = terms.key ? `${termToString(terms.key)}, ` : ''
    parts.push(
      `every ${key}${termToString(terms.value)} in ${termToString(terms.domain)} { ${bodyToString(terms.body)} }`,
    )
  }
  for (const w of expr.with ?? []) parts.push(`with ${termToString(w.target)} as ${termToString(w.value)}`)
  return parts.join(' ')
}

function isEqOperator(operator: Term & { type: 'ref' }): boolean {
  const [head] = operator.value
  return operator.value.length === 1 && head?.type === 'var' && head.value === 'eq'
}
