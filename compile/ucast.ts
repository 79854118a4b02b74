/**
 * Residual queries to UCAST, the JSON condition tree that every target is rendered from: a `field` node
 * per comparison, `compound` nodes for `and` (a query's expressions), `or` (several queries) and `not`.
 *
 * The four UCAST flavors (all, minimal, prisma, linq) build identical nodes; they differ only in what the
 * fragment checks let through. Anything the checks let through but that has no faithful UCAST form is an
 * error here: regent never drops a condition it cannot translate (that would widen the filter).
 */
import { isLosslessNumber } from 'lossless-json'
import type { Body, Expr, Term } from '../core/rego/syntax/ast.js'
import { MEMBER, operatorName } from '../core/rego/syntax/ast.js'
import { type AstErrorJson, evaluationError, fragmentError } from './errors.js'
import { expressionStart } from './fragments/location.js'
import { type TableMappings, translateField } from './mappings.js'
import { exprToString } from './print.js'
import type { JsonValue } from './types.js'
import { termToJson } from './values.js'

/** A value that names another column (`{"field": "baskets.colour"}`), for comparisons of two fields. */
export class FieldRef {
  constructor(readonly field: string) {}

  /** UCAST's JSON form. */
  toJSON(): { field: string } {
    return { field: this.field }
  }
}

/** Operators of field nodes. */
export type FieldOperator =
  | 'eq'
  | 'ne'
  | 'lt'
  | 'lte'
  | 'gt'
  | 'gte'
  | 'startswith'
  | 'endswith'
  | 'contains'
  | 'in'

/** A condition on one field. Keys are in the order the reference writes them. */
export interface UcastField {
  type: 'field'
  operator: FieldOperator
  field: string
  value: JsonValue | FieldRef
}

/** `and`/`or` over several nodes, or `not` over one. */
export interface UcastCompound {
  type: 'compound'
  operator: 'and' | 'or' | 'not'
  value: UcastNode[]
}

/** A UCAST node. */
export type UcastNode = UcastField | UcastCompound

/** What partial evaluation decided: never, always, or under a condition. */
export type Decision = { kind: 'never' } | { kind: 'always' } | { kind: 'condition'; node: UcastNode }

const OPERATORS: Readonly<Record<string, FieldOperator>> = {
  eq: 'eq',
  neq: 'ne',
  lt: 'lt',
  lte: 'lte',
  gt: 'gt',
  gte: 'gte',
  startswith: 'startswith',
  endswith: 'endswith',
  contains: 'contains',
  [MEMBER]: 'in',
}

// `10 < input.x` is `input.x > 10`: a flipped comparison mirrors its operator.
// NOTE(regent): the reference negates instead (lt→gte, lte→gt, …), which turns `10 < x` into `x >= 10`
// and lets the row x = 10 through; regent mirrors. See docs/compile.md.
const MIRRORED: Readonly<Partial<Record<FieldOperator, FieldOperator>>> = {
  lt: 'gt',
  lte: 'gte',
  gt: 'lt',
  gte: 'lte',
}

const COMPARISONS: ReadonlySet<FieldOperator> = new Set(['eq', 'ne', 'lt', 'lte', 'gt', 'gte'])
const STRING_MATCHES: ReadonlySet<FieldOperator> = new Set(['startswith', 'endswith', 'contains'])

/**
 * The UCAST of residual `queries`: no query is `never`, a query with no expression is `always`, else
 * the `or` of each query's `and` (single children are not wrapped; order kept; nothing flattened).
 * @throws CompileFailure 400 `evaluation_error` listing every expression that cannot be translated.
 */
export function queriesToUcast(queries: readonly Body[], mappings: TableMappings | undefined): Decision {
  if (queries.length === 0) return { kind: 'never' }
  if (queries.some((body) => body.length === 0)) return { kind: 'always' }
  const errors: AstErrorJson[] = []
  const bodies = queries.map((body) => {
    const nodes = body.map((expr) => exprToNode(expr, body, mappings, errors))
    return nodes.length === 1 ? nodes[0]! : compound('and', nodes)
  })
  if (errors.length > 0) throw evaluationError(errors)
  return { kind: 'condition', node: bodies.length === 1 ? bodies[0]! : compound('or', bodies) }
}

function compound(operator: 'and' | 'or' | 'not', value: UcastNode[]): UcastCompound {
  return { type: 'compound', operator, value }
}

