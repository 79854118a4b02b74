/**
 * Test interpreters. `evalUcast` runs a UCAST tree over a row with SQL's three-valued logic (a
 * comparison with NULL is unknown), which is what the SQL renderers promise. `evalResidual` runs
 * residual queries over the same row with Rego's semantics (the policy's meaning, NULL being JSON null),
 * the reference the translations are judged against.
 */
import { isLosslessNumber } from 'lossless-json'
import type { JsonValue } from '../../compile/types.js'
import { FieldRef, type UcastNode } from '../../compile/ucast.js'
import { compareJson, termToJson } from '../../compile/values.js'
import type { Body, Expr, Term } from '../../core/rego/syntax/ast.js'
import { MEMBER, operatorName } from '../../core/rego/syntax/ast.js'

/** A row: `table.column` to its value (null for NULL). */
export type Row = Record<string, null | boolean | number | string>

/** True, false, or unknown (null). */
export type Truth = boolean | null

function num(v: JsonValue): JsonValue {
  return isLosslessNumber(v) ? Number(v.value) : v
}

function compareSql(a: JsonValue, b: JsonValue): number | null {
  const x = num(a)
  const y = num(b)
  if (x === null || y === null) return null
  if (typeof x !== typeof y) throw new Error(`type mix in test data: ${String(x)} vs ${String(y)}`)
  return compareJson(x, y)
}

/** A UCAST tree over `row`, SQL-style. */
export function evalUcast(node: UcastNode, row: Row): Truth {
  if (node.type === 'compound') {
    const values = node.value.map((n) => evalUcast(n, row))
    if (node.operator === 'not') return values[0] === null ? null : !values[0]
    if (node.operator === 'and') {
      if (values.includes(false)) return false
      return values.includes(null) ? null : true
    }
    if (values.includes(true)) return true
    return values.includes(null) ? null : false
  }
  if (!(node.field in row)) throw new Error(`no column ${node.field} in row`)
  const field = row[node.field] as JsonValue
  const value = node.value
  if (value instanceof FieldRef) {
    const c = compareSql(field, row[value.field] as JsonValue)
    return c === null ? null : cmp(node.operator, c)
  }
  if (value === null) {
    if (node.operator === 'eq') return field === null
    if (node.operator === 'ne') return field !== null
    throw new Error('null with an ordering operator')
  }
  if (field === null) return null
  switch (node.operator) {
    case 'in': {
      const list = value as JsonValue[]
      if (list.some((v) => v !== null && compareSql(field, v) === 0)) return true
      return list.includes(null) ? null : false
    }
    case 'startswith':
      return String(field).startsWith(value as string)
    case 'endswith':
      return String(field).endsWith(value as string)
    case 'contains':
      return String(field).includes(value as string)
    default:
      return cmp(node.operator, compareSql(field, value as JsonValue) as number)
  }
}

function cmp(operator: string, c: number): boolean {
  switch (operator) {
    case 'eq':
      return c === 0
    case 'ne':
      return c !== 0
    case 'lt':
      return c < 0
    case 'lte':
      return c <= 0
    case 'gt':
      return c > 0
    case 'gte':
      return c >= 0
    default:
      throw new Error(`operator ${operator}`)
  }
}

/** Residual queries over the input `{table: {column: value}}` built from `row`, with Rego's semantics. */
export function evalResidual(queries: readonly Body[], row: Row): boolean {
  return queries.some((body) => body.every((expr) => evalExpr(expr, row)))
}

function evalExpr(expr: Expr, row: Row): boolean {
  const result = evalCall(expr, row)
  return expr.negated ? !result : result
}

// Undefined (a missing column, a type error in a builtin) is false, as in Rego.
function evalCall(expr: Expr, row: Row): boolean {
  const terms = expr.terms as Term[]
  const name = operatorName(terms[0])
  const a = terms[1]!
  const b = terms[2]!
  if (name === 'eq' && (a.type === 'var' || b.type === 'var')) {
    const other = a.type === 'var' ? b : a
    return value(other, row) !== undefined
  }
  const x = value(a, row)
  const y = value(b, row)
  if (x === undefined || y === undefined) return false
  switch (name) {
    case 'eq':
    case 'equal':
      return compareJson(num(x), num(y)) === 0
    case 'neq':
      return compareJson(num(x), num(y)) !== 0
    case 'lt':
      return compareJson(num(x), num(y)) < 0
    case 'lte':
      return compareJson(num(x), num(y)) <= 0
    case 'gt':
      return compareJson(num(x), num(y)) > 0
    case 'gte':
      return compareJson(num(x), num(y)) >= 0
    case 'startswith':
      return typeof x === 'string' && typeof y === 'string' && x.startsWith(y)
    case 'endswith':
      return typeof x === 'string' && typeof y === 'string' && x.endsWith(y)
    case 'contains':
      return typeof x === 'string' && typeof y === 'string' && x.includes(y)
    case MEMBER: {
      const list = Array.isArray(y) ? y : y !== null && typeof y === 'object' ? Object.values(y) : []
      return list.some((v) => compareJson(num(x), num(v)) === 0)
    }
    default:
      throw new Error(`residual interpreter: no ${name}`)
  }
}

function value(term: Term, row: Row): JsonValue | undefined {
  if (term.type === 'ref') {
    const key = term.value
      .slice(1)
      .map((p) => (p.type === 'string' ? p.value : '?'))
      .join('.')
    return key in row ? (row[key] as JsonValue) : undefined
  }
  return termToJson(term)
}
