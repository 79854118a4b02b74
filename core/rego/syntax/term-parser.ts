/**
 * Term parsing: scalars, vars, refs and calls, arrays, sets, objects, comprehensions and template
 * strings, plus the builders for call terms. The operator ladder and bodies that terms contain are
 * in parser.ts, which extends this class.
 */
import type {
  Body,
  CallTerm,
  Expr,
  Location,
  NumberTerm,
  ObjectTerm,
  RefTerm,
  StringTerm,
  TemplateStringTerm,
  Term,
  VarTerm,
} from './ast.js'
import { ParseAbort, TokenCursor } from './cursor.js'
import { exponentOverflows, isScalarType, numberTooBig, operatorText, unescapeTemplate } from './literals.js'
import { isKeywordKind, T, TOKEN_NAMES, type TokenKind } from './tokens.js'

/** Parses terms; the operator ladder and bodies come from the subclass. */
export abstract class TermParser extends TokenCursor {
  /** in-expr, the loosest term-level production (see parser.ts). */
  protected abstract parseInExpr(keyVal: boolean, lhsIn?: Term, from?: Location): Term

  /** body := "{" query "}" (see parser.ts). */
  protected abstract parseBody(end?: TokenKind): Body

  /** literal (see parser.ts); template strings hold literals. */
  protected abstract parseLiteral(): Expr

  // -------------------------------------------------------------------------------------------------
  // Terms

  /** term := primary { ref-or-call suffix }; the whole grammar is at the top of parser.ts. */
  parseTerm(): Term {
    this.enter()
    const firstTok = this.i
    let term: Term
    let unaryMinus = false
    let kind = this.peek()
    if (kind >= T.Package && this.keywordStartsRef()) kind = T.Ident
    switch (kind) {
      case T.Null:
        term = { type: 'null', value: null, location: this.loc() }
        this.advance()
        break
      case T.True:
      case T.False:
        term = { type: 'boolean', value: kind === T.True, location: this.loc() }
        this.advance()
        break
      case T.Sub: {
        const next = this.kindAt(this.i + 1)
        if (next === T.Ident || next === T.Contains) {
          // Unary minus on a ref: `-x` is `minus(0, x)`.
          unaryMinus = true
          this.advance()
          term = this.parseVar()
        } else {
          term = this.parseNumber()
        }
        break
      }
      case T.Dot:
      case T.Number:
        term = this.parseNumber()
        break
      case T.String:
      case T.RawString:
        term = this.parseString()
        break
      case T.TemplatePart:
      case T.TemplateEnd:
      case T.RawTemplatePart:
      case T.RawTemplateEnd:
        term = this.parseTemplateString()
        break
      case T.Ident:
      case T.Contains: // `contains` is also a builtin; only rule heads treat it as a keyword
        term = this.parseVar()
        break
      case T.LBrack:
        term = this.parseArray()
        break
      case T.LBrace:
        term = this.parseSetOrObject()
        break
      case T.LParen: {
        this.advance()
        const inner = this.parseInExpr(true)
        if (this.peek() !== T.RParen) this.fail('non-terminated expression')
        this.advance()
        // As in OPA: the inner term's position, with the text widened to include the parentheses.
        const at = inner.location as Location
        const location: Location = {
          file: at.file,
          row: at.row,
          col: at.col,
          offset: this.start(firstTok),
          end: this.lastEnd,
          source: this.source,
        }
        term = { ...inner, location }
        break
      }
      default:
        if (this.keywordStartsRef()) {
          term = this.parseVar()
          break
        }
        this.unexpected('expected term')
    }
    term = this.parseTermSuffix(term, false)
    if (unaryMinus) {
      const first = this.loc(firstTok)
      const zero: NumberTerm = { type: 'number', value: '0', location: first }
      term = this.callTerm([this.operatorTerm('minus', first), zero, term], first)
    }
    this.leave()
    return term
  }

