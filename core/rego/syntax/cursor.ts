/**
 * The parser's view of the token stream: the current position, token kinds with Rego version
 * keyword rules applied, locations, save/restore for backtracking, and error reporting. The
 * grammar itself is in parser.ts (expressions and terms) and module-parser.ts (statements).
 */
import { parseError, type RegoError } from '../errors.js'
import type { Location } from './ast.js'
import { lex, type TokenStream } from './lexer.js'
import { Source, SourceLocation } from './source.js'
import {
  FUTURE_KEYWORDS,
  isKeywordKind,
  NL_BEFORE,
  T,
  TOKEN_NAMES,
  type TokenKind,
  WS_BEFORE,
} from './tokens.js'

/** Options shared by every parse entry point. */
export interface ParseOptions {
  /** File name used in locations and messages. */
  file?: string
  /** Rego syntax version; v1 (OPA 1.x) unless told otherwise. */
  regoVersion?: 'v0' | 'v1'
  /** Stop collecting errors after this many (default 10). */
  maxErrors?: number
}

/** Thrown inside the parser to abandon the current statement; carries the error already recorded. */
export class ParseAbort extends Error {
  constructor(readonly error: RegoError) {
    super(error.message)
  }
}

/** Nesting depth (terms and bodies inside each other) beyond which parsing stops with an error. */
const MAX_DEPTH = 250

/** What `save()` captures: enough to resume parsing from an earlier token. */
export interface SavedState {
  i: number
  wildcard: number
  depth: number
}

/** A position in a token stream, with the helpers every grammar method uses. */
export class TokenCursor {
  readonly source: Source
  protected readonly toks: TokenStream
  protected readonly text: string
  protected readonly file: string
  protected i = 0
  protected wildcard = 0
  protected depth = 0
  /** Future keywords active in v0 (after `import future.keywords...`); all are active in v1. */
  protected readonly activeKeywords = new Set<TokenKind>()
  readonly regoVersion: 'v0' | 'v1'

  constructor(text: string, options: ParseOptions = {}) {
    this.file = options.file ?? ''
    this.text = text
    this.source = new Source(this.file, text)
    this.toks = lex(text, this.file)
    this.regoVersion = options.regoVersion ?? 'v1'
    if (this.regoVersion === 'v1') for (const kind of FUTURE_KEYWORDS.values()) this.activeKeywords.add(kind)
  }

  // -------------------------------------------------------------------------------------------------
  // Token access

  /** The effective kind of token `i`: an inactive future keyword reads as an identifier. */
  protected kindAt(i: number): TokenKind {
    const kind = this.toks.kinds[i] as TokenKind
    if (kind >= T.If && !this.activeKeywords.has(kind)) return T.Ident
    return kind
  }

  protected peek(): TokenKind {
    return this.kindAt(this.i)
  }

  protected advance(): void {
    if (this.i < this.toks.count - 1) this.i++
  }

  protected tokText(i = this.i): string {
    return this.text.slice(this.toks.starts[i], this.toks.ends[i])
  }

  protected start(i = this.i): number {
    return this.toks.starts[i] ?? 0
  }

  /** End offset of the last consumed token (OPA's `lastEnd`). */
  protected get lastEnd(): number {
    return this.i > 0 ? (this.toks.ends[this.i - 1] ?? 0) : 0
  }

  /** True when whitespace (or a comment) separates token `i` from the one before. */
  protected spaced(i = this.i): boolean {
    return ((this.toks.flags[i] ?? 0) & WS_BEFORE) !== 0
  }

  /** True when a line break separates token `i` from the one before. */
  protected newlineBefore(i = this.i): boolean {
    return ((this.toks.flags[i] ?? 0) & NL_BEFORE) !== 0
  }

  /** The location of token `i`. */
  protected loc(i = this.i): Location {
    const start = this.toks.starts[i] ?? 0
    const end = this.toks.ends[i] ?? start
    return new SourceLocation(
      this.text,
      this.file,
      this.toks.rows[i] ?? 1,
      this.toks.cols[i] ?? 1,
      start,
      end,
    )
  }

  /** A location from the start of token `tok` to `end` (default: the end of the last consumed token). */
  protected spanFrom(tok: number, end = this.lastEnd): Location {
    const start = this.toks.starts[tok] ?? 0
    return new SourceLocation(
      this.text,
      this.file,
      this.toks.rows[tok] ?? 1,
      this.toks.cols[tok] ?? 1,
      start,
      end,
    )
  }

  /** A location that starts where `from` starts and ends at `end` (default: the last consumed token). */
  protected span(from: Location, end = this.lastEnd): Location {
    return new SourceLocation(this.text, from.file, from.row, from.col, from.offset, end)
  }

  protected save(): SavedState {
    return { i: this.i, wildcard: this.wildcard, depth: this.depth }
  }

  protected restore(s: SavedState): void {
    this.i = s.i
    this.wildcard = s.wildcard
    this.depth = s.depth
  }

  /** A keyword token directly followed by `.` or `[` is the head of a ref (`input.if`, `as.foo := 1`). */
  protected keywordStartsRef(i = this.i): boolean {
    const kind = this.kindAt(i)
    if (!isKeywordKind(kind)) return false
    const next = this.kindAt(i + 1)
    return (next === T.Dot || next === T.LBrack) && !this.spaced(i + 1)
  }

  // -------------------------------------------------------------------------------------------------
  // Errors

  /** Records a parse error at `location` and aborts the statement. */
  protected fail(message: string, location: Location = this.loc()): never {
    const err = parseError(location, message, this.source.excerpt(location))
    throw new ParseAbort(err)
  }

  /** `unexpected X token[: note]`, as OPA words it. */
  protected unexpected(note?: string): never {
    const kind = this.peek()
    if (kind === T.Illegal) {
      const lexError = this.toks.errors.find((e) => e.offset === this.start())
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
    if (++this.depth > MAX_DEPTH) this.fail(`nesting too deep (more than ${MAX_DEPTH} levels)`)
  }

  protected leave(): void {
    this.depth--
  }
}
