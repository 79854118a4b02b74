/**
 * The parser's view of the token stream: the current position, token kinds with Rego version
 * keyword rules applied, locations, backtracking, and error reporting. The grammar itself is in
 * parser.ts (expressions and terms) and module-parser.ts (statements).
 *
 * The token arrays are copied into fields of the cursor so that the hot accessors (`peek`, `loc`)
 * read one field and one typed-array element, with no object in between.
 */
import { parseError, type RegoError } from '../errors.js'
import type { Comment, Location } from './ast.js'
import { type LexError, lex } from './lexer.js'
import { EofLocation, Source, SourceLocation } from './source.js'
import { isKeywordKind, NL_BEFORE, T, TOKEN_NAMES, type TokenKind, WS_BEFORE } from './tokens.js'

/** Options shared by every parse entry point. */
export interface ParseOptions {
  /** File name used in locations and messages. */
  file?: string
  /** Rego syntax version; v1 (OPA 1.x) unless told otherwise. */
  regoVersion?: 'v0' | 'v1'
  /** Stop collecting errors after this many (default 10). */
  maxErrors?: number
  /**
   * The capabilities' `future_keywords` (default: regent's own, see `CAPABILITY_FUTURE_KEYWORDS`).
   * `import future.keywords.not` is refused without `not`, as OPA refuses it.
   */
  futureKeywords?: readonly string[]
  /** The capabilities' `features` (default: regent's own); `import rego.v2` needs `rego_v2_import`. */
  features?: readonly string[]
}

/** The future keywords regent's parser knows (OPA's capabilities `future_keywords`). */
export const CAPABILITY_FUTURE_KEYWORDS: readonly string[] = [
  'and',
  'contains',
  'every',
  'if',
  'in',
  'not',
  'or',
]

/** The language features regent's parser supports (OPA's capabilities `features`). */
export const CAPABILITY_FEATURES: readonly string[] = [
  'keywords_in_refs',
  'rego_v1',
  'rego_v2_import',
  'template_strings',
]

/**
 * Thrown inside the parser to abandon the current statement. Speculative branches catch and drop
 * most of these, so the `RegoError` (a stack trace and a source excerpt) is only made when read.
 * Not an `Error` subclass for the same reason: capturing a stack trace is the costly part.
 */
export class ParseAbort {
  #error: RegoError | undefined
  readonly #source: Source
  readonly #location: Location
  readonly #message: string

  constructor(source: Source, location: Location, message: string) {
    this.#source = source
    this.#location = location
    this.#message = message
  }

  /** The parse error, with the line under it. */
  get error(): RegoError {
    if (!this.#error) {
      const location = this.#location
      this.#error = parseError(location, this.#message, this.#source.excerpt(location))
    }
    return this.#error
  }
}

/** Nesting depth (terms and bodies inside each other) beyond which parsing stops with an error. */
const MAX_DEPTH = 250

/** OPA's wording (its limit is higher: regent's keeps the JavaScript stack safe). */
export const MAX_DEPTH_MESSAGE = 'max parsing recursion depth exceeded'

/** Bit of a future keyword kind (`if`, `contains`, `in`, `every`) in `TokenCursor.inactive`. */
function keywordBit(kind: TokenKind): number {
  return 1 << (kind - T.If)
}

/** Every future keyword's bit. */
const ALL_FUTURE_KEYWORDS = keywordBit(T.If) | keywordBit(T.Contains) | keywordBit(T.In) | keywordBit(T.Every)

/** A position in a token stream, with the helpers every grammar method uses. */
export class TokenCursor {
  readonly source: Source
  protected readonly text: string
  protected readonly file: string
  protected readonly kinds: Uint8Array
  protected readonly starts: Int32Array
  protected readonly ends: Int32Array
  protected readonly flags: Uint8Array
  /** Index of the EOF token (the last one). */
  protected readonly last: number
  protected readonly comments: Comment[]
  protected readonly lexErrors: LexError[]
  protected i = 0
  protected wildcard = 0
  protected depth = 0
  /** Future keywords that still read as identifiers (v0 before `import future.keywords...`), as bits. */
  protected inactive: number
  readonly regoVersion: 'v0' | 'v1'
  /**
   * True once `import future.keywords.not` (or `future.keywords`, or `rego.v2`) is read: `not {...}`
   * parses as a body and `not expr` as an implicit one (OPA's `notBodies`).
   */
  protected notBodies = false
  /** True once `import future.keywords.and` (or `future.keywords`, or `rego.v2`) is read. */
  protected andKeyword = false
  /** True once `import future.keywords.or` (or `future.keywords`, or `rego.v2`) is read. */
  protected orKeyword = false
  protected readonly futureKeywordNames: readonly string[]
  protected readonly features: readonly string[]

  constructor(text: string, options: ParseOptions = {}) {
    const file = options.file ?? ''
    this.file = file
    this.text = text
    this.source = new Source(file, text)
    const toks = lex(text, file)
    this.kinds = toks.kinds
    this.starts = toks.starts
    this.ends = toks.ends
    this.flags = toks.flags
    this.last = toks.count - 1
    this.comments = toks.comments
    this.lexErrors = toks.errors
    this.regoVersion = options.regoVersion ?? 'v1'
    this.futureKeywordNames = options.futureKeywords ?? CAPABILITY_FUTURE_KEYWORDS
    this.features = options.features ?? CAPABILITY_FEATURES
    this.inactive = this.regoVersion === 'v1' ? 0 : ALL_FUTURE_KEYWORDS
  }

