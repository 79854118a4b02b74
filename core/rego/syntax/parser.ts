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
import type {
  Body,
  Every,
  Expr,
  ExprTerms,
  Location,
  LogicalExpr,
  NotBody,
  RefTerm,
  SomeDecl,
  Term,
  With,
} from './ast.js'
import { ParseAbort } from './cursor.js'
import { operatorText } from './literals.js'
import { SourceLocation } from './source.js'
import { TermParser } from './term-parser.js'
import { OPERATOR_BUILTINS, T, TOKEN_NAMES, type TokenKind } from './tokens.js'

// Re-exported so callers of the parser need one import.
export type { ParseOptions } from './cursor.js'
export { CAPABILITY_FEATURES, CAPABILITY_FUTURE_KEYWORDS, ParseAbort } from './cursor.js'
export { operatorText } from './literals.js'

/** One side of an `and` / `or`: a braced block or one expression. */
type LogicalOperand = { explicit: true; body: Body } | { explicit: false; expr: Expr }

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
      if (this.peek() === end) return body.slice()
      // An unclosed body reaches the end of the file: name the missing bracket, not a term.
      // (OPA names the separators too when the body's last line has no line break after it.)
      if (this.peek() === T.EOF && this.newlineBefore()) this.unexpected(`expected ${TOKEN_NAMES[end]}`)
      if (!this.newlineBefore()) {
        const hint = this.futureKeywordHint(expr)
        const note = `expected \\n or ; or ${TOKEN_NAMES[end]}`
        this.unexpected(hint ? `${note} (hint: ${hint})` : note)
      }
    }
  }

  /**
   * OPA's hint when a literal stops where a future keyword not imported (v0) would have gone on:
   * `some x in xs` stops before `in`, `every x in xs { ... }` after `every`.
   */
  private futureKeywordHint(expr: Expr): string | undefined {
    const terms = expr.terms
    if (Array.isArray(terms)) return undefined
    if (
      terms.type === 'somedecl' &&
      !this.isKeywordActive(T.In) &&
      this.peek() === T.Ident &&
      this.tokText() === 'in'
    )
      return '`import future.keywords.in` for `some x in xs` expressions'
    if (terms.type !== 'var' || terms.value !== 'every' || this.isKeywordActive(T.Every)) return undefined
    // every x [, y] in
    let i = this.i
    if (this.kindAt(i) !== T.Ident) return undefined
    if (this.kindAt(i + 1) === T.Comma && this.kindAt(i + 2) === T.Ident) i += 2
    if (this.kindAt(i + 1) !== T.Ident || this.tokText(i + 1) !== 'in') return undefined
    return '`import future.keywords.every` for `every x in xs { ... }` expressions'
  }

  /** body := "{" query "}" (the opening brace already consumed; consumes the closing one). */
  protected parseBody(end: TokenKind = T.RBrace): Body {
    this.enter()
    const body = this.parseQuery(end)
    this.leave()
    this.advance()
    return body
  }

  /**
   * literal := disjunction [with-modifiers] once `and` or `or` is imported, else simple-literal:
   *   disjunction := conjunction { "or" conjunction }
   *   conjunction := operand { "and" operand }
   *   operand     := "{" query "}" | simple-literal (without its with-modifiers)
   * A trailing `with` applies to the whole expression. A literal that is one braced block and no
   * keyword after it is a set or object term, as before.
   */
  protected parseLiteral(): Expr {
    if (!this.andKeyword && !this.orKeyword) return this.parseSimpleLiteral(true)
    const startTok = this.i
    const sw = this.wildcard
    const sd = this.depth
    const operand = this.parseDisjunction(startTok)
    if (operand.explicit) {
      // `{ ... }` with no `and`/`or` after it: a set or object literal after all.
      this.reset(startTok, sw, sd)
      return this.parseSimpleLiteral(true)
    }
    const expr = operand.expr
    if (this.peek() !== T.With || this.keywordStartsRef()) return expr
    const withs = this.parseWith()
    return { ...expr, with: [...(expr.with ?? []), ...withs], location: this.spanFrom(startTok) }
  }

  /** True at an infix `and` / `or` that the imports made a keyword. */
  private atLogical(word: 'and' | 'or'): boolean {
    if (word === 'and' ? !this.andKeyword : !this.orKeyword) return false
    return this.peek() === T.Ident && this.tokText() === word
  }

  /** disjunction := conjunction { "or" conjunction }, associating to the left. */
  private parseDisjunction(startTok: number): LogicalOperand {
    let lhs = this.parseConjunction(startTok, true)
    while (this.atLogical('or')) {
      this.advance()
      const rhs = this.parseConjunction(this.i, false)
      lhs = this.logical('or', lhs, rhs, startTok)
    }
    return lhs
  }

  /** conjunction := operand { "and" operand }, associating to the left. */
  private parseConjunction(startTok: number, literalStart: boolean): LogicalOperand {
    let lhs = this.parseOperand(literalStart)
    while (this.atLogical('and')) {
      this.advance()
      const rhs = this.parseOperand(false)
      lhs = this.logical('and', lhs, rhs, startTok)
    }
    return lhs
  }

  /**
   * operand := "{" query "}" | "(" group ")" | simple-literal. At the start of a literal a brace may
   * also open a set or object term: the block is taken only when `and` / `or` follows it (the caller
   * checks).
   */
  private parseOperand(first: boolean): LogicalOperand {
    if (this.peek() === T.LParen) {
      const group = this.parseGroup()
      if (group) return group
    }
    if (this.peek() === T.LBrace) {
      const si = this.i
      const sw = this.wildcard
      const sd = this.depth
      try {
        this.advance()
        const body = this.parseBody()
        if (!first || this.atLogical('and') || this.atLogical('or')) return { explicit: true, body }
      } catch (err) {
        if (!(err instanceof ParseAbort) || !first) throw err
      }
      this.reset(si, sw, sd)
    }
    return { explicit: false, expr: this.parseSimpleLiteral(false) }
  }

  /**
   * group := "(" disjunction [with-modifiers] ")", taken only when the parentheses hold an `and` /
   * `or`, a negation or a `with` (anything else is a parenthesised term, as before) and the literal
   * or the operand ends after them. `(a or b) and c` groups the `or`; `(a and b) or c` is the same
   * AST as `a and b or c`. Undefined (nothing consumed) when the text is no such group.
   */
  private parseGroup(): LogicalOperand | undefined {
    const si = this.i
    const sw = this.wildcard
    const sd = this.depth
    try {
      this.advance()
      const startTok = this.i
      const inner = this.parseDisjunction(startTok)
      if (!inner.explicit && this.peek() === T.With && !this.keywordStartsRef()) {
        const withs = this.parseWith()
        const expr = inner.expr
        inner.expr = { ...expr, with: [...(expr.with ?? []), ...withs], location: this.spanFrom(startTok) }
      }
      if (!inner.explicit && this.peek() === T.RParen && isGroup(inner.expr)) {
        this.advance()
        if (this.atGroupEnd()) return inner
      }
    } catch (err) {
      if (!(err instanceof ParseAbort)) throw err
    }
    this.reset(si, sw, sd)
    return undefined
  }

  /**
   * The group after a `not`: `not (a or b)`, read as an implicit not-body (negating an `and` /
   * `or` needs one, as lowering turns those into not-bodies). Without `future.keywords.not` only
   * an `and` / `or` group; with it, any group.
   */
  private parseNegatedGroup(): Expr | undefined {
    if (!this.andKeyword && !this.orKeyword) return undefined
    const si = this.i
    const sw = this.wildcard
    const sd = this.depth
    const group = this.parseGroup()
    if (!group || group.explicit) return undefined
    const t = group.expr.terms
    const logical = !Array.isArray(t) && (t.type === 'and' || t.type === 'or')
    if (this.notBodies || (logical && !group.expr.negated && !group.expr.with)) return group.expr
    this.reset(si, sw, sd)
    return undefined
  }

  /** True where an operand ends: at `and` / `or`, a closing bracket, `;`, `with`, or a new line. */
  private atGroupEnd(): boolean {
    if (this.atLogical('and') || this.atLogical('or')) return true
    const kind = this.peek()
    if (kind === T.RParen || kind === T.RBrace || kind === T.RBrack || kind === T.Semicolon) return true
    if (kind === T.EOF || kind === T.Else || (kind === T.With && !this.keywordStartsRef())) return true
    return this.newlineBefore()
  }

  /** The expression `lhs word rhs`, spanning from `startTok` to the last token read. */
  private logical(
    word: 'and' | 'or',
    lhs: LogicalOperand,
    rhs: LogicalOperand,
    startTok: number,
  ): LogicalOperand {
    const location = this.spanFrom(startTok)
    const side = (o: LogicalOperand): Body => (o.explicit ? o.body : [{ ...o.expr, index: 0 }])
    const terms: LogicalExpr = {
      type: word,
      lhs: side(lhs),
      rhs: side(rhs),
      explicitLhs: lhs.explicit,
      explicitRhs: rhs.explicit,
      location,
    }
    return { explicit: false, expr: { type: 'expr', index: 0, terms, location } }
  }

  /** simple-literal := ["not"] ( some-decl | every | expr [with-modifiers] ) */
  protected parseSimpleLiteral(withAllowed: boolean): Expr {
    const startTok = this.i
    let negated = false
    let kind = this.peek()
    if (kind === T.Not && !this.keywordStartsRef()) {
      negated = true
      this.advance()
      kind = this.peek()
    }
    if (negated && this.notBodies && kind === T.LBrace) return this.parseNotBody(startTok, withAllowed)
    let terms: ExprTerms
    // The location of the whole expression when one term or call spans it (shared, not copied).
    let whole: Location | undefined
    const group = negated && kind === T.LParen ? this.parseNegatedGroup() : undefined
    if (group) return this.negation(startTok, [{ ...group, index: 0 }], withAllowed)
    if (kind === T.Some && !this.keywordStartsRef()) {
      if (negated) this.unexpected("illegal negation of 'some'")
      terms = this.parseSome()
    } else if (kind === T.Every && !this.keywordStartsRef()) {
      if (negated) this.unexpected("illegal negation of 'every'")
      terms = this.parseEvery()
    } else {
      // expr := in-expr [ (":=" | "=") in-expr ]; a top-level call becomes the expression's terms.
      const lhs = this.parseInExpr(true)
      const op = this.peek()
      if (op === T.Assign || op === T.Unify) {
        const operator = this.operatorTerm(op === T.Assign ? 'assign' : 'eq')
        this.advance()
        terms = [operator, lhs, this.parseInExpr(true)]
      } else {
        terms = lhs.type === 'call' ? lhs.value : lhs
        whole = lhs.location
      }
    }
    let withs: With[] | undefined
    if (withAllowed && this.peek() === T.With && !this.keywordStartsRef()) withs = this.parseWith()
    if (negated && this.notBodies) {
      // Under `future.keywords.not` the negated expression becomes an implicit body, its `with`
      // modifiers moving to the `not` (as OPA's parser does); both span the whole literal.
      const location = this.spanFrom(startTok)
      const inner: Expr = { type: 'expr', index: 0, terms, location }
      const not: NotBody = { type: 'not', body: [inner], explicitBody: false, location }
      return withs
        ? { type: 'expr', index: 0, terms: not, with: withs, location }
        : { type: 'expr', index: 0, terms: not, location }
    }
    // Objects are built whole, in the key order the AST has always had, so they keep one shape.
    if (withs) {
      const location = this.spanFrom(startTok)
      return negated
        ? { type: 'expr', index: 0, terms, negated: true, with: withs, location }
        : { type: 'expr', index: 0, terms, with: withs, location }
    }
    const location = whole && this.spans(whole, startTok) ? whole : this.spanFrom(startTok)
    return negated
      ? { type: 'expr', index: 0, terms, negated: true, location }
      : { type: 'expr', index: 0, terms, location }
  }

  /** not-body := "not" "{" query "}" [with-modifiers] (`not` consumed; at the brace). */
  protected parseNotBody(startTok: number, withAllowed: boolean): Expr {
    this.advance()
    return this.negation(startTok, this.parseBody(), withAllowed, true)
  }

  /** The not-body of `body` read from `startTok`, with the `with` modifiers that follow it. */
  private negation(startTok: number, body: Body, withAllowed: boolean, explicitBody = false): Expr {
    const location = this.spanFrom(startTok)
    const not: NotBody = { type: 'not', body, explicitBody, location }
    if (withAllowed && this.peek() === T.With && !this.keywordStartsRef()) {
      const withs = this.parseWith()
      return { type: 'expr', index: 0, terms: not, with: withs, location: this.spanFrom(startTok) }
    }
    return { type: 'expr', index: 0, terms: not, location }
  }

  /** True when `location` starts at token `tok` and ends at the last consumed token. */
  protected spans(location: Location, tok: number): boolean {
    return (
      location instanceof SourceLocation &&
      location.end === this.lastEnd &&
      location.offset === this.start(tok)
    )
  }

  /** some-decl := "some" var { "," var } | "some" [term ","] term "in" term */
  protected parseSome(): SomeDecl {
    const declLoc = this.loc()
    const si = this.i
    const sw = this.wildcard
    const sd = this.depth
    this.advance()
    let call: Term | undefined
    try {
      const term = this.parseInExpr(true)
      if (term.type === 'call') call = term
    } catch (err) {
      if (!(err instanceof ParseAbort)) throw err
    }
    if (call?.type === 'call') {
      if (isMemberCall(call.value[0])) {
        // `some internal.member_2(x)` written out: OPA wants the operands `x in xs` gives.
        const op = call.value[0] as RefTerm
        const arity = (op.value[1] as { value: string }).value === 'member_2' ? 2 : 3
        if (call.value.length !== arity + 1) this.unexpected('illegal domain')
        return { type: 'somedecl', symbols: [call], location: declLoc }
      }
      // As OPA: any other call after `some` (`some f(x)`) is an error, not a list of vars.
      this.unexpected('expected `x in xs` or `x, y in xs` expression')
    }
    this.reset(si, sw, sd)
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
    return { type: 'somedecl', symbols, location: declLoc }
  }

  /** every := "every" [var ","] var "in" term "{" query "}" */
  protected parseEvery(): Every {
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
    return { type: 'every', key, value, domain, body, location: loc }
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
    return withs.slice()
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
      const si = this.i
      const sw = this.wildcard
      const sd = this.depth
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
      this.reset(si, sw, sd)
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

  /** relation := or { ("==" | "!=" | "<" | "<=" | ">" | ">=") or }, and the tighter levels below it. */
  protected parseRelationExpr(): Term {
    return this.parseBinary(1)
  }

  /**
   * The binary levels of the ladder (relation, or, and, arith, factor) by precedence climbing: one
   * loop instead of a call per level for every term. Every level is left-associative, and a call
   * spans from its leftmost operand, so the trees and locations are those of the ladder.
   */
  private parseBinary(minPrec: number): Term {
    let lhs = this.parseTerm()
    const start = lhs.location as Location
    for (;;) {
      const kind = this.peek()
      const prec = PRECEDENCE[kind] as number
      if (prec < minPrec) return lhs
      const op = this.operatorTerm(OPERATOR_BUILTINS[kind] as string)
      this.advance()
      const rhs = this.parseBinary(prec + 1)
      lhs = this.callTerm([op, lhs, rhs], start)
    }
  }
}

