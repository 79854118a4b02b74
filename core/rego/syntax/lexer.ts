/**
 * The Rego lexer. It turns a whole source into a token stream held in typed arrays (kind, start,
 * end, row, column, flags), because the parser backtracks (comprehensions versus sets, `k, v in`)
 * and an index into arrays is the cheapest state to save and restore. Comments are collected on the
 * side, as OPA does. Template strings (`$"a {x} b"`) are lexed with a small mode stack: the `{`
 * that opens an expression and the `}` that closes it belong to the template tokens.
 */
import type { Comment } from './ast.js'
import { KEYWORDS, NL_BEFORE, T, type TokenKind, WS_BEFORE } from './tokens.js'

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
  rows: Int32Array
  cols: Int32Array
  flags: Uint8Array
  comments: Comment[]
  errors: LexError[]
}

enum C {
  Tab = 9,
  LF = 10,
  CR = 13,
  Space = 32,
  Bang = 33,
  DQuote = 34,
  Hash = 35,
  Dollar = 36,
  Percent = 37,
  Amp = 38,
  LParen = 40,
  RParen = 41,
  Star = 42,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  Semi = 59,
  Lt = 60,
  Eq = 61,
  Gt = 62,
  UpperA = 65,
  UpperE = 69,
  UpperZ = 90,
  LBrack = 91,
  Backslash = 92,
  RBrack = 93,
  Underscore = 95,
  Backtick = 96,
  LowerA = 97,
  LowerE = 101,
  LowerZ = 122,
  LBrace = 123,
  Pipe = 124,
  RBrace = 125,
}

const SINGLE: Partial<Record<number, TokenKind>> = {
  [C.LBrace]: T.LBrace,
  [C.RBrace]: T.RBrace,
  [C.LBrack]: T.LBrack,
  [C.RBrack]: T.RBrack,
  [C.LParen]: T.LParen,
  [C.RParen]: T.RParen,
  [C.Dot]: T.Dot,
  [C.Comma]: T.Comma,
  [C.Semi]: T.Semicolon,
  [C.Plus]: T.Add,
  [C.Minus]: T.Sub,
  [C.Star]: T.Mul,
  [C.Slash]: T.Quo,
  [C.Percent]: T.Rem,
  [C.Amp]: T.And,
  [C.Pipe]: T.Or,
}

function isIdentStart(c: number): boolean {
  return (c >= C.LowerA && c <= C.LowerZ) || (c >= C.UpperA && c <= C.UpperZ) || c === C.Underscore
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= C.Zero && c <= C.Nine)
}

function isDigit(c: number): boolean {
  return c >= C.Zero && c <= C.Nine
}

/** Keywords grouped by first character, so keyword checks need no substring. */
const KEYWORDS_BY_FIRST = new Map<number, Array<[string, TokenKind]>>()
for (const [word, kind] of KEYWORDS) {
  const first = word.charCodeAt(0)
  const list = KEYWORDS_BY_FIRST.get(first) ?? []
  list.push([word, kind])
  KEYWORDS_BY_FIRST.set(first, list)
}

function keywordAt(text: string, start: number, length: number, first: number): TokenKind | undefined {
  const candidates = KEYWORDS_BY_FIRST.get(first)
  if (!candidates) return undefined
  for (const [word, kind] of candidates) {
    if (word.length === length && text.startsWith(word, start)) return kind
  }
  return undefined
}

interface TemplateFrame {
  raw: boolean
  depth: number
}

