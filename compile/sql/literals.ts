/**
 * Escaping shared by the dialects: string literals (backslash style or quote doubling), LIKE patterns,
 * and identifier quoting for names that are not plain identifiers.
 */
import { SqlRenderError } from './core.js'

// The escapes of go-sqlbuilder's interpolation, which the reference's output is made of.
const BACKSLASH_ESCAPES: Readonly<Record<string, string>> = {
  '\0': '\\0',
  '\b': '\\b',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\x1a': '\\Z',
  "'": "\\'",
  '"': '\\"',
  '\\': '\\\\',
}

const NEEDS_BACKSLASH_ESCAPE = /[\0\b\n\r\t\x1a'"\\]/

/**
 * Backslash-style escaping (valid in PostgreSQL `E'…'` strings and in MySQL's default mode).
 * `overrides` replaces single escapes where a dialect reads one differently.
 */
export function backslashEscape(s: string, overrides: Readonly<Record<string, string>> = {}): string {
  if (!NEEDS_BACKSLASH_ESCAPE.test(s)) return s
  return s.replace(/[\0\b\n\r\t\x1a'"\\]/g, (ch) => overrides[ch] ?? BACKSLASH_ESCAPES[ch]!)
}

/**
 * Standard SQL escaping: a quote is written twice and every other character stands for itself
 * (SQLite, SQL Server, where a backslash is an ordinary character).
 * @throws SqlRenderError for NUL, which such literals cannot hold.
 */
export function doubleQuotes(s: string): string {
  if (s.includes('\0'))
    throw new SqlRenderError('a string with a NUL character has no literal in this dialect')
  return s.replace(/'/g, "''")
}

/** A LIKE pattern for `startswith`/`endswith`/`contains`, `escape` having made the value literal. */
export function likePattern(
  operator: 'startswith' | 'endswith' | 'contains',
  value: string,
  escapeWildcards: (s: string) => string,
): string {
  const literal = escapeWildcards(value)
  if (operator === 'startswith') return `${literal}%`
  if (operator === 'endswith') return `%${literal}`
  return `%${literal}%`
}

/** LIKE escaping with a backslash escape character (PostgreSQL's and MySQL's default). */
export function escapeLikeBackslash(s: string): string {
  return s.replace(/[\\_%]/g, (ch) => `\\${ch}`)
}

/** LIKE escaping with brackets (SQL Server, which has no default escape character). */
export function escapeLikeBrackets(s: string): string {
  return s.replace(/[[_%]/g, (ch) => `[${ch}]`)
}

const BARE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/
const BARE_DOTTED = /^[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)*$/

/**
 * A dotted name with each segment written as is when it is a plain identifier (or already quoted in
 * this dialect), else quoted with `open`/`close`, doubling `close` inside. Keeps `schema.table.column`
 * mappings working while a policy's odd key cannot break out of the identifier.
 */
export function quoteSegments(field: string, open: string, close: string): string {
  if (BARE_DOTTED.test(field)) return field // every segment bare: nothing to quote
  return field
    .split('.')
    .map((segment) => {
      if (BARE_IDENTIFIER.test(segment) || isQuoted(segment, open, close)) return segment
      return `${open}${segment.split(close).join(close + close)}${close}`
    })
    .join('.')
}

function isQuoted(segment: string, open: string, close: string): boolean {
  if (segment.length < 2 || !segment.startsWith(open) || !segment.endsWith(close)) return false
  const inner = segment.slice(1, -1)
  return inner.split(close + close).every((piece) => !piece.includes(close))
}
