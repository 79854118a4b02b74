/**
 * MySQL and MariaDB: `'…'` literals with backslash escapes (valid in the default SQL mode; servers
 * running with NO_BACKSLASH_ESCAPES are not supported, as with most MySQL client libraries), LIKE with
 * its default backslash escape, backtick identifiers.
 */
import type { SqlDialectRules } from './core.js'
import { backslashEscape, escapeLikeBackslash, likePattern, quoteSegments } from './literals.js'

const stringLiteral = (s: string): string => `'${backslashEscape(s)}'`

/** MySQL's rules. */
export const mysql: SqlDialectRules = {
  name: 'mysql',
  stringLiteral,
  identifier: (field) => quoteSegments(field, '`', '`'),
  stringMatch: (field, operator, value) =>
    `${field} LIKE ${stringLiteral(likePattern(operator, value, escapeLikeBackslash))}`,
}
