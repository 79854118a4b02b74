/**
 * The lexer of Go's text/template (parse/lex.go), with the default `{{` `}}` delimiters: text,
 * actions with their `{{- ` / ` -}}` trim markers, comments (dropped), and the items inside
 * actions. It scans the whole input up front; an error becomes the last item, so the parser meets
 * it exactly where Go's lazily scanning parser would.
 */
import { goQuote, goRuneU } from './errors.js'

export type ItemType =
  | 'error'
  | 'bool'
  | 'char'
  | 'charConstant'
  | 'complex'
  | 'assign'
  | 'declare'
  | 'eof'
  | 'field'
  | 'identifier'
  | 'leftDelim'
  | 'leftParen'
  | 'number'
  | 'pipe'
  | 'rawString'
  | 'rightDelim'
  | 'rightParen'
  | 'space'
  | 'string'
  | 'text'
  | 'variable'
  // keywords
  | 'block'
  | 'break'
  | 'continue'
  | 'dot'
  | 'define'
  | 'else'
  | 'end'
  | 'if'
  | 'nil'
  | 'range'
  | 'template'
  | 'with'

/** One scanned item; `pos` is a UTF-16 index into the template text. */
export interface Item {
  type: ItemType
  pos: number
  val: string
  line: number
}

const KEYWORDS: ReadonlySet<string> = new Set([
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'nil',
  'range',
  'template',
  'with',
])

/** Whether an item is a keyword (Go prints those as `<if>` in errors). */
export function isKeyword(t: ItemType): boolean {
  return t === 'dot' || KEYWORDS.has(t)
}

/** Go's `item.String()`, used in "unexpected …" errors. */
export function itemString(i: Item): string {
  if (i.type === 'eof') return 'EOF'
  if (i.type === 'error') return i.val
  if (isKeyword(i.type)) return `<${i.val}>`
  const runes = [...i.val]
  if (runes.length > 10) return `${goQuote(runes.slice(0, 10).join(''))}...`
  return goQuote(i.val)
}

const LEFT = '{{'
const RIGHT = '}}'

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n'
}

const ALNUM = /^[_\p{L}\p{Nd}]$/u

function isAlphaNumeric(c: string | undefined): boolean {
  return c !== undefined && ALNUM.test(c)
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s[at] === '-' && isSpace(s[at + 1])
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return isSpace(s[at]) && s[at + 1] === '-'
}

function trailingSpaces(s: string): number {
  let n = 0
  while (n < s.length && isSpace(s[s.length - 1 - n])) n++
  return n
}

class Lexer {
  readonly items: Item[] = []
  private pos = 0
  private start = 0
  private parenDepth = 0
  private done = false

  constructor(private readonly input: string) {
    for (let i = input.indexOf('\n'); i >= 0; i = input.indexOf('\n', i + 1)) this.newlines.push(i)
  }

  run(): Item[] {
    let state: (() => void) | undefined = this.lexText
    // Each state scans at least one character or ends, so the loop is bounded by the input.
    while (!this.done && state) state = state.call(this) as (() => void) | undefined
    return this.items
  }

  private newlines: number[] = []

