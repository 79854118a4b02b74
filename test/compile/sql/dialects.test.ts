import { LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { renderSql, SqlRenderError } from '../../../compile/sql/index.js'
import type { JsonValue, SqlDialect } from '../../../compile/types.js'
import { FieldRef, type UcastNode } from '../../../compile/ucast.js'

const n = (text: string) => new LosslessNumber(text)
const field = (operator: string, f: string, value: JsonValue | FieldRef): UcastNode =>
  ({ type: 'field', operator, field: f, value }) as UcastNode
const and = (...value: UcastNode[]): UcastNode => ({ type: 'compound', operator: 'and', value })
const or = (...value: UcastNode[]): UcastNode => ({ type: 'compound', operator: 'or', value })
const not = (child: UcastNode): UcastNode => ({ type: 'compound', operator: 'not', value: [child] })

const tickets = or(
  and(field('eq', 'tickets.tenant', n('2')), field('eq', 'users.name', 'caesar')),
  and(
    field('eq', 'tickets.tenant', n('2')),
    field('eq', 'tickets.assignee', null),
    field('eq', 'tickets.resolved', false),
  ),
)

describe('renderSql, shared shapes', () => {
  it('renders the tickets example exactly as the reference, per dialect', () => {
    expect(renderSql(tickets, 'postgresql')).toBe(
      "WHERE ((tickets.tenant = E'2' AND users.name = E'caesar') OR (tickets.tenant = E'2' AND tickets.assignee IS NULL AND tickets.resolved = FALSE))",
    )
    expect(renderSql(tickets, 'mysql')).toBe(
      "WHERE ((tickets.tenant = '2' AND users.name = 'caesar') OR (tickets.tenant = '2' AND tickets.assignee IS NULL AND tickets.resolved = FALSE))",
    )
    expect(renderSql(tickets, 'sqlserver')).toBe(
      "WHERE ((tickets.tenant = N'2' AND users.name = N'caesar') OR (tickets.tenant = N'2' AND tickets.assignee IS NULL AND tickets.resolved = FALSE))",
    )
    expect(renderSql(tickets, 'sqlite')).toBe(
      "WHERE ((tickets.tenant = '2' AND users.name = 'caesar') OR (tickets.tenant = '2' AND tickets.assignee IS NULL AND tickets.resolved = FALSE))",
    )
  })

  it('writes every comparison, null tests, field refs, IN lists and NOT', () => {
    const ops = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' }
    for (const [op, sql] of Object.entries(ops)) {
      expect(renderSql(field(op, 'f.p', n('1.5')), 'postgresql')).toBe(`WHERE f.p ${sql} E'1.5'`)
      expect(renderSql(field(op, 'f.p', new FieldRef('g.q')), 'mysql')).toBe(`WHERE f.p ${sql} g.q`)
    }
    expect(renderSql(field('ne', 'f.p', null), 'sqlite')).toBe('WHERE f.p IS NOT NULL')
    expect(renderSql(field('eq', 'f.p', true), 'sqlserver')).toBe('WHERE f.p = TRUE')
    expect(renderSql(field('in', 'f.p', ['a', n('2'), true, null]), 'postgresql')).toBe(
      "WHERE f.p IN (E'a', E'2', TRUE, NULL)",
    )
    expect(renderSql(field('in', 'f.p', []), 'mysql')).toBe('WHERE 0 = 1')
    expect(renderSql(not(field('in', 'f.p', ['a', 'b'])), 'mysql')).toBe("WHERE NOT f.p IN ('a', 'b')")
    expect(renderSql(not(field('eq', 'fruits.name', 'apple')), 'postgresql')).toBe(
      "WHERE NOT fruits.name = E'apple'",
    )
    expect(renderSql(field('gt', 'salary', 50000), 'postgresql')).toBe('WHERE salary > 50000')
    expect(renderSql(undefined, 'postgresql')).toBe('')
  })

  it('refuses what SQL cannot say rather than widening the filter', () => {
    const cases: Array<[UcastNode, string]> = [
      [field('lt', 'f.p', null), "null value can only be used with 'eq' or 'ne' operators"],
      [field('in', 'f.p', 'abc'), '"in" needs a list of values, got a string'],
      [field('startswith', 'f.p', n('1')), 'startswith needs a string, got a number'],
      [field('eq', 'f.p', [1]), 'an array has no SQL literal'],
      [field('in', 'f.p', [[1]]), 'an array has no SQL literal'],
      [or(), '"or" needs at least one condition'],
      [field('startswith', 'f.p', new FieldRef('g.q')), 'operator startswith cannot compare two fields'],
    ]
    for (const [node, message] of cases) {
      expect(() => renderSql(node, 'postgresql')).toThrow(new SqlRenderError(message))
    }
  })
})

describe('string literals', () => {
  const tricky = 'it\'s "q" a\\b\n\t\r\b\0\x1aend'
  it('PostgreSQL: E-strings with backslash escapes (\\x1A spelled so PostgreSQL reads it)', () => {
    expect(renderSql(field('eq', 'f', tricky), 'postgresql')).toBe(
      "WHERE f = E'it\\'s \\\"q\\\" a\\\\b\\n\\t\\r\\b\\0\\x1Aend'",
    )
  })
  it('MySQL: the reference escapes', () => {
    expect(renderSql(field('eq', 'f', tricky), 'mysql')).toBe(
      "WHERE f = 'it\\'s \\\"q\\\" a\\\\b\\n\\t\\r\\b\\0\\Zend'",
    )
  })
  it('SQL Server and SQLite: quotes doubled, backslashes literal, NUL refused', () => {
    const value = 'it\'s a\\b "q"\n'
    expect(renderSql(field('eq', 'f', value), 'sqlserver')).toBe("WHERE f = N'it''s a\\b \"q\"\n'")
    expect(renderSql(field('eq', 'f', value), 'sqlite')).toBe("WHERE f = 'it''s a\\b \"q\"\n'")
    expect(() => renderSql(field('eq', 'f', 'a\0'), 'sqlite')).toThrow(SqlRenderError)
  })
})

describe('LIKE', () => {
  it('escapes wildcards and backslashes, then the literal (PostgreSQL, MySQL)', () => {
    expect(renderSql(field('startswith', 'name', 'f\\oo_b%ar'), 'postgresql')).toBe(
      "WHERE name LIKE E'f\\\\\\\\oo\\\\_b\\\\%ar%'",
    )
    expect(renderSql(field('endswith', 'fruit.name', 'le'), 'mysql')).toBe("WHERE fruit.name LIKE '%le'")
    expect(renderSql(field('contains', 'fruit.name', 'a'), 'postgresql')).toBe("WHERE fruit.name LIKE E'%a%'")
    expect(renderSql(field('startswith', 'fruit.name', '%ppl'), 'mysql')).toBe(
      "WHERE fruit.name LIKE '\\\\%ppl%'",
    )
  })
  it('escapes wildcards with brackets for SQL Server', () => {
    expect(renderSql(field('startswith', 'fruit.name', '%p_[x]\\'), 'sqlserver')).toBe(
      "WHERE fruit.name LIKE N'[%]p[_][[]x]\\%'",
    )
  })
  it('refuses LIKE on SQLite (case-insensitive) but uses the UDFs for sqlite-internal', () => {
    expect(() => renderSql(field('contains', 'f.n', 'a'), 'sqlite')).toThrow(/LIKE ignores case/)
    expect(renderSql(field('contains', 'f.n', "a'"), 'sqlite-internal')).toBe(
      "WHERE internal_contains(f.n, 'a''')",
    )
  })
})

describe('identifiers', () => {
  it('keeps plain and dotted names, quotes others per dialect', () => {
    const quoted: Record<SqlDialect, string> = {
      postgresql: 'WHERE "my table"."col""x" = TRUE',
      sqlite: 'WHERE "my table"."col""x" = TRUE',
      mysql: 'WHERE `my table`.`col"x` = TRUE',
      sqlserver: 'WHERE [my table].[col"x] = TRUE',
      'sqlite-internal': 'WHERE "my table"."col""x" = TRUE',
    }
    for (const [dialect, want] of Object.entries(quoted)) {
      expect(renderSql(field('eq', 'my table.col"x', true), dialect as SqlDialect)).toBe(want)
      expect(renderSql(field('eq', 'public.FRUIT.NAME', true), dialect as SqlDialect)).toBe(
        'WHERE public.FRUIT.NAME = TRUE',
      )
    }
    expect(renderSql(field('eq', '"Fruit".name', true), 'postgresql')).toBe('WHERE "Fruit".name = TRUE')
    expect(renderSql(field('eq', 'x; DROP TABLE t.a', true), 'mysql')).toBe(
      'WHERE `x; DROP TABLE t`.a = TRUE',
    )
  })
})
