/**
 * Parsing of queries (`data.a.allow == true; x := input.y`), as the query endpoints, `regent eval`
 * and the compile API receive them. A query is a body without braces.
 */
import { parseError, RegoErrors } from '../errors.js'
import type { Body, Import, Term } from './ast.js'
import { MAX_DEPTH_MESSAGE } from './cursor.js'
import { ParseAbort, type ParseOptions, Parser } from './parser.js'
import { FUTURE_KEYWORDS, LATER_FUTURE_KEYWORDS, T } from './tokens.js'

/** Options of {@link parseQuery}. */
export interface QueryParseOptions extends ParseOptions {
  /**
   * The imports the query is compiled with (`regent eval --import`, the REPL's module): as in
   * OPA's rego.parseQuery, their `future.keywords` and `rego.v1`/`rego.v2` imports decide which
   * keywords the query may use (`not { ... }`, `and`/`or`, and `in`/`every`/`if` in v0). They are
   * taken as already validated (parsed as a module's imports).
   */
  imports?: readonly Import[]
}

class QueryParser extends Parser {
  constructor(text: string, options: QueryParseOptions) {
    super(text, options)
    for (const imp of options.imports ?? []) this.#enable(imp)
  }

  /** Enables what one query import turns on, as the module parser's own imports do. */
  #enable(imp: Import): void {
    const path = imp.path.value.map((t) => (t.type === 'var' || t.type === 'string' ? t.value : ''))
    if (path[0] === 'future' && path[1] === 'keywords') {
      const words =
        path[2] !== undefined ? [path[2]] : [...FUTURE_KEYWORDS.keys(), ...this.futureKeywordNames]
      for (const word of words) this.#enableKeyword(word)
    } else if (path[0] === 'rego' && (path[1] === 'v1' || path[1] === 'v2')) {
      for (const word of FUTURE_KEYWORDS.keys()) this.#enableKeyword(word)
      if (path[1] === 'v2') for (const word of LATER_FUTURE_KEYWORDS) this.#enableKeyword(word)
    }
  }

  #enableKeyword(word: string): void {
    if (word === 'not') this.notBodies = true
    else if (word === 'and') this.andKeyword = true
    else if (word === 'or') this.orKeyword = true
    const kind = FUTURE_KEYWORDS.get(word)
    if (kind !== undefined) this.activateKeyword(kind)
  }

  parseWholeQuery(): Body {
    try {
      const body = this.parseQuery(T.EOF)
      return body
    } catch (err) {
      if (err instanceof ParseAbort) throw new RegoErrors([err.error])
      if (err instanceof RangeError) throw new RegoErrors([parseError(this.loc(), MAX_DEPTH_MESSAGE)])
      throw err
    }
  }
}

/**
 * Parses a query. Throws `RegoErrors` (`rego_parse_error`) when it does not parse; an empty query is
 * an error, as in OPA. A query holds no imports itself (OPA: `expected body`); `options.imports`
 * supplies them.
 *
 * @example
 * parseQuery('data.test.p = x') // [{ type: 'expr', terms: [eq, data.test.p, x], ... }]
 */
export function parseQuery(text: string, options: QueryParseOptions = {}): Body {
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
      if (err instanceof RangeError) throw parseError(this.loc(), MAX_DEPTH_MESSAGE)
      throw err
    }
  }
}
