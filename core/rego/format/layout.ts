/**
 * Layout facts the formatter consults: operator symbols and precedence, keyword spellings, how
 * ref heads and composites were laid out in the source, and small predicates on expressions.
 */
import type { Expr, Import, Location, LogicalExpr, Term } from '../syntax/ast.js'
import { locationText } from '../syntax/source.js'

/** Infix operators: builtin name to symbol and arity. */
export const INFIX: Record<string, [string, number]> = {
  eq: ['=', 2],
  assign: [':=', 2],
  equal: ['==', 2],
  neq: ['!=', 2],
  lt: ['<', 2],
  lte: ['<=', 2],
  gt: ['>', 2],
  gte: ['>=', 2],
  plus: ['+', 2],
  minus: ['-', 2],
  mul: ['*', 2],
  div: ['/', 2],
  rem: ['%', 2],
  and: ['&', 2],
  or: ['|', 2],
  'internal.member_2': ['in', 2],
  'internal.member_3': ['in', 3],
}

/** Binding strength of infix operators (higher binds tighter), as the parser's ladder orders them. */
export const PRECEDENCE: Record<string, number> = {
  eq: 0,
  assign: 0,
  'internal.member_2': 1,
  'internal.member_3': 1,
  equal: 2,
  neq: 2,
  lt: 2,
  lte: 2,
  gt: 2,
  gte: 2,
  or: 3,
  and: 4,
  plus: 5,
  minus: 5,
  mul: 6,
  div: 6,
  rem: 6,
}

/** Rego v1 keywords: as ref parts they are written with brackets when the source quoted them. */
export const V1_KEYWORDS = new Set([
  'as',
  'contains',
  'default',
  'else',
  'every',
  'false',
  'if',
  'import',
  'in',
  'not',
  'null',
  'package',
  'some',
  'true',
  'with',
])

/** A string as written in the source (keeping its escapes or raw form), else JSON-quoted. */
export function stringText(t: Extract<Term, { type: 'string' }>): string {
  const text = locationText(t.location)
  if (text && (text.startsWith('"') || text.startsWith('`')) && text.length >= 2) return text
  return JSON.stringify(t.value)
}

/** The dotted builtin name of an operator term (`plus`, `internal.member_2`), if it has one. */
export function opName(op: Term): string | undefined {
  if (op.type !== 'ref') return op.type === 'var' ? op.value : undefined
  const names = refNames(op.value)
  return names.length === op.value.length ? names.join('.') : undefined
}

/** The leading var and string parts of a ref, as names. */
export function refNames(ref: Term[]): string[] {
  const out: string[] = []
  for (const [i, t] of ref.entries()) {
    if (i === 0 && t.type === 'var') out.push(t.value)
    else if (i > 0 && t.type === 'string') out.push(t.value)
    else break
  }
  return out
}

/** Orders imports by path, then alias (as `opa fmt` sorts each import group). */
export function compareImports(a: Import, b: Import): number {
  const pa = a.path.value.map((t) => ('value' in t ? String(t.value) : ''))
  const pb = b.path.value.map((t) => ('value' in t ? String(t.value) : ''))
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = (pa[i] as string) < (pb[i] as string) ? -1 : (pa[i] as string) > (pb[i] as string) ? 1 : 0
    if (c !== 0) return c
  }
  return pa.length - pb.length || (a.alias ?? '').localeCompare(b.alias ?? '')
}

/** True for the terms of a set union call, `or(a, b)`, written infix as `a | b`. */
function isUnionCallTerms(terms: Term[]): boolean {
  return terms.length === 3 && !!terms[0] && opName(terms[0]) === 'or'
}

/** True for an expression whose terms are a bare `a | b` (set union) call (`with` may follow). */
export function isUnionExpr(expr: Expr): boolean {
  return !expr.negated && Array.isArray(expr.terms) && isUnionCallTerms(expr.terms)
}

/** True for a term that is a set union call, `a | b`. */
export function isUnionTerm(t: Term): boolean {
  return t.type === 'call' && isUnionCallTerms(t.value)
}