/** Lexes `text` (the contents of `file`) into a token stream. Never throws on bad input. */
export function lex(text: string, file = ''): TokenStream {
  let cap = Math.max(64, (text.length >> 2) + 16)
  let kinds = new Uint8Array(cap)
  let starts = new Int32Array(cap)
  let ends = new Int32Array(cap)
  let rows = new Int32Array(cap)
  let cols = new Int32Array(cap)
  let flags = new Uint8Array(cap)
  let count = 0
  const comments: Comment[] = []
  const errors: LexError[] = []
  const templates: TemplateFrame[] = []

  let pos = 0
  let row = 1
  let lineStart = 0
  let pending = 0
  const n = text.length

  const grow = () => {
    cap *= 2
    const k = new Uint8Array(cap)
    k.set(kinds)
    kinds = k
    const s = new Int32Array(cap)
    s.set(starts)
    starts = s
    const e = new Int32Array(cap)
    e.set(ends)
    ends = e
    const r = new Int32Array(cap)
    r.set(rows)
    rows = r
    const c = new Int32Array(cap)
    c.set(cols)
    cols = c
    const f = new Uint8Array(cap)
    f.set(flags)
    flags = f
  }

  const push = (kind: TokenKind, start: number, end: number, tokRow: number, tokCol: number) => {
    if (count === cap) grow()
    kinds[count] = kind
    starts[count] = start
    ends[count] = end
    rows[count] = tokRow
    cols[count] = tokCol
    flags[count] = pending
    pending = 0
    count++
  }

  const error = (offset: number, message: string, errRow = row, errCol = offset - lineStart + 1) => {
    errors.push({ offset, row: errRow, col: errCol, message })
  }

  // Scans a template-string segment starting at `from` (just after `$"`, `` $` `` or `}`) up to the
  // next unescaped `{` (a part) or the closing delimiter (the end). Returns the kind and the end offset.
  const scanTemplateSegment = (from: number, raw: boolean, tokStart: number): [TokenKind, number] => {
    const close = raw ? C.Backtick : C.DQuote
    let i = from
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === C.Backslash) {
        // `\{` escapes a brace in both forms; in the quoted form any escape skips one character.
        const next = text.charCodeAt(i + 1)
        if (!raw || next === C.LBrace) {
          i += 2
          continue
        }
      }
      if (c === C.LF) {
        if (!raw) {
          error(tokStart, 'non-terminated template string')
          return [T.Illegal, i]
        }
        row++
        lineStart = i + 1
      }
      if (c === C.LBrace) return [raw ? T.RawTemplatePart : T.TemplatePart, i + 1]
      if (c === close) return [raw ? T.RawTemplateEnd : T.TemplateEnd, i + 1]
      i++
    }
    error(tokStart, 'non-terminated template string')
    return [T.Illegal, n]
  }

  while (pos < n) {
    const c = text.charCodeAt(pos)
    // Whitespace and comments.
    if (c === C.Space || c === C.Tab || c === C.CR) {
      pending |= WS_BEFORE
      pos++
      continue
    }
    if (c === C.LF) {
      pending |= WS_BEFORE | NL_BEFORE
      pos++
      row++
      lineStart = pos
      continue
    }
    if (c === C.Hash) {
      let end = text.indexOf('\n', pos)
      if (end === -1) end = n
      let textEnd = end
      while (textEnd > pos + 1 && text.charCodeAt(textEnd - 1) === C.CR) textEnd--
      comments.push({
        type: 'comment',
        text: text.slice(pos + 1, textEnd),
        location: { file, row, col: pos - lineStart + 1, text: text.slice(pos, textEnd), offset: pos },
      })
      pending |= WS_BEFORE
      pos = end
      continue
    }

    const start = pos
    const tokRow = row
    const tokCol = pos - lineStart + 1

    if (isIdentStart(c)) {
      pos++
      while (pos < n && isIdentPart(text.charCodeAt(pos))) pos++
      push(keywordAt(text, start, pos - start, c) ?? T.Ident, start, pos, tokRow, tokCol)
      continue
    }

    if (isDigit(c)) {
      pos++
      while (pos < n && isDigit(text.charCodeAt(pos))) pos++
      if (text.charCodeAt(pos) === C.Dot && isDigit(text.charCodeAt(pos + 1))) {
        pos += 2
        while (pos < n && isDigit(text.charCodeAt(pos))) pos++
      }
      const e = text.charCodeAt(pos)
      if (e === C.LowerE || e === C.UpperE) {
        let q = pos + 1
        const sign = text.charCodeAt(q)
        if (sign === C.Plus || sign === C.Minus) q++
        if (isDigit(text.charCodeAt(q))) {
          pos = q + 1
          while (pos < n && isDigit(text.charCodeAt(pos))) pos++
        }
      }
      push(T.Number, start, pos, tokRow, tokCol)
      continue
    }

    if (c === C.DQuote) {
      pos++
      let ok = false
      while (pos < n) {
        const d = text.charCodeAt(pos)
        if (d === C.Backslash) {
          pos += 2
          continue
        }
        if (d === C.DQuote) {
          pos++
          ok = true
          break
        }
        if (d === C.LF) break
        pos++
      }
      if (!ok) {
        error(start, 'non-terminated string', tokRow, tokCol)
        push(T.Illegal, start, pos, tokRow, tokCol)
        continue
      }
      push(T.String, start, pos, tokRow, tokCol)
      continue
    }

    if (c === C.Backtick) {
      const end = text.indexOf('`', pos + 1)
      if (end === -1) {
        error(start, 'non-terminated raw string', tokRow, tokCol)
        pos = n
        push(T.Illegal, start, n, tokRow, tokCol)
        continue
      }
      for (let i = text.indexOf('\n', pos + 1); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
        row++
        lineStart = i + 1
      }
      pos = end + 1
      push(T.RawString, start, pos, tokRow, tokCol)
      continue
    }

    if (c === C.Dollar) {
      const q = text.charCodeAt(pos + 1)
      if (q === C.DQuote || q === C.Backtick) {
        const raw = q === C.Backtick
        const [kind, end] = scanTemplateSegment(pos + 2, raw, start)
        pos = end
        push(kind, start, end, tokRow, tokCol)
        if (kind === T.TemplatePart || kind === T.RawTemplatePart) templates.push({ raw, depth: 0 })
        continue
      }
    }

    if (c === C.LBrace) {
      const top = templates[templates.length - 1]
      if (top) top.depth++
      pos++
      push(T.LBrace, start, pos, tokRow, tokCol)
      continue
    }

    if (c === C.RBrace) {
      const top = templates[templates.length - 1]
      if (top && top.depth === 0) {
        // This `}` closes a template expression: continue the template string.
        const [kind, end] = scanTemplateSegment(pos + 1, top.raw, start)
        pos = end
        push(kind, start, end, tokRow, tokCol)
        if (kind !== T.TemplatePart && kind !== T.RawTemplatePart) templates.pop()
        continue
      }
      if (top) top.depth--
      pos++
      push(T.RBrace, start, pos, tokRow, tokCol)
      continue
    }

    const single = SINGLE[c]
    if (single !== undefined) {
      pos++
      push(single, start, pos, tokRow, tokCol)
      continue
    }

    const next = text.charCodeAt(pos + 1)
    let kind: TokenKind | undefined
    let len = 1
    switch (c) {
      case C.Colon:
        if (next === C.Eq) {
          kind = T.Assign
          len = 2
        } else kind = T.Colon
        break
      case C.Eq:
        if (next === C.Eq) {
          kind = T.Equal
          len = 2
        } else kind = T.Unify
        break
      case C.Bang:
        if (next === C.Eq) {
          kind = T.Neq
          len = 2
        }
        break
      case C.Lt:
        if (next === C.Eq) {
          kind = T.Lte
          len = 2
        } else kind = T.Lt
        break
      case C.Gt:
        if (next === C.Eq) {
          kind = T.Gte
          len = 2
        } else kind = T.Gt
        break
    }
    if (kind === undefined) {
      // Keep surrogate pairs together so the message shows the whole character.
      const cp = text.codePointAt(pos) ?? c
      const width = cp > 0xffff ? 2 : 1
      error(start, `illegal token: ${JSON.stringify(text.slice(pos, pos + width))}`, tokRow, tokCol)
      pos += width
      push(T.Illegal, start, pos, tokRow, tokCol)
      continue
    }
    pos += len
    push(kind, start, pos, tokRow, tokCol)
  }

  push(T.EOF, n, n, row, n - lineStart + 1)
  return { count, kinds, starts, ends, rows, cols, flags, comments, errors }
}
