/**
 * The Rego lexer. It turns a whole source into a token stream held in typed arrays (kind, start,
 * end, flags), because the parser backtracks (comprehensions versus sets, `k, v in`)
 * and an index into arrays is the cheapest state to save and restore. No token object or substring
 * is made here: the parser slices the text of the tokens it keeps. Comments are collected on the
 * side, as OPA does. Template strings (`$"a {x} b"`) are lexed with a small mode stack: the `{`
 * that opens an expression and the `}` that closes it belong to the template tokens.
 *
 * The scanner is one loop over character codes with table lookups, written as a class so its state
 * lives in fields rather than in closure variables (which V8 accesses more slowly).
 */
import type { Comment } from './ast.js'
import { NL_BEFORE, T, type TokenKind, WS_BEFORE } from './tokens.js'

/** A lexical error: where, and what a person should fix. */
export interface LexError {
  offset: number
  row: number
  col: number
  message: string
}

/** The tokens of one source. Token `i` spans `[starts[i], ends[i])`. The last token is EOF. */
export interface TokenStream {
  count: number
  kinds: Uint8Array
  starts: Int32Array
  ends: Int32Array
  flags: Uint8Array
  comments: Comment[]
  errors: LexError[]
}

const TAB = 9
const LF = 10
const CR = 13
const SPACE = 32
const BANG = 33
const DQUOTE = 34
const HASH = 35
const DOLLAR = 36
const PLUS = 43
const MINUS = 45
const DOT = 46
const ZERO = 48
const NINE = 57
const COLON = 58
const LT = 60
const EQ = 61
const GT = 62
const UPPER_E = 69
const BACKSLASH = 92
const BACKTICK = 96
const LOWER_E = 101
const LBRACE = 123
const RBRACE = 125

/** Character classes of ASCII codes (anything from 128 up is illegal outside strings and comments). */
const C_OTHER = 0
const C_SPACE = 1
const C_IDENT = 2
const C_DIGIT = 3
const C_SINGLE = 4

const CLASS = new Uint8Array(128)
/** The token kind of each one-character token (`C_SINGLE`). */
const SINGLE_KIND = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) CLASS[c] = C_IDENT
  else if (c >= ZERO && c <= NINE) CLASS[c] = C_DIGIT
}
CLASS[SPACE] = C_SPACE
CLASS[TAB] = C_SPACE
CLASS[CR] = C_SPACE
for (const [ch, kind] of [
  ['[', T.LBrack],
  [']', T.RBrack],
  ['(', T.LParen],
  [')', T.RParen],
  ['.', T.Dot],
  [',', T.Comma],
  [';', T.Semicolon],
  ['+', T.Add],
  ['-', T.Sub],
  ['*', T.Mul],
  ['/', T.Quo],
  ['%', T.Rem],
  ['&', T.And],
  ['|', T.Or],
] as const) {
  const c = ch.charCodeAt(0)
  CLASS[c] = C_SINGLE
  SINGLE_KIND[c] = kind
}

function isIdentPart(c: number): boolean {
  return c < 128 && (CLASS[c] === C_IDENT || CLASS[c] === C_DIGIT)
}

function isIdentStart(c: number): boolean {
  return c < 128 && CLASS[c] === C_IDENT
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE
}

/** True when `text` holds `word` at `start` (the caller has checked the length). */
function wordAt(text: string, start: number, word: string): boolean {
  for (let i = 1; i < word.length; i++) if (text.charCodeAt(start + i) !== word.charCodeAt(i)) return false
  return true
}

/**
 * The keyword kind of the identifier `[start, start + length)` whose first code is `first`, or
 * `T.Ident`. Switching on the first character and the length leaves one comparison at most.
 */