  /**
   * ref-or-call suffix := { "." ident | "[" in-expr "]" | "(" [args] ")" }, only when the next token
   * follows without whitespace (`a [1]` is two terms). `allowSpaceFirst` is for rule heads, where
   * OPA accepts `f (x)`. A bare `data` or `input` becomes a ref.
   */
  protected parseTermSuffix(head: Term, allowSpaceFirst: boolean): Term {
    const k = this.peek()
    if ((k === T.Dot || k === T.LBrack || k === T.LParen) && (allowSpaceFirst || !this.spaced())) {
      return this.parseRef(head)
    }
    if (head.type === 'var' && (head.value === 'input' || head.value === 'data')) {
      return { type: 'ref', value: [head], location: head.location }
    }
    return head
  }

  /** ref := head { "." ident | "[" in-expr "]" } [ "(" args ")" { suffix } ] */
  protected parseRef(head: Term): Term {
    this.enter()
    const loc = head.location as Location
    switch (head.type) {
      case 'var':
      case 'array':
      case 'object':
      case 'set':
      case 'arraycomprehension':
      case 'setcomprehension':
      case 'objectcomprehension':
      case 'call':
        break
      default:
        this.fail(`illegal ref (head cannot be ${head.type})`, loc)
    }
    const ref: Term[] = [head]
    for (let first = true; ; first = false) {
      if (!first && this.spaced()) break
      const k = this.peek()
      if (k === T.Dot) {
        this.advance()
        const word = this.rawKindAt(this.i)
        if ((word !== T.Ident && !isKeywordKind(word)) || this.spaced()) this.unexpected('expected ident')
        ref.push({ type: 'string', value: this.tokText(), location: this.loc() })
        this.advance()
      } else if (k === T.LBrack) {
        this.advance()
        ref.push(this.parseInExpr(true))
        if (this.peek() !== T.RBrack) this.unexpected('expected ]')
        this.advance()
      } else if (k === T.LParen) {
        const operator: RefTerm = { type: 'ref', value: ref.slice(), location: this.span(loc, this.start()) }
        let call = this.parseCall(operator, loc)
        if ((this.peek() === T.Dot || this.peek() === T.LBrack) && !this.spaced()) call = this.parseRef(call)
        this.leave()
        return call
      } else {
        break
      }
    }
    this.leave()
    if (ref.length === 1) return head
    return { type: 'ref', value: ref.slice(), location: this.span(loc) }
  }

  /** call := operator "(" [ in-expr { "," in-expr } [","] ] ")"; `set()` is the empty set. */
  protected parseCall(operator: RefTerm, loc: Location): Term {
    this.advance()
    if (this.peek() === T.RParen) {
      this.advance()
      const only = operator.value[0]
      if (operator.value.length === 1 && only?.type === 'var' && only.value === 'set') {
        return { type: 'set', value: [], location: this.span(loc) }
      }
      return { type: 'call', value: [operator], location: this.span(loc) }
    }
    const args = this.parseTermList(T.RParen, [operator])
    this.advance()
    return { type: 'call', value: args, location: this.span(loc) }
  }

  /** var := ident; `_` becomes a fresh wildcard `$N`. */
  protected parseVar(): VarTerm {
    const text = this.tokText()
    const location = this.loc()
    this.advance()
    if (text === '_') return { type: 'var', value: `$${this.wildcard++}`, location }
    return { type: 'var', value: text, location }
  }

  /** A fresh wildcard var (OPA re-numbers wildcards in copied rule heads). */
  protected freshWildcard(location?: Location): VarTerm {
    return { type: 'var', value: `$${this.wildcard++}`, location }
  }