/** Binding power of each token kind as a binary operator (0: not one). */
const PRECEDENCE = new Uint8Array(64)
for (const kind of [T.Equal, T.Neq, T.Lt, T.Lte, T.Gt, T.Gte]) PRECEDENCE[kind] = 1
PRECEDENCE[T.Or] = 2
PRECEDENCE[T.And] = 3
PRECEDENCE[T.Add] = 4
PRECEDENCE[T.Sub] = 4
PRECEDENCE[T.Mul] = 5
PRECEDENCE[T.Quo] = 5
PRECEDENCE[T.Rem] = 5

/** True for the operator of `x in xs` and `k, v in xs`: the ref `internal.member_2` or `_3`. */
function isMemberCall(op: Term | undefined): boolean {
  if (op?.type !== 'ref' || op.value.length !== 2) return false
  const [head, name] = op.value
  return (
    head?.type === 'var' &&
    head.value === 'internal' &&
    name?.type === 'string' &&
    (name.value === 'member_2' || name.value === 'member_3')
  )
}

/** True for what only a group can hold: an `and` / `or`, a negation, or `with` modifiers. */
function isGroup(expr: Expr): boolean {
  const t = expr.terms
  if (expr.negated || expr.with?.length) return true
  return !Array.isArray(t) && (t.type === 'and' || t.type === 'or' || t.type === 'not')
}