function keywordKind(text: string, start: number, length: number, first: number): TokenKind {
  switch (first) {
    case 97: // a
      return length === 2 && text.charCodeAt(start + 1) === 115 ? T.As : T.Ident
    case 99: // c
      return length === 8 && wordAt(text, start, 'contains') ? T.Contains : T.Ident
    case 100: // d
      return length === 7 && wordAt(text, start, 'default') ? T.Default : T.Ident
    case 101: // e
      if (length === 4 && wordAt(text, start, 'else')) return T.Else
      return length === 5 && wordAt(text, start, 'every') ? T.Every : T.Ident
    case 102: // f
      return length === 5 && wordAt(text, start, 'false') ? T.False : T.Ident
    case 105: // i
      if (length === 2) {
        const c = text.charCodeAt(start + 1)
        return c === 102 ? T.If : c === 110 ? T.In : T.Ident
      }
      return length === 6 && wordAt(text, start, 'import') ? T.Import : T.Ident
    case 110: // n
      if (length === 3 && wordAt(text, start, 'not')) return T.Not
      return length === 4 && wordAt(text, start, 'null') ? T.Null : T.Ident
    case 112: // p
      return length === 7 && wordAt(text, start, 'package') ? T.Package : T.Ident
    case 115: // s
      return length === 4 && wordAt(text, start, 'some') ? T.Some : T.Ident
    case 116: // t
      return length === 4 && wordAt(text, start, 'true') ? T.True : T.Ident
    case 119: // w
      return length === 4 && wordAt(text, start, 'with') ? T.With : T.Ident
    default:
      return T.Ident
  }
}

/** An open template string: raw or quoted, and how many `{` are open inside its expression. */
interface TemplateFrame {
  raw: boolean
  depth: number
}

class Lexer {
  readonly text: string
  readonly file: string
  readonly n: number
  cap: number
  kinds: Uint8Array
  starts: Int32Array
  ends: Int32Array
  flags: Uint8Array
  count = 0
  readonly comments: Comment[] = []
  readonly errors: LexError[] = []
  readonly templates: TemplateFrame[] = []
  row = 1
  lineStart = 0
  /** Flags for the next token (whitespace or a line break seen since the last one). */
  pending = 0

  constructor(text: string, file: string) {
    this.text = text
    this.file = file
    this.n = text.length
    // About one token per three characters in typical policies; grown by doubling when short.
    const cap = ((text.length / 3) | 0) + 64
    this.cap = cap
    this.kinds = new Uint8Array(cap)
    this.starts = new Int32Array(cap)
    this.ends = new Int32Array(cap)
    this.flags = new Uint8Array(cap)
  }

  grow(): void {
    const cap = this.cap * 2
    const kinds = new Uint8Array(cap)
    kinds.set(this.kinds)
    this.kinds = kinds
    const starts = new Int32Array(cap)
    starts.set(this.starts)
    this.starts = starts
    const ends = new Int32Array(cap)
    ends.set(this.ends)
    this.ends = ends
    const flags = new Uint8Array(cap)
    flags.set(this.flags)
    this.flags = flags
    this.cap = cap
  }

  push(kind: number, start: number, end: number): void {
    const i = this.count
    if (i === this.cap) this.grow()
    this.kinds[i] = kind
    this.starts[i] = start
    this.ends[i] = end
    this.flags[i] = this.pending
    this.pending = 0
    this.count = i + 1
  }

  /** Records an error; without a row and column, at the current row and the column of `offset` in it. */
  error(offset: number, message: string, row = this.row, col = offset - this.lineStart + 1): void {
    this.errors.push({ offset, row, col, message })
  }

