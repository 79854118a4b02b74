/**
 * The Rego expression parser: bodies, literals and the term precedence ladder. Module-level
 * statements (package, imports, rules) build on it in module-parser.ts.
 *
 * The ladder, loosest first, is the same as OPA's, and so are the trees it builds (infix operators
 * become calls to OPA's builtin names):
 *
 *   literal  := ["not"] ( some-decl | every | expr { "with" term "as" term } )
 *   expr     := in-expr [ (":=" | "=") in-expr ]
 *   in-expr  := relation [ "," relation ] "in" relation { "in" relation }
 *   relation := or { ("==" | "!=" | "<" | "<=" | ">" | ">=") or }
 *   or       := and { "|" and }
 *   and      := arith { "&" arith }
 *   arith    := factor { ("+" | "-") factor }
 *   factor   := term { ("*" | "/" | "%") term }
 *   term     := scalar | var | array | object | set | comprehension | "(" in-expr ")" | "-" term
 *               followed, without whitespace, by { "." ident | "[" in-expr "]" | "(" args ")" }
 *
 * Errors abort the current statement with a `ParseAbort`; speculative branches (comprehension or
 * set, `k, v in`) catch it and restore the saved token index, as OPA's parser restores its state.
 */
import type { Body, Every, Expr, Location, SomeDecl, Term, With } from './ast.js'
import { ParseAbort } from './cursor.js'
import { operatorText } from './literals.js'
import { TermParser } from './term-parser.js'
import { OPERATOR_BUILTINS, T, TOKEN_NAMES, type TokenKind } from './tokens.js'

// Re-exported so callers of the parser need one import.
export type { ParseOptions } from './cursor.js'
export { ParseAbort } from './cursor.js'
export { operatorText } from './literals.js'

/** Parses bodies, literals and the operator ladder; terms come from `TermParser`. */
export class Parser extends TermParser {
  // -------------------------------------------------------------------------------------------------
  // Bodies and literals

  /** query := literal { (";" | newline) literal }, ending before `end`. */
  parseQuery(end: TokenKind): Body {
    if (this.peek() === end) this.fail('found empty body')
    const body: Body = []
    for (;;) {
      const expr = this.parseLiteral()
      expr.index = body.length
      body.push(expr)
      if (this.peek() === T.Semicolon) {
        this.advance()
        continue
      }
      if (this.peek() === end) return body
      if (!this.newlineBefore()) this.unexpected(`expected \\n or ; or ${TOKEN_NAMES[end]}`)
    }
  }

  /** body := "{" query "}" (the opening brace already consumed; consumes the closing one). */
  protected parseBody(end: TokenKind = T.RBrace): Body {
    this.enter()
    const body = this.parseQuery(end)
    this.leave()
    this.advance()
    return body
  }

  /** literal := ["not"] ( some-decl | every | expr with-modifiers ) */
  protected parseLiteral(): Expr {
    const startTok = this.i
    let negated = false
    if (this.peek() === T.Not && !this.keywordStartsRef()) {
      negated = true
      this.advance()
    }
    let expr: Expr
    if (this.peek() === T.Some && !this.keywordStartsRef()) {
      if (negated) this.unexpected("illegal negation of 'some'")
      expr = this.parseSome()
    } else if (this.peek() === T.Every && !this.keywordStartsRef()) {
      if (negated) this.unexpected("illegal negation of 'every'")
      expr = this.parseEvery()
    } else {
      expr = this.parseExpr()
      if (negated) expr.negated = true
    }
    if (this.peek() === T.With && !this.keywordStartsRef()) expr.with = this.parseWith()
    expr.location = this.spanFrom(startTok)
    return expr
  }

  /** some-decl := "some" var { "," var } | "some" [term ","] term "in" term */
  protected parseSome(): Expr {
    const declLoc = this.loc()
    const saved = this.save()
    this.advance()
    try {
      const term = this.parseInExpr(true)
      if (term.type === 'call') {
        const name = operatorText(term.value[0])
        if (name === 'internal.member_2' || name === 'internal.member_3') {
          const decl: SomeDecl = { type: 'somedecl', symbols: [term], location: declLoc }
          return { type: 'expr', index: 0, terms: decl }
        }
        this.unexpected('expected `x in xs` or `x, y in xs` expression')
      }
    } catch (err) {
      if (!(err instanceof ParseAbort)) throw err
    }
    this.restore(saved)
    const symbols: Term[] = []
    for (;;) {
      this.advance()
      if (this.peek() !== T.Ident) {
        const hint =
          this.regoVersion === 'v0' && this.tokText() === 'in'
            ? ' (hint: `import future.keywords.in` for `some x in xs` expressions)'
            : ''
        this.unexpected(`expected var${hint}`)
      }
      symbols.push(this.parseVar())
      if (this.peek() !== T.Comma) break
    }
    return { type: 'expr', index: 0, terms: { type: 'somedecl', symbols, location: declLoc } }
  }

  /** every := "every" [var ","] var "in" term "{" query "}" */
  protected parseEvery(): Expr {
    const loc = this.loc()
    this.advance()
    const term = this.parseInExpr(true)
    if (term.type !== 'call') this.unexpected('expected `x[, y] in xs { ... }` expression')
    const name = operatorText(term.value[0])
    let key: Term | null = null
    let value: Term
    let domain: Term
    if (name === 'internal.member_2' && term.value.length === 3) {
      value = term.value[1] as Term
      domain = term.value[2] as Term
    } else if (name === 'internal.member_3' && term.value.length === 4) {
      key = term.value[1] as Term
      value = term.value[2] as Term
      domain = term.value[3] as Term
      if (key.type !== 'var') this.unexpected('expected key to be a variable')
    } else {
      this.unexpected('expected `x[, y] in xs { ... }` expression')
    }
    if (value.type !== 'var') this.unexpected('expected value to be a variable')
    if (this.peek() !== T.LBrace) this.unexpected('missing body')
    this.advance()
    const body = this.parseBody()
    const every: Every = { type: 'every', key, value, domain, body, location: loc }
    return { type: 'expr', index: 0, terms: every }
  }

