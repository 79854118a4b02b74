/**
 * SQLite: `'…'` literals with doubled quotes, `"` identifiers. SQLite's LIKE ignores case, so it cannot
 * express `startswith`/`endswith`/`contains` (the fragment checks refuse them); `sqlite-internal`, used by
 * the `rego.compile` test builtin, calls case-sensitive UDFs `internal_startswith(f, 'x')` instead.
 *
 * NOTE(regent): the reference writes backslash escapes for SQLite too (`'it\'s'`), which SQLite does not
 * read as escapes; regent doubles quotes so any value reads back exactly.
 */
import { type SqlDialectRules, SqlRenderError } from './core.js'
import { doubleQuotes, quoteSegments } from './literals.js'

const stringLiteral = (s: string): string => `'${doubleQuotes(s)}'`

/** SQLite's rules. */
export const sqlite: SqlDialectRules = {
  name: 'sqlite',
  stringLiteral,
  identifier: (field) => quoteSegments(field, '"', '"'),
  stringMatch: (_field, operator) => {
    throw new SqlRenderError(`${operator} cannot be written for SQLite (its LIKE ignores case)`)
  },
}

/** SQLite with the case-sensitive `internal_startswith`/`internal_endswith`/`internal_contains` UDFs. */
export const sqliteInternal: SqlDialectRules = {
  ...sqlite,
  name: 'sqlite-internal',
  stringMatch: (field, operator, value) => `internal_${operator}(${field}, ${stringLiteral(value)})`,
}