  /** number := ["-"] ( digits ["." digits] | "." digits ) [exponent], kept as written. */
  protected parseNumber(): NumberTerm {
    const startTok = this.i
    let prefix = ''
    if (this.peek() === T.Sub) {
      prefix = '-'
      this.advance()
      if (this.peek() !== T.Number && this.peek() !== T.Dot) this.unexpected('expected number')
    }
    if (this.peek() === T.Dot) {
      prefix += '.'
      this.advance()
      if (this.peek() !== T.Number) this.unexpected('expected number')
    }
    const lit = this.tokText()
    if (!prefix.endsWith('.') && lit.length > 1 && lit.charCodeAt(0) === 48) {
      const c1 = lit[1]
      if (c1 !== '.' && !(lit.length > 2 && (c1 === 'e' || c1 === 'E'))) {
        this.unexpected('expected number without leading zero')
      }
    }
    const value = prefix + lit
    // Go's big.Float cannot even read an exponent past 32 bits: OPA says `invalid float`.
    if (exponentOverflows(value)) this.fail('invalid float', this.loc())
    if (numberTooBig(value)) this.fail('number too big', this.loc())
    this.advance()
    return { type: 'number', value, location: this.spanFrom(startTok) }
  }

  /** string := '"' chars '"' | '`' raw chars '`' */
  protected parseString(): StringTerm {
    const start = this.start()
    const end = this.ends[this.i] as number
    const location = this.loc()
    this.advance()
    const text = this.text
    // Only the value is sliced; the quotes and the token text are never materialised.
    if (text.charCodeAt(start) !== 96) {
      for (let i = start + 1; i < end - 1; i++) {
        if (text.charCodeAt(i) === 92) {
          const lit = text.slice(start, end)
          try {
            return { type: 'string', value: JSON.parse(lit) as string, location }
          } catch {
            this.fail(`illegal string literal: ${lit}`, location)
          }
        }
      }
    }
    return { type: 'string', value: text.slice(start + 1, end - 1), location }
  }

  /** template := '$"' { chars | "{" literal "}" } '"' (or the raw form with backticks) */
  protected parseTemplateString(): TemplateStringTerm {
    const startTok = this.i
    if (!this.features.includes('template_strings'))
      this.fail('template strings are not supported by current capabilities')
    const multiLine = this.peek() === T.RawTemplatePart || this.peek() === T.RawTemplateEnd
    const parts: Array<Term | Expr> = []
    for (let first = true; ; first = false) {
      const k = this.peek()
      const lit = this.tokText()
      const inner = lit.slice(first ? 2 : 1, -1)
      const value = multiLine ? inner.replaceAll('\\{', '{') : unescapeTemplate(inner)
      if (value === undefined) this.fail(`illegal template-string part: ${lit}`)
      if (value.length > 0) parts.push({ type: 'string', value, location: this.loc() })
      if (k === T.TemplateEnd || k === T.RawTemplateEnd) break
      this.advance()
      const exprLoc = this.loc()
      // `{}`: the part that follows starts right at the closing brace.
      if (this.atTemplatePart() && this.text.charCodeAt(this.start()) === 125)
        this.fail('invalid template-string expression', exprLoc)
      const expr = this.parseLiteral()
      if (expr.negated) this.fail("unexpected negation ('not') in template-string expression", exprLoc)
      if (Array.isArray(expr.terms)) {
        const op = operatorText(expr.terms[0])
        if (op === 'eq') this.fail("unexpected unification ('=') in template-string expression", exprLoc)
        if (op === 'assign') this.fail("unexpected assignment (':=') in template-string expression", exprLoc)
      } else if (expr.terms.type === 'every' || expr.terms.type === 'somedecl') {
        const word = expr.terms.type === 'every' ? 'every' : 'some'
        this.fail(`unexpected '${word}' in template-string expression`, exprLoc)
      }
      const single = expr.terms
      if (!Array.isArray(single) && !expr.with && isScalarType(single.type)) parts.push(single as Term)
      else parts.push(expr)
      if (!this.atTemplatePart() || this.text.charCodeAt(this.start()) !== 125) {
        // A lexer error (`$"{x}\``: non-terminated string) is reported as it is.
        if (this.peek() === T.Illegal) this.unexpected()
        this.fail('expected } to end template string expression')
      }
    }
    this.advance()
    return {
      type: 'templatestring',
      value: { parts: parts.slice(), multi_line: multiLine },
      location: this.spanFrom(startTok),
    }
  }

