/**
 * The part of SQL rendering every dialect shares: a UCAST tree becomes a `WHERE` clause with values
 * inlined as literals. Dialects supply how literals, identifiers and string matches are written.
 *
 * Shapes (as the reference): `f = v`, `f <> v`, `f IS NULL` / `f IS NOT NULL` for null, `f IN (a, b)`
 * (`0 = 1` when empty), `NOT c` without parentheses, `(c1 AND c2)` / `(c1 OR c2)` always parenthesized.
 */
import { isLosslessNumber, type LosslessNumber } from 'lossless-json'
import type { JsonValue, SqlDialect } from '../types.js'
import { FieldRef, type UcastNode } from '../ucast.js'

/** How one dialect writes the parts of a condition. */
export interface SqlDialectRules {
  name: SqlDialect
  /** A string literal that the database reads back as exactly `s`. */
  stringLiteral(s: string): string
  /** A dotted field name (`table.column`), quoted where a segment is not a plain identifier. */
  identifier(field: string): string
  /** `startswith`/`endswith`/`contains` of a field and a string. */
  stringMatch(field: string, operator: 'startswith' | 'endswith' | 'contains', value: string): string
}

/** A UCAST tree that cannot be written as SQL; the route answers 500 `convert to queries: …`. */
export class SqlRenderError extends Error {
  override name = 'SqlRenderError'
}

const COMPARATORS: Readonly<Record<string, string>> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  lt: '<',
  gte: '>=',
  ge: '>=',
  lte: '<=',
  le: '<=',
}

/**
 * The `WHERE …` clause of `node` in `dialect`, or '' when `node` is undefined (no condition).
 * @throws SqlRenderError for null with an ordering operator, a non-list `in`, a non-string match, or a
 *   value with no SQL literal (arrays and objects outside `IN`).
 * @example renderWhere({type: 'field', operator: 'eq', field: 'fruits.name', value: 'apple'}, pg)
 *   // "WHERE fruits.name = E'apple'"
 */
export function renderWhere(node: UcastNode | undefined, dialect: SqlDialectRules): string {
  if (!node) return ''
  const condition = renderCondition(node, dialect)
  return condition === '' ? '' : `WHERE ${condition}`
}

/** One condition, without `WHERE`. */
export function renderCondition(node: UcastNode, dialect: SqlDialectRules): string {
  if (node.type === 'compound') {
    if (node.operator === 'not') {
      const [child] = node.value
      if (!child || node.value.length !== 1) throw new SqlRenderError('"not" needs exactly one condition')
      return `NOT ${renderCondition(child, dialect)}`
    }
    // An empty `or` means "no row" and dropping it would mean "every row": refuse rather than widen.
    if (node.value.length === 0) throw new SqlRenderError(`"${node.operator}" needs at least one condition`)
    const parts = node.value.map((child) => renderCondition(child, dialect)).filter((c) => c !== '')
    return `(${parts.join(node.operator === 'and' ? ' AND ' : ' OR ')})`
  }
  const field = dialect.identifier(node.field)
  const { operator, value } = node
  if (value instanceof FieldRef) {
    const comparator = COMPARATORS[operator]
    if (!comparator) throw new SqlRenderError(`operator ${operator} cannot compare two fields`)
    return `${field} ${comparator} ${dialect.identifier(value.field)}`
  }
  if (operator === 'in') {
    if (!Array.isArray(value)) throw new SqlRenderError(`"in" needs a list of values, got ${describe(value)}`)
    if (value.length === 0) return '0 = 1'
    return `${field} IN (${value.map((v) => literal(v, dialect)).join(', ')})`
  }
  if (operator === 'startswith' || operator === 'endswith' || operator === 'contains') {
    if (typeof value !== 'string')
      throw new SqlRenderError(`${operator} needs a string, got ${describe(value)}`)
    return dialect.stringMatch(field, operator, value)
  }
  const comparator = COMPARATORS[operator]
  if (!comparator) throw new SqlRenderError(`unsupported operator ${operator}`)
  if (value === null) {
    if (operator === 'eq') return `${field} IS NULL`
    if (operator === 'ne') return `${field} IS NOT NULL`
    throw new SqlRenderError("null value can only be used with 'eq' or 'ne' operators")
  }
  return `${field} ${comparator} ${literal(value, dialect)}`
}

/**
 * A value as an SQL literal. Numbers from JSON or Rego (`LosslessNumber`) are quoted strings of their
 * exact text (`E'2'`), as the reference writes them, so the database converts them to the column's
 * type; plain JS numbers are written bare.
 */
export function literal(value: JsonValue, dialect: SqlDialectRules): string {
  if (value === null) return 'NULL'
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  if (typeof value === 'string') return dialect.stringLiteral(value)
  if (isLosslessNumber(value)) return dialect.stringLiteral((value as LosslessNumber).value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new SqlRenderError(`number ${value} has no SQL literal`)
    return String(value)
  }
  throw new SqlRenderError(`${describe(value)} has no SQL literal`)
}

function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  if (isLosslessNumber(value)) return 'a number'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