// Placeholder returned after an error has been recorded; never reaches a response.
const FAILED: UcastField = { type: 'field', operator: 'eq', field: '', value: null }

function exprToNode(
  expr: Expr,
  body: Body,
  mappings: TableMappings | undefined,
  errors: AstErrorJson[],
): UcastNode {
  const terms = expr.terms
  if (!Array.isArray(terms) || (expr.with?.length ?? 0) > 0) return fail(expr, errors, 'not a comparison')
  const name = operatorName(terms[0])
  let operator = name === undefined ? undefined : OPERATORS[name]
  const a = terms[1]
  const b = terms[2]
  if (!operator || !a || !b || terms.length !== 3) return fail(expr, errors, 'not a supported comparison')
  const flipped = a.type !== 'ref'
  const fieldTerm = flipped ? b : a
  const other = flipped ? a : b
  if (fieldTerm.type !== 'ref') return fail(expr, errors, 'neither operand is a field')
  if (flipped) {
    if (!COMPARISONS.has(operator))
      return fail(expr, errors, `the field must be the first operand of ${name}`)
    operator = MIRRORED[operator] ?? operator
  }
  const field = refToField(fieldTerm.value, mappings)
  if (typeof field !== 'string') return fail(expr, errors, field.error)

  let value: JsonValue | FieldRef
  if (other.type === 'ref') {
    if (!COMPARISONS.has(operator))
      return fail(expr, errors, `${name} cannot take a field as its second operand`)
    const otherField = refToField(other.value, mappings)
    if (typeof otherField !== 'string') return fail(expr, errors, otherField.error)
    value = new FieldRef(otherField)
  } else if (other.type === 'var') {
    // `input.x = _` is the only way to say "the field has a value".
    if (operator !== 'eq') return fail(expr, errors, `cannot compare to the variable ${other.value}`)
    if (countVar(body, other.value) > 1)
      return fail(expr, errors, `the variable ${other.value} is used elsewhere`)
    // `not x = _` holds for a row only when x is undefined, which a column never is; `NOT x IS NOT NULL`
    // would let NULL rows through.
    if (expr.negated) return fail(expr, errors, '"not" over a field existence test has no SQL or UCAST form')
    operator = 'ne'
    value = null
  } else {
    const constant = termToJson(other)
    if (constant === undefined) return fail(expr, errors, 'the value is not a constant')
    if (operator === 'in') {
      const list = collectionValues(constant)
      if (!list) return fail(expr, errors, 'the collection after "in" is not an array, set or object')
      value = list
    } else if (STRING_MATCHES.has(operator)) {
      if (typeof constant !== 'string') return fail(expr, errors, `${name} needs a string`)
      value = constant
    } else {
      value = constant
    }
  }
  const node: UcastField = { type: 'field', operator, field, value }
  return expr.negated ? compound('not', [node]) : node
}

/** `input.<table>.<column>` (or a short `input.<name>`) as the mapped field name. */
function refToField(parts: readonly Term[], mappings: TableMappings | undefined): string | { error: string } {
  const head = parts[0]
  if (head?.type !== 'var' || head.value !== 'input' || parts.length < 2) {
    return { error: 'a field must be a ref into input' }
  }
  // The dotted name built as it is read (no slice, no list to join): this runs for every operand of
  // every residual expression.
  let field = ''
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i] as Term
    if (part.type !== 'string') return { error: 'a field name must be a string' }
    field = i === 1 ? part.value : `${field}.${part.value}`
  }
  return translateField(field, mappings)
}

// Records why `expr` has no UCAST form and stands in for it (a function, not a closure made for
// every expression translated).
function fail(expr: Expr, errors: AstErrorJson[], reason: string): UcastNode {
  errors.push(fragmentError(expressionStart(expr), `cannot translate "${exprToString(expr)}": ${reason}`))
  return FAILED
}

// `x in coll`: Rego's membership tests an array's elements, a set's members and an object's values.
function collectionValues(value: JsonValue): JsonValue[] | undefined {
  if (Array.isArray(value)) return value
  if (value !== null && typeof value === 'object' && !isLosslessNumber(value)) return Object.values(value)
  return undefined
}

function countVar(body: Body, name: string): number {
  let count = 0
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n)
      return
    }
    if (typeof node !== 'object' || node === null) return
    const rec = node as { type?: unknown; value?: unknown }
    if (rec.type === 'var' && rec.value === name) count++
    for (const [key, child] of Object.entries(node)) if (key !== 'location') visit(child)
  }
  visit(body)
  return count
}