  /** True at the next piece of a template string (the text after an expression's `}`). */
  private atTemplatePart(): boolean {
    const k = this.peek()
    return k === T.TemplatePart || k === T.TemplateEnd || k === T.RawTemplatePart || k === T.RawTemplateEnd
  }

  /** array := "[" [ term-list ] "]" | "[" term "|" query "]" */
  protected parseArray(): Term {
    const loc = this.i
    this.advance()
    if (this.peek() === T.RBrack) {
      this.advance()
      return { type: 'array', value: [], location: this.spanFrom(loc) }
    }
    let potentialComprehension = true
    if (this.peek() === T.Comma) {
      potentialComprehension = false
      this.advance()
    }
    const si = this.i
    const sw = this.wildcard
    const sd = this.depth
    // A single term first: `[a | b]` is a comprehension, not an array holding `a | b`.
    const head = this.parseTerm()
    if (this.peek() === T.RBrack) {
      this.advance()
      return { type: 'array', value: [head], location: this.spanFrom(loc) }
    }
    if (this.peek() === T.Comma) {
      this.advance()
      const items = this.parseTermList(T.RBrack, [head])
      this.advance()
      return { type: 'array', value: items, location: this.spanFrom(loc) }
    }
    if (this.peek() === T.Or && potentialComprehension) {
      this.advance()
      const body = this.tryBody(T.RBrack)
      if (body)
        return { type: 'arraycomprehension', value: { term: head, body }, location: this.spanFrom(loc) }
    }
    this.reset(si, sw, sd)
    const items = this.parseTermList(T.RBrack, [])
    this.advance()
    return { type: 'array', value: items, location: this.spanFrom(loc) }
  }

  /**
   * Parses a comprehension body, or returns undefined when it fails and a `,` follows (so the
   * caller can fall back to a list, as in `[a | b, c]`).
   */
  protected tryBody(end: TokenKind): Body | undefined {
    try {
      return this.parseBody(end)
    } catch (err) {
      if (err instanceof ParseAbort && this.peek() === T.Comma) return undefined
      throw err
    }
  }

  /** set-or-object := "{" [ term-list | pair-list ] "}" | set/object comprehension */
  protected parseSetOrObject(): Term {
    const loc = this.i
    this.advance()
    if (this.peek() === T.RBrace) {
      this.advance()
      return { type: 'object', value: [], location: this.spanFrom(loc) }
    }
    let potentialComprehension = true
    if (this.peek() === T.Comma) {
      potentialComprehension = false
      this.advance()
    }
    const si = this.i
    const sw = this.wildcard
    const sd = this.depth
    let head: Term | undefined
    try {
      head = this.parseTerm()
    } catch (err) {
      if (!(err instanceof ParseAbort)) throw err
    }
    if (head) {
      const k = this.peek()
      if ((k === T.Or && potentialComprehension) || k === T.RBrace || k === T.Comma) {
        return this.parseSet(si, sw, sd, head, potentialComprehension, loc)
      }
      if (k === T.Colon) return this.parseObject(head, potentialComprehension, loc)
    }
    this.reset(si, sw, sd)
    head = this.parseInExpr(false)
    if (this.peek() === T.RBrace || this.peek() === T.Comma)
      return this.parseSet(si, sw, sd, head, false, loc)
    if (this.peek() === T.Colon) return this.parseObject(head, potentialComprehension, loc)
    this.unexpected('non-terminated set')
  }

  /** The rest of a set (or set comprehension) whose first term is `head`; `si`/`sw`/`sd` restart it. */
  protected parseSet(
    si: number,
    sw: number,
    sd: number,
    head: Term,
    potentialComprehension: boolean,
    loc: number,
  ): Term {
    if (this.peek() === T.RBrace) {
      this.advance()
      return { type: 'set', value: [head], location: this.spanFrom(loc) }
    }
    if (this.peek() === T.Comma) {
      this.advance()
      const items = this.parseTermList(T.RBrace, [head])
      this.advance()
      return { type: 'set', value: items, location: this.spanFrom(loc) }
    }
    if (potentialComprehension) {
      this.advance()
      const body = this.tryBody(T.RBrace)
      if (body) return { type: 'setcomprehension', value: { term: head, body }, location: this.spanFrom(loc) }
    }
    this.reset(si, sw, sd)
    const items = this.parseTermList(T.RBrace, [])
    this.advance()
    return { type: 'set', value: items, location: this.spanFrom(loc) }
  }

