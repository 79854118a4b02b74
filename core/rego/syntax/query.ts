/**
 * Parsing of queries (`data.a.allow == true; x := input.y`), as the query endpoints, `regent eval`
 * and the compile API receive them. A query is a body without braces.
 */
import { parseError, RegoErrors } from '../errors.js'
import type { Body, Term } from './ast.js'
import { ParseAbort, type ParseOptions, Parser } from './parser.js'
import { T } from './tokens.js'

class QueryParser extends Parser {
  parseWholeQuery(): Body {
    try {
      const body = this.parseQuery(T.EOF)
      return body
    } catch (err) {
      if (err instanceof ParseAbort) throw new RegoErrors([err.error])
      if (err instanceof RangeError) throw new RegoErrors([parseError(this.loc(), 'nesting too deep')])
      throw err
    }
  }
}

/**
 * Parses a query. Throws `RegoErrors` (`rego_parse_error`) when it does not parse; an empty query is
 * an error, as in OPA.
 *
 * @example
 * parseQuery('data.test.p = x') // [{ type: 'expr', terms: [eq, data.test.p, x], ... }]
 */
export function parseQuery(text: string, options: ParseOptions = {}): Body {
  return new QueryParser(text, options).parseWholeQuery()
}

/** Alias of `parseQuery` under OPA's other name for it. */
export const parseBody = parseQuery

/**
 * Parses a single term (`input.x`, `data.a[b]`, `{"a": 1}`) from `text`. Throws the first
 * `RegoError` found.
 */
export function parseTermText(text: string, options: ParseOptions = {}): Term {
  const parser = new TermParser(text, options)
  return parser.parseWholeTerm()
}

class TermParser extends Parser {
  parseWholeTerm(): Term {
    try {
      const term = this.parseInExpr(true)
      if (this.peek() !== T.EOF) this.unexpected('expected end of term')
      return term
    } catch (err) {
      if (err instanceof ParseAbort) throw err.error
      if (err instanceof RangeError) throw parseError(this.loc(), 'nesting too deep')
      throw err
    }
  }
}