/**
 * True when the expression may print starting with `{` (a set, object or comprehension on its left
 * edge): after `if` on one line it would read back as a braced body, so it needs a braced body of
 * its own. Errs towards true for operands that may get parentheses; a braced body is always safe.
 */
export function startsWithBrace(expr: Expr): boolean {
  if (expr.negated) return false
  let t: Term | Term[] | undefined = expr.terms as Term | Term[]
  for (;;) {
    if (Array.isArray(t)) {
      const op = t[0]
      if (!op || !INFIX[opName(op) ?? '']) return false
      t = t[1]
    } else if (t?.type === 'call') t = t.value
    else if (t?.type === 'ref') t = t.value[0]
    else return t !== undefined && BRACED.has(t.type)
  }
}

const BRACED = new Set(['set', 'object', 'setcomprehension', 'objectcomprehension'])

/** Number of line breaks in `s`. */
export function newlines(s: string): number {
  let n = 0
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++
  return n
}

/** The location of a collection item (an object pair counts from its key). */
export function itemLoc(item: Term | [Term, Term]): Location | undefined {
  return Array.isArray(item) ? item[0].location : item.location
}

/** The row where the last part of a collection starts (an object pair counts its value too). */
export function lastItemRow(items: Array<Term | [Term, Term]>): number {
  let row = 0
  for (const item of items) {
    for (const t of Array.isArray(item) ? item : [item]) row = Math.max(row, t.location?.row ?? 0)
  }
  return row
}

/** Groups items by source row: items on the same row share an output line. */
export function groupByRow(
  items: Array<Term | [Term, Term]>,
  loc: Location | undefined,
): Array<Array<Term | [Term, Term]>> {
  const lines: Array<Array<Term | [Term, Term]>> = []
  let lastRow = loc?.row ?? 0
  for (const [i, item] of items.entries()) {
    const row = itemLoc(item)?.row
    if (i === 0 || row === undefined || row <= lastRow) {
      if (lines.length === 0) lines.push([])
      ;(lines[lines.length - 1] as Array<Term | [Term, Term]>).push(item)
    } else lines.push([item])
    if (row !== undefined) lastRow = Math.max(lastRow, row)
  }
  return lines.length ? lines : [[]]
}

/** The last row of an expression's own terms (its `with` modifiers excluded). */
export function termsEndRow(expr: Expr): number {
  const loc = expr.location
  if (!loc) return 0
  let text = locationText(loc) ?? ''
  const first = expr.with?.[0]?.location
  if (first) {
    const off = first.offset - loc.offset
    if (off > 0 && off <= text.length) text = text.slice(0, off)
  }
  return loc.row + newlines(text.trimEnd())
}

/**
 * Where the text between the operands of `t` breaks: `afterOperator` when a line break follows its
 * `and` / `or` (a brace opening the right operand on the operator's line is no break), and the
 * row of the brace opening a braced right operand. The text between the operands holds closing
 * braces, the operator, comments and that opening brace.
 */
export function operatorGap(t: LogicalExpr): { afterOperator: boolean; rhsBraceRow?: number } {
  const loc = t.location
  const lhs = t.lhs[t.lhs.length - 1]?.location
  const rhs = t.rhs[0]?.location
  const text = locationText(loc)
  if (!loc || !lhs || !rhs || text === undefined) return { afterOperator: false }
  const from = lhs.offset + (locationText(lhs)?.length ?? 0) - loc.offset
  const gap = text.slice(from, rhs.offset - loc.offset)
  let seen = false
  let afterOperator = false
  for (let i = 0; i < gap.length; i++) {
    const c = gap[i]
    if (c === '#') {
      const end = gap.indexOf('\n', i)
      if (end === -1) break
      i = end - 1
    } else if (!seen && gap.startsWith(t.type, i)) {
      seen = true
      i += t.type.length - 1
    } else if (seen && c === '\n') afterOperator = true
    else if (seen && c === '{')
      return { afterOperator, rhsBraceRow: loc.row + newlines(text.slice(0, from + i)) }
    else if (seen && c === '(') break
  }
  return { afterOperator }
}
