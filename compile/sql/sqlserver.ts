/**
 * SQL Server: `N'…'` literals with doubled quotes, LIKE patterns escaped with brackets, `[…]` identifiers.
 *
 * NOTE(regent): the reference writes backslash escapes here too (`N'it\'s'`), which SQL Server does not
 * read as escapes: a quote in a value would end the literal early. regent doubles quotes instead, and
 * escapes LIKE wildcards with brackets because SQL Server's LIKE has no default escape character.
 */
import type { SqlDialectRules } from './core.js'
import { doubleQuotes, escapeLikeBrackets, likePattern, quoteSegments } from './literals.js'

const stringLiteral = (s: string): string => `N'${doubleQuotes(s)}'`

/** SQL Server's rules. */
export const sqlserver: SqlDialectRules = {
  name: 'sqlserver',
  stringLiteral,
  identifier: (field) => quoteSegments(field, '[', ']'),
  stringMatch: (field, operator, value) =>
    `${field} LIKE ${stringLiteral(likePattern(operator, value, escapeLikeBrackets))}`,
}