  protected parseObject(key: Term, potentialComprehension: boolean, loc: number): Term {
    this.advance()
    const si = this.i
    const sw = this.wildcard
    const sd = this.depth
    let potentialRelation = true
    if (potentialComprehension) {
      try {
        const value = this.parseTerm()
        const k = this.peek()
        if (k === T.RBrace || k === T.Comma || k === T.Or) {
          if (k !== T.Or) potentialRelation = false
          return this.parseObjectFinish(key, value, true, loc)
        }
      } catch (err) {
        if (!(err instanceof ParseAbort)) throw err
      }
    }
    this.reset(si, sw, sd)
    if (potentialRelation) {
      const value = this.parseInExpr(false)
      if (this.peek() === T.RBrace || this.peek() === T.Comma)
        return this.parseObjectFinish(key, value, false, loc)
    }
    this.unexpected('non-terminated object')
  }

  protected parseObjectFinish(key: Term, value: Term, potentialComprehension: boolean, loc: number): Term {
    if (this.peek() === T.RBrace) {
      this.advance()
      return { type: 'object', value: [[key, value]], location: this.spanFrom(loc) }
    }
    if (this.peek() === T.Or) {
      if (!potentialComprehension) this.unexpected('non-terminated object')
      this.advance()
      const body = this.parseBody(T.RBrace)
      return { type: 'objectcomprehension', value: { key, value, body }, location: this.spanFrom(loc) }
    }
    this.advance() // the comma
    const pairs = this.parseTermPairList(T.RBrace, [[key, value]])
    this.advance()
    const term: ObjectTerm = { type: 'object', value: pairs, location: this.spanFrom(loc) }
    return term
  }

  /** term-list := in-expr { "," in-expr } [","], stopping at `end` (not consumed). */
  protected parseTermList(end: TokenKind, items: Term[]): Term[] {
    if (this.peek() === end) return items
    for (;;) {
      items.push(this.parseInExpr(false))
      if (this.peek() === end) return items.slice()
      if (this.peek() !== T.Comma) this.unexpected(`expected "," or "${TOKEN_NAMES[end]}"`)
      this.advance()
      if (this.peek() === end) return items.slice()
    }
  }

  /** pair-list := in-expr ":" in-expr { "," in-expr ":" in-expr } [","] */
  protected parseTermPairList(end: TokenKind, pairs: Array<[Term, Term]>): Array<[Term, Term]> {
    if (this.peek() === end) return pairs
    for (;;) {
      const key = this.parseInExpr(false)
      if (this.peek() !== T.Colon) this.unexpected('expected ":"')
      this.advance()
      pairs.push([key, this.parseInExpr(false)])
      if (this.peek() === end) return pairs.slice()
      if (this.peek() !== T.Comma) this.unexpected(`expected "," or "${TOKEN_NAMES[end]}"`)
      this.advance()
      if (this.peek() === end) return pairs.slice()
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Small builders

  /** A call term spanning from `start` to the last consumed token. */
  protected callTerm(value: Term[], start: Location): CallTerm {
    return { type: 'call', value, location: this.span(start) }
  }

  /** The operator of an infix call: a ref to the builtin's var name, located at the operator. */
  protected operatorTerm(name: string, location: Location = this.loc()): RefTerm {
    return { type: 'ref', value: [{ type: 'var', value: name, location }], location }
  }

  protected memberOperator(name: 'member_2' | 'member_3'): RefTerm {
    const location = this.loc()
    return {
      type: 'ref',
      value: [
        { type: 'var', value: 'internal', location },
        { type: 'string', value: name, location },
      ],
      location,
    }
  }
}