  // -------------------------------------------------------------------------------------------------
  // Keywords

  /** Makes a future keyword (`if`, `contains`, `in`, `every`) read as a keyword from now on. */
  protected activateKeyword(kind: TokenKind): void {
    this.inactive &= ~keywordBit(kind)
  }

  /** True when the future keyword `kind` reads as a keyword. */
  protected isKeywordActive(kind: TokenKind): boolean {
    return (this.inactive & keywordBit(kind)) === 0
  }

  // -------------------------------------------------------------------------------------------------
  // Token access

  /** The effective kind of token `i`: an inactive future keyword reads as an identifier. */
  protected kindAt(i: number): TokenKind {
    const kind = this.kinds[i] as TokenKind
    if (kind >= T.If && (this.inactive & keywordBit(kind)) !== 0) return T.Ident
    return kind
  }

  /** The kind of token `i` as lexed (future keywords included). */
  protected rawKindAt(i: number): TokenKind {
    return this.kinds[i] as TokenKind
  }

  protected peek(): TokenKind {
    return this.kindAt(this.i)
  }

  protected advance(): void {
    if (this.i < this.last) this.i++
  }

  protected tokText(i = this.i): string {
    return this.text.slice(this.starts[i], this.ends[i])
  }

  protected start(i = this.i): number {
    return this.starts[i] as number
  }

  /** End offset of the last consumed token (OPA's `lastEnd`). */
  protected get lastEnd(): number {
    return this.i > 0 ? (this.ends[this.i - 1] as number) : 0
  }

  /** True when whitespace (or a comment) separates token `i` from the one before. */
  protected spaced(i = this.i): boolean {
    return ((this.flags[i] as number) & WS_BEFORE) !== 0
  }

  /** True when a line break separates token `i` from the one before. */
  protected newlineBefore(i = this.i): boolean {
    return ((this.flags[i] as number) & NL_BEFORE) !== 0
  }

  /** True when token `i` is the first thing on its line (column 1). */
  protected atLineStart(i: number): boolean {
    const start = this.starts[i] as number
    return start === 0 || this.text.charCodeAt(start - 1) === 10
  }

  /** The location of token `i`. */
  protected loc(i = this.i): Location {
    if (i === this.last) return new EofLocation(this.source, this.starts[i] as number, this.ends[i] as number)
    return new SourceLocation(this.source, this.starts[i] as number, this.ends[i] as number)
  }

  /** A location from the start of token `tok` to `end` (default: the end of the last consumed token). */
  protected spanFrom(tok: number, end = this.lastEnd): Location {
    return new SourceLocation(this.source, this.starts[tok] as number, end)
  }

  /**
   * A location that starts where `from` starts and ends at `end` (default: the last consumed token).
   * When `from` already ends there (a call's operator `f` in `f(x)`, a head that is just a name),
   * it is `from` itself: locations are never changed in place, so equal ones can be shared.
   */
  protected span(from: Location, end = this.lastEnd): Location {
    if (from instanceof SourceLocation)
      return from.end === end ? from : new SourceLocation(this.source, from.offset, end)
    // A parenthesised term's location (row and column of the inner term) or a generated one.
    return { file: from.file, row: from.row, col: from.col, offset: from.offset, end, source: this.source }
  }

  /** Goes back to an earlier position (`i`, `wildcard` and `depth` as read before trying a branch). */
  protected reset(i: number, wildcard: number, depth: number): void {
    this.i = i
    this.wildcard = wildcard
    this.depth = depth
  }

  /** A keyword token directly followed by `.` or `[` is the head of a ref (`input.if`, `as.foo := 1`). */
  protected keywordStartsRef(i = this.i): boolean {
    const kind = this.kindAt(i)
    if (kind < T.Package) return false
    const next = this.kindAt(i + 1)
    return (next === T.Dot || next === T.LBrack) && !this.spaced(i + 1)
  }

  // -------------------------------------------------------------------------------------------------
  // Errors

  /** Records a parse error at `location` and aborts the statement. */
  protected fail(message: string, location: Location = this.loc()): never {
    throw new ParseAbort(this.source, location, message)
  }

  /** `unexpected X token[: note]`, as OPA words it. */
  protected unexpected(note?: string): never {
    const kind = this.peek()
    if (kind === T.Illegal) {
      const lexError = this.lexErrors.find((e) => e.offset === this.start())
      this.fail(lexError?.message ?? 'illegal token')
    }
    const what = isKeywordKind(kind) ? 'keyword' : 'token'
    const name = TOKEN_NAMES[kind] ?? 'token'
    this.fail(note ? `unexpected ${name} ${what}: ${note}` : `unexpected ${name} ${what}`)
  }

  protected expect(kind: TokenKind, note: string): void {
    if (this.peek() !== kind) this.unexpected(note)
  }

  protected enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail(MAX_DEPTH_MESSAGE)
  }

  protected leave(): void {
    this.depth--
  }
}