  /**
   * Scans a template-string segment from `from` (just after `$"`, `` $` `` or `}`) up to the next
   * unescaped `{` (a part) or the closing delimiter (the end). Returns the kind; the end offset is
   * left in `segmentEnd`.
   */
  segmentEnd = 0
  scanTemplateSegment(from: number, raw: boolean, tokStart: number): TokenKind {
    const text = this.text
    const n = this.n
    const close = raw ? BACKTICK : DQUOTE
    let i = from
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === BACKSLASH) {
        // `\{` escapes a brace in both forms; in the quoted form any escape skips one character.
        if (!raw || text.charCodeAt(i + 1) === LBRACE) {
          i += 2
          continue
        }
      }
      if (c === LF) {
        if (!raw) {
          this.error(tokStart, 'non-terminated string')
          this.segmentEnd = i
          return T.Illegal
        }
        this.row++
        this.lineStart = i + 1
      }
      if (c === LBRACE) {
        this.segmentEnd = i + 1
        return raw ? T.RawTemplatePart : T.TemplatePart
      }
      if (c === close) {
        this.segmentEnd = i + 1
        return raw ? T.RawTemplateEnd : T.TemplateEnd
      }
      i++
    }
    this.error(tokStart, 'non-terminated string')
    this.segmentEnd = n
    return T.Illegal
  }

  run(): TokenStream {
    const text = this.text
    const n = this.n
    let pos = 0
    while (pos < n) {
      const c = text.charCodeAt(pos)
      const cls = c < 128 ? (CLASS[c] as number) : C_OTHER
      if (cls === C_SPACE) {
        this.pending |= WS_BEFORE
        pos++
        continue
      }
      const start = pos
      if (cls === C_IDENT) {
        pos++
        while (pos < n && isIdentPart(text.charCodeAt(pos))) pos++
        const kind = c >= 97 ? keywordKind(text, start, pos - start, c) : T.Ident
        this.push(kind, start, pos)
        continue
      }
      if (cls === C_SINGLE) {
        this.push(SINGLE_KIND[c] as number, start, pos + 1)
        pos++
        continue
      }
      if (cls === C_DIGIT) {
        pos = this.number(pos)
        continue
      }
      pos = this.other(c, pos)
    }
    this.push(T.EOF, n, n)
    return {
      count: this.count,
      kinds: this.kinds,
      starts: this.starts,
      ends: this.ends,
      flags: this.flags,
      comments: this.comments,
      errors: this.errors,
    }
  }

  /** A number at `start`; returns the offset after it. */
  number(start: number): number {
    const text = this.text
    const n = this.n
    let pos = start + 1
    while (pos < n && isDigit(text.charCodeAt(pos))) pos++
    // As OPA's scanner: a dot after the digits starts a fraction, an e an exponent, and either
    // must have digits; letters run on in the number make it one malformed token (`6abc`). A
    // malformed number is an illegal token carrying the first of these messages.
    let bad: string | undefined
    if (text.charCodeAt(pos) === DOT) {
      pos++
      if (!isDigit(text.charCodeAt(pos))) bad = 'expected fraction'
      while (pos < n && isDigit(text.charCodeAt(pos))) pos++
    }
    const e = text.charCodeAt(pos)
    if (e === LOWER_E || e === UPPER_E) {
      pos++
      const sign = text.charCodeAt(pos)
      if (sign === PLUS || sign === MINUS) pos++
      if (!isDigit(text.charCodeAt(pos))) bad ??= 'expected exponent'
      while (pos < n && isDigit(text.charCodeAt(pos))) pos++
    }
    if (pos < n && isIdentStart(text.charCodeAt(pos))) {
      bad ??= 'illegal number format'
      while (pos < n && isIdentPart(text.charCodeAt(pos))) pos++
    }
    if (bad) {
      this.error(start, bad)
      this.push(T.Illegal, start, pos)
      return pos
    }
    this.push(T.Number, start, pos)
    return pos
  }

  /** Everything but blanks, words, numbers and one-character tokens; returns the offset after it. */
  other(c: number, start: number): number {
    const text = this.text
    const n = this.n
    const tokRow = this.row
    const tokCol = start - this.lineStart + 1
    let pos = start
    switch (c) {
      case LF:
        this.pending |= WS_BEFORE | NL_BEFORE
        this.row++
        this.lineStart = start + 1
        return start + 1
      case HASH: {
        let end = text.indexOf('\n', pos)
        if (end === -1) end = n
        let textEnd = end
        while (textEnd > pos + 1 && text.charCodeAt(textEnd - 1) === CR) textEnd--
        this.comments.push({
          type: 'comment',
          text: text.slice(pos + 1, textEnd),
          location: {
            file: this.file,
            row: tokRow,
            col: tokCol,
            text: text.slice(pos, textEnd),
            offset: pos,
          },
        })
        this.pending |= WS_BEFORE
        return end
      }
      case DQUOTE: {
        pos++
        let ok = false
        while (pos < n) {
          const d = text.charCodeAt(pos)
          if (d === BACKSLASH) {
            pos += 2
            continue
          }
          if (d === DQUOTE) {
            pos++
            ok = true
            break
          }
          if (d === LF) break
          pos++
        }
        if (!ok) {
          this.error(start, 'non-terminated string', tokRow, tokCol)
          this.push(T.Illegal, start, pos)
          return pos
        }
        this.push(T.String, start, pos)
        return pos
      }
      case BACKTICK: {
        const end = text.indexOf('`', pos + 1)
        if (end === -1) {
          this.error(start, 'non-terminated string', tokRow, tokCol)
          this.push(T.Illegal, start, n)
          return n
        }
        for (let i = text.indexOf('\n', pos + 1); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
          this.row++
          this.lineStart = i + 1
        }
        this.push(T.RawString, start, end + 1)
        return end + 1
      }
      case DOLLAR: {
        const q = text.charCodeAt(pos + 1)
        if (q === DQUOTE || q === BACKTICK) {
          const raw = q === BACKTICK
          const kind = this.scanTemplateSegment(pos + 2, raw, start)
          const end = this.segmentEnd
          this.push(kind, start, end)
          if (kind === T.TemplatePart || kind === T.RawTemplatePart) this.templates.push({ raw, depth: 0 })
          return end
        }
        break
      }
      case LBRACE: {
        const top = this.templates[this.templates.length - 1]
        if (top) top.depth++
        this.push(T.LBrace, start, pos + 1)
        return pos + 1
      }
      case RBRACE: {
        const top = this.templates[this.templates.length - 1]
        if (top && top.depth === 0) {
          // This `}` closes a template expression: continue the template string.
          const kind = this.scanTemplateSegment(pos + 1, top.raw, start)
          const end = this.segmentEnd
          this.push(kind, start, end)
          if (kind !== T.TemplatePart && kind !== T.RawTemplatePart) this.templates.pop()
          return end
        }
        if (top) top.depth--
        this.push(T.RBrace, start, pos + 1)
        return pos + 1
      }
    }

    const next = text.charCodeAt(pos + 1)
    let kind: TokenKind | undefined
    let len = 1
    switch (c) {
      case COLON:
        if (next === EQ) {
          kind = T.Assign
          len = 2
        } else kind = T.Colon
        break
      case EQ:
        if (next === EQ) {
          kind = T.Equal
          len = 2
        } else kind = T.Unify
        break
      case BANG:
        if (next === EQ) {
          kind = T.Neq
          len = 2
        }
        break
      case LT:
        if (next === EQ) {
          kind = T.Lte
          len = 2
        } else kind = T.Lt
        break
      case GT:
        if (next === EQ) {
          kind = T.Gte
          len = 2
        } else kind = T.Gt
        break
    }
    if (kind === undefined) {
      // Keep surrogate pairs together so the message shows the whole character.
      const cp = text.codePointAt(pos) ?? c
      const width = cp > 0xffff ? 2 : 1
      this.error(start, `illegal token: ${JSON.stringify(text.slice(pos, pos + width))}`, tokRow, tokCol)
      this.push(T.Illegal, start, pos + width)
      return pos + width
    }
    this.push(kind, start, pos + len)
    return pos + len
  }
}

/** Lexes `text` (the contents of `file`) into a token stream. Never throws on bad input. */
export function lex(text: string, file = ''): TokenStream {
  return new Lexer(text, file).run()
}
