/**
 * PostgreSQL: `E'…'` string literals with backslash escapes (the E prefix makes backslashes escapes
 * whatever `standard_conforming_strings` says), LIKE with its default backslash escape, `"` identifiers.
 */
import type { SqlDialectRules } from './core.js'
import { backslashEscape, escapeLikeBackslash, likePattern, quoteSegments } from './literals.js'

// NOTE(regent): the reference writes \x1a as `\Z`, which PostgreSQL reads as the letter Z.
const POSTGRES_OVERRIDES = { '\x1a': '\\x1A' }

const stringLiteral = (s: string): string => `E'${backslashEscape(s, POSTGRES_OVERRIDES)}'`

/** PostgreSQL's rules. */
export const postgresql: SqlDialectRules = {
  name: 'postgresql',
  stringLiteral,
  identifier: (field) => quoteSegments(field, '"', '"'),
  stringMatch: (field, operator, value) =>
    `${field} LIKE ${stringLiteral(likePattern(operator, value, escapeLikeBackslash))}`,
}