  /** with-modifiers := { "with" term "as" in-expr } */
  protected parseWith(): With[] {
    const withs: With[] = []
    while (this.peek() === T.With && !this.keywordStartsRef()) {
      const startTok = this.i
      this.advance()
      if (this.peek() !== T.Ident && !this.keywordStartsRef()) this.unexpected('expected ident')
      const target = this.parseTerm()
      if (target.type !== 'ref' && target.type !== 'var')
        this.fail('expected with target path', target.location)
      if (this.peek() !== T.As) this.unexpected('expected as keyword')
      this.advance()
      const value = this.parseInExpr(true)
      withs.push({ type: 'with', target, value, location: this.spanFrom(startTok) })
    }
    return withs
  }

  /** expr := in-expr [ (":=" | "=") in-expr ]; a top-level call becomes the expression's terms. */
  protected parseExpr(): Expr {
    const lhs = this.parseInExpr(true)
    if (this.peek() === T.Assign || this.peek() === T.Unify) {
      const op = this.operatorTerm(OPERATOR_BUILTINS[this.peek()] as string)
      this.advance()
      const rhs = this.parseInExpr(true)
      return { type: 'expr', index: 0, terms: [op, lhs, rhs] }
    }
    if (lhs.type === 'call') return { type: 'expr', index: 0, terms: lhs.value }
    return { type: 'expr', index: 0, terms: lhs }
  }

  // -------------------------------------------------------------------------------------------------
  // The operator ladder

  /**
   * in-expr := relation [ "," relation ] "in" relation { "in" relation }
   * `keyVal` allows the `k, v in xs` form (not inside lists, where the comma separates items).
   */
  protected parseInExpr(keyVal: boolean, lhsIn?: Term, from?: Location): Term {
    this.enter()
    const lhs = lhsIn ?? this.parseRelationExpr()
    const start = from ?? (lhs.location as Location)
    if (keyVal && this.peek() === T.Comma) {
      const saved = this.save()
      this.advance()
      try {
        const mhs = this.parseRelationExpr()
        if (this.peek() === T.In) {
          const op = this.memberOperator('member_3')
          this.advance()
          const rhs = this.parseRelationExpr()
          const call = this.callTerm([op, lhs, mhs, rhs], start)
          this.leave()
          return this.peek() === T.In ? this.parseInExpr(keyVal, call, start) : call
        }
      } catch (err) {
        if (!(err instanceof ParseAbort)) throw err
      }
      this.restore(saved)
    }
    if (this.peek() === T.In && !this.keywordStartsRef()) {
      const op = this.memberOperator('member_2')
      this.advance()
      const rhs = this.parseRelationExpr()
      const call = this.callTerm([op, lhs, rhs], start)
      this.leave()
      return this.peek() === T.In ? this.parseInExpr(keyVal, call, start) : call
    }
    this.leave()
    return lhs
  }

  /** relation := or { ("==" | "!=" | "<" | "<=" | ">" | ">=") or } */
  protected parseRelationExpr(): Term {
    let lhs = this.parseOrExpr()
    const start = lhs.location as Location
    while (this.peek() >= T.Equal && this.peek() <= T.Gte) {
      const op = this.operatorTerm(OPERATOR_BUILTINS[this.peek()] as string)
      this.advance()
      lhs = this.callTerm([op, lhs, this.parseOrExpr()], start)
    }
    return lhs
  }

  /** or := and { "|" and } */
  protected parseOrExpr(): Term {
    let lhs = this.parseAndExpr()
    const start = lhs.location as Location
    while (this.peek() === T.Or) {
      const op = this.operatorTerm('or')
      this.advance()
      lhs = this.callTerm([op, lhs, this.parseAndExpr()], start)
    }
    return lhs
  }

  /** and := arith { "&" arith } */
  protected parseAndExpr(): Term {
    let lhs = this.parseArithExpr()
    const start = lhs.location as Location
    while (this.peek() === T.And) {
      const op = this.operatorTerm('and')
      this.advance()
      lhs = this.callTerm([op, lhs, this.parseArithExpr()], start)
    }
    return lhs
  }

  /** arith := factor { ("+" | "-") factor } */
  protected parseArithExpr(): Term {
    let lhs = this.parseFactorExpr()
    const start = lhs.location as Location
    while (this.peek() === T.Add || this.peek() === T.Sub) {
      const op = this.operatorTerm(OPERATOR_BUILTINS[this.peek()] as string)
      this.advance()
      lhs = this.callTerm([op, lhs, this.parseFactorExpr()], start)
    }
    return lhs
  }

  /** factor := term { ("*" | "/" | "%") term } */
  protected parseFactorExpr(): Term {
    let lhs = this.parseTerm()
    const start = lhs.location as Location
    while (this.peek() === T.Mul || this.peek() === T.Quo || this.peek() === T.Rem) {
      const op = this.operatorTerm(OPERATOR_BUILTINS[this.peek()] as string)
      this.advance()
      lhs = this.callTerm([op, lhs, this.parseTerm()], start)
    }
    return lhs
  }
}
