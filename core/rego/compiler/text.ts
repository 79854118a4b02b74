/**
 * Rego source text of terms and refs, as OPA's `String()` methods print them, for error messages
 * (`rule data.a.p conflicts with ...`, `var x is unsafe`) and residual queries.
 */
import type { Body, Expr, Term } from '../syntax/ast.js'

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/

/** `data.a.b["c d"][x]`. */
export function refString(ref: Term[]): string {
  let out = ''
  for (const [i, t] of ref.entries()) {
    if (i === 0) {
      out += t.type === 'var' ? varString(t.value) : termString(t)
    } else if (t.type === 'string' && IDENT.test(t.value)) {
      out += `.${t.value}`
    } else {
      out += `[${termString(t)}]`
    }
  }
  return out
}

/**
 * A package as OPA's `Package.String` prints it: `package` and the path without its `data` head,
 * the first segment written as a name (`package a.b["c-d"]`).
 */
export function packageString(path: Term[]): string {
  const [, first, ...rest] = path
  if (first?.type !== 'string') return `package ${refString(path)}`
  return `package ${refString([{ ...first, type: 'var', value: first.value } as Term, ...rest])}`
}

/**
 * A variable's name as OPA's `Var.String` prints it: the compiler's wildcard-like vars (`$term0`, the
 * query's capture of an expression's value) print as `_`, as OPA prints its `$`-prefixed wildcards.
 */
export function varString(name: string): string {
  return name.startsWith('$') ? '_' : name
}

/** A term in Rego syntax. */
export function termString(t: Term): string {
  switch (t.type) {
    case 'null':
      return 'null'
    case 'boolean':
      return t.value ? 'true' : 'false'
    case 'number':
      return t.value
    case 'string':
      return JSON.stringify(t.value)
    case 'var':
      return varString(t.value)
    case 'ref':
      return refString(t.value)
    case 'array':
      return `[${t.value.map(termString).join(', ')}]`
    case 'set':
      return t.value.length === 0 ? 'set()' : `{${t.value.map(termString).join(', ')}}`
    case 'object':
      return `{${t.value.map(([k, v]) => `${termString(k)}: ${termString(v)}`).join(', ')}}`
    case 'call': {
      const [op, ...args] = t.value
      return `${op ? termString(op) : ''}(${args.map(termString).join(', ')})`
    }
    case 'arraycomprehension':
      return `[${termString(t.value.term)} | ${bodyString(t.value.body)}]`
    case 'setcomprehension':
      return `{${termString(t.value.term)} | ${bodyString(t.value.body)}}`
    case 'objectcomprehension':
      return `{${termString(t.value.key)}: ${termString(t.value.value)} | ${bodyString(t.value.body)}}`
    case 'templatestring':
      return '$"..."'
  }
}

const INFIX: Record<string, string> = {
  eq: '=',
  assign: ':=',
  equal: '==',
  neq: '!=',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
}

/** An expression in Rego syntax. */
export function exprString(e: Expr): string {
  let out = e.negated ? 'not ' : ''
  const ts = e.terms
  if (Array.isArray(ts)) {
    const [op, ...args] = ts
    const name = op?.type === 'ref' ? refString(op.value) : op ? termString(op) : ''
    const infix = INFIX[name]
    if (infix && args.length === 2)
      out += `${termString(args[0] as Term)} ${infix} ${termString(args[1] as Term)}`
    else out += `${name}(${args.map(termString).join(', ')})`
  } else if (ts.type === 'somedecl') {
    out += `some ${ts.symbols.map(termString).join(', ')}`
  } else if (ts.type === 'every') {
    const kv = ts.key ? `${termString(ts.key)}, ${termString(ts.value)}` : termString(ts.value)
    out += `every ${kv} in ${termString(ts.domain)} { ${bodyString(ts.body)} }`
  } else if (ts.type === 'not') {
    out += `not { ${bodyString(ts.body)} }`
  } else if (ts.type === 'and' || ts.type === 'or') {
    out += `{ ${bodyString(ts.lhs)} } ${ts.type} { ${bodyString(ts.rhs)} }`
  } else {
    out += termString(ts)
  }
  for (const w of e.with ?? []) out += ` with ${termString(w.target)} as ${termString(w.value)}`
  return out
}

/** A body as `a; b; c`. */
export function bodyString(b: Body): string {
  return b.map(exprString).join('; ')
}