  /** 1 + the newlines before `pos` (Go's item line). */
  private lineAt(pos: number): number {
    let lo = 0
    let hi = this.newlines.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((this.newlines[mid] as number) < pos) lo = mid + 1
      else hi = mid
    }
    return lo + 1
  }

  private emit(type: ItemType): void {
    this.items.push({
      type,
      pos: this.start,
      val: this.input.slice(this.start, this.pos),
      line: this.lineAt(this.start),
    })
    this.start = this.pos
  }

  private error(message: string): undefined {
    this.items.push({ type: 'error', pos: this.start, val: message, line: this.lineAt(this.start) })
    this.done = true
    return undefined
  }

  /** The next rune (one or two UTF-16 units), or undefined at the end. */
  private next(): string | undefined {
    if (this.pos >= this.input.length) return undefined
    const c = String.fromCodePoint(this.input.codePointAt(this.pos) as number)
    this.pos += c.length
    return c
  }

  private peek(): string | undefined {
    if (this.pos >= this.input.length) return undefined
    return String.fromCodePoint(this.input.codePointAt(this.pos) as number)
  }

  private accept(valid: string): boolean {
    const c = this.peek()
    if (c !== undefined && valid.includes(c)) {
      this.pos += c.length
      return true
    }
    return false
  }

  private acceptRun(valid: string): void {
    while (this.accept(valid)) {}
  }

  private lexText(): (() => void) | undefined {
    const x = this.input.indexOf(LEFT, this.pos)
    if (x >= 0) {
      this.pos = x
      const trim = hasLeftTrimMarker(this.input, x + LEFT.length)
        ? trailingSpaces(this.input.slice(this.start, x))
        : 0
      this.pos -= trim
      if (this.pos > this.start) this.emit('text')
      this.pos += trim
      this.start = this.pos
      return this.lexLeftDelim
    }
    this.pos = this.input.length
    if (this.pos > this.start) this.emit('text')
    this.emit('eof')
    this.done = true
    return undefined
  }

  /** At a right delimiter, possibly after a trim marker: [delim, trim]. */
  private atRightDelim(): [boolean, boolean] {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT, this.pos + 2))
      return [true, true]
    if (this.input.startsWith(RIGHT, this.pos)) return [true, false]
    return [false, false]
  }

  private skipLeadingSpaces(): void {
    while (isSpace(this.input[this.pos])) this.pos++
  }

  private lexLeftDelim(): (() => void) | undefined {
    this.pos += LEFT.length
    const after = hasLeftTrimMarker(this.input, this.pos) ? 2 : 0
    if (this.input.startsWith('/*', this.pos + after)) {
      this.pos += after
      this.start = this.pos
      return this.lexComment
    }
    this.start = this.pos - LEFT.length
    this.emit('leftDelim')
    this.pos += after
    this.start = this.pos
    this.parenDepth = 0
    return this.lexInsideAction
  }

  private lexComment(): (() => void) | undefined {
    this.pos += 2
    const i = this.input.indexOf('*/', this.pos)
    if (i < 0) return this.error('unclosed comment')
    this.pos = i + 2
    const [delim, trim] = this.atRightDelim()
    if (!delim) return this.error('comment ends before closing delimiter')
    if (trim) this.pos += 2
    this.pos += RIGHT.length
    if (trim) this.skipLeadingSpaces()
    this.start = this.pos
    return this.lexText
  }

  private lexRightDelim(): (() => void) | undefined {
    const trim = hasRightTrimMarker(this.input, this.pos)
    if (trim) {
      this.pos += 2
      this.start = this.pos
    }
    this.pos += RIGHT.length
    this.emit('rightDelim')
    if (trim) {
      this.skipLeadingSpaces()
      this.start = this.pos
    }
    return this.lexText
  }

  private lexInsideAction(): (() => void) | undefined {
    const [delim] = this.atRightDelim()
    if (delim) {
      if (this.parenDepth === 0) return this.lexRightDelim
      return this.error('unclosed left paren')
    }
    const r = this.next()
    if (r === undefined) return this.error('unclosed action')
    if (isSpace(r)) {
      this.pos -= 1
      return this.lexSpace
    }
    switch (r) {
      case '=':
        this.emit('assign')
        return this.lexInsideAction
      case ':':
        if (this.next() !== '=') return this.error('expected :=')
        this.emit('declare')
        return this.lexInsideAction
      case '|':
        this.emit('pipe')
        return this.lexInsideAction
      case '"':
        return this.lexQuote
      case '`':
        return this.lexRawQuote
      case '$':
        return this.lexVariable
      case "'":
        return this.lexChar
      case '(':
        this.emit('leftParen')
        this.parenDepth++
        return this.lexInsideAction
      case ')':
        this.emit('rightParen')
        this.parenDepth--
        if (this.parenDepth < 0) {
          this.items.pop()
          return this.error(`unexpected right paren ${goRuneU(0x29)}`)
        }
        return this.lexInsideAction
    }
    if (r === '.') {
      const c = this.input[this.pos]
      if (c === undefined || c < '0' || c > '9') return this.lexField
    }
    if (r === '.' || r === '+' || r === '-' || (r >= '0' && r <= '9')) {
      this.pos -= 1
      return this.lexNumber
    }
    if (isAlphaNumeric(r)) {
      this.pos -= r.length
      return this.lexIdentifier
    }
    const c = r.codePointAt(0) as number
    if (c < 0x7f && c >= 0x20) {
      this.emit('char')
      return this.lexInsideAction
    }
    return this.error(`unrecognized character in action: ${goRuneU(c)}`)
  }

  private lexSpace(): (() => void) | undefined {
    let n = 0
    while (isSpace(this.input[this.pos])) {
      this.pos++
      n++
    }
    // A trim-marked right delimiter starts with a space: leave that space to it.
    if (hasRightTrimMarker(this.input, this.pos - 1) && this.input.startsWith(RIGHT, this.pos + 1)) {
      this.pos -= 1
      if (n === 1) return this.lexRightDelim
    }
    this.emit('space')
    return this.lexInsideAction
  }

  private atTerminator(): boolean {
    const r = this.peek()
    if (r === undefined || isSpace(r)) return true
    return '.,|:)('.includes(r) || r === '}'
  }

  private lexIdentifier(): (() => void) | undefined {
    while (isAlphaNumeric(this.peek())) this.next()
    const word = this.input.slice(this.start, this.pos)
    if (!this.atTerminator()) return this.error(`bad character ${goRuneU(this.peek()?.codePointAt(0) ?? 0)}`)
    if (KEYWORDS.has(word)) this.emit(word as ItemType)
    else if (word === 'true' || word === 'false') this.emit('bool')
    else this.emit('identifier')
    return this.lexInsideAction
  }

  private lexField(): (() => void) | undefined {
    return this.lexFieldOrVariable('field')
  }

  private lexVariable(): (() => void) | undefined {
    if (this.atTerminator()) {
      this.emit('variable')
      return this.lexInsideAction
    }
    return this.lexFieldOrVariable('variable')
  }

  private lexFieldOrVariable(type: 'field' | 'variable'): (() => void) | undefined {
    if (this.atTerminator()) {
      this.emit(type === 'variable' ? 'variable' : 'dot')
      return this.lexInsideAction
    }
    while (isAlphaNumeric(this.peek())) this.next()
    if (!this.atTerminator()) return this.error(`bad character ${goRuneU(this.peek()?.codePointAt(0) ?? 0)}`)
    this.emit(type)
    return this.lexInsideAction
  }

  private lexChar(): (() => void) | undefined {
    for (;;) {
      const c = this.next()
      if (c === '\\') {
        const e = this.next()
        if (e !== undefined && e !== '\n') continue
        return this.error('unterminated character constant')
      }
      if (c === undefined || c === '\n') return this.error('unterminated character constant')
      if (c === "'") break
    }
    this.emit('charConstant')
    return this.lexInsideAction
  }

  private lexNumber(): (() => void) | undefined {
    if (!this.scanNumber())
      return this.error(`bad number syntax: ${goQuote(this.input.slice(this.start, this.pos))}`)
    const sign = this.peek()
    if (sign === '+' || sign === '-') {
      if (!this.scanNumber() || this.input[this.pos - 1] !== 'i')
        return this.error(`bad number syntax: ${goQuote(this.input.slice(this.start, this.pos))}`)
      this.emit('complex')
    } else this.emit('number')
    return this.lexInsideAction
  }

  private scanNumber(): boolean {
    this.accept('+-')
    let digits = '0123456789_'
    if (this.accept('0')) {
      if (this.accept('xX')) digits = '0123456789abcdefABCDEF_'
      else if (this.accept('oO')) digits = '01234567_'
      else if (this.accept('bB')) digits = '01_'
    }
    this.acceptRun(digits)
    if (this.accept('.')) this.acceptRun(digits)
    if (digits.length === 11 && this.accept('eE')) {
      this.accept('+-')
      this.acceptRun('0123456789_')
    }
    if (digits.length === 23 && this.accept('pP')) {
      this.accept('+-')
      this.acceptRun('0123456789_')
    }
    this.accept('i')
    if (isAlphaNumeric(this.peek())) {
      this.next()
      return false
    }
    return true
  }

  private lexQuote(): (() => void) | undefined {
    for (;;) {
      const c = this.next()
      if (c === '\\') {
        const e = this.next()
        if (e !== undefined && e !== '\n') continue
        return this.error('unterminated quoted string')
      }
      if (c === undefined || c === '\n') return this.error('unterminated quoted string')
      if (c === '"') break
    }
    this.emit('string')
    return this.lexInsideAction
  }

  private lexRawQuote(): (() => void) | undefined {
    for (;;) {
      const c = this.next()
      if (c === undefined) return this.error('unterminated raw quoted string')
      if (c === '`') break
    }
    this.emit('rawString')
    return this.lexInsideAction
  }
}

/** Scans a whole template into items, ending with `eof` or an `error` item. */
export function lex(input: string): Item[] {
  return new Lexer(input).run()
}
