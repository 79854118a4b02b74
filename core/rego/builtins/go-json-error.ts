/**
 * The error Go's encoding/json Decoder reports for text that is not one JSON document, as OPA's
 * util.UnmarshalJSON words it (json.unmarshal). Only consulted once parsing has failed, so the
 * common path stays JSON.parse. The scan is over UTF-8 bytes, as Go's scanner is: a bad non-ASCII
 * byte is quoted as the Latin-1 character of its first byte, as Go's quoteChar does.
 */

const MAX_DEPTH = 10000

class Failure {
  constructor(readonly message: string) {}
}

/** strconv.Quote of one byte taken as a rune, without the double quotes. */
function goQuoteByte(c: number): string {
  const named: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' }
  if (named[c]) return `\\${named[c]}`
  if (c === 0x5c) return '\\\\'
  const hex = c.toString(16).padStart(2, '0')
  if (c < 0x20 || c === 0x7f) return `\\x${hex}`
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u00${hex}`
  return String.fromCharCode(c)
}

/** Go's quoteChar: `'x'`, with `'\''` and `'"'` as special cases. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''"
  if (c === 0x22) return "'\"'"
  return `'${goQuoteByte(c)}'`
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)

class Scanner {
  private i = 0
  constructor(private readonly bytes: Uint8Array) {}

  private peek(): number {
    if (this.i >= this.bytes.length) throw new Failure('unexpected EOF')
    return this.bytes[this.i] as number
  }

  atEnd(): boolean {
    return this.i >= this.bytes.length
  }

  skipSpace(): void {
    while (this.i < this.bytes.length && isSpace(this.bytes[this.i] as number)) this.i++
  }

  fail(c: number, context: string): never {
    throw new Failure(`invalid character ${quoteChar(c)} ${context}`)
  }

  /** One value; returns its text. */
  value(depth: number): string {
    const start = this.i
    const c = this.peek()
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_DEPTH) this.fail(c, 'exceeded max depth')
      if (c === 0x7b) this.object(depth + 1)
      else this.array(depth + 1)
    } else if (c === 0x22) this.string()
    else if (c === 0x2d || isDigit(c)) this.number()
    else if (c === 0x74) this.literal('true')
    else if (c === 0x66) this.literal('false')
    else if (c === 0x6e) this.literal('null')
    else this.fail(c, 'looking for beginning of value')
    return Buffer.from(this.bytes.subarray(start, this.i)).toString('utf8')
  }

  private object(depth: number): void {
    this.i++
    this.skipSpace()
    if (this.peek() === 0x7d) {
      this.i++
      return
    }
    for (;;) {
      const c = this.peek()
      if (c !== 0x22) this.fail(c, 'looking for beginning of object key string')
      this.string()
      this.skipSpace()
      const colon = this.peek()
      if (colon !== 0x3a) this.fail(colon, 'after object key')
      this.i++
      this.skipSpace()
      this.value(depth)
      this.skipSpace()
      const next = this.peek()
      this.i++
      if (next === 0x7d) return
      if (next !== 0x2c) this.fail(next, 'after object key:value pair')
      this.skipSpace()
    }
  }

  private array(depth: number): void {
    this.i++
    this.skipSpace()
    if (this.peek() === 0x5d) {
      this.i++
      return
    }
    for (;;) {
      this.skipSpace()
      this.value(depth)
      this.skipSpace()
      const next = this.peek()
      this.i++
      if (next === 0x5d) return
      if (next !== 0x2c) this.fail(next, 'after array element')
    }
  }

  private string(): void {
    this.i++
    for (;;) {
      const c = this.peek()
      this.i++
      if (c === 0x22) return
      if (c < 0x20) this.fail(c, 'in string literal')
      if (c !== 0x5c) continue
      const e = this.peek()
      this.i++
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) {
          const h = this.peek()
          if (!isHex(h)) this.fail(h, 'in \\u hexadecimal character escape')
          this.i++
        }
      } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
        this.fail(e, 'in string escape code')
      }
    }
  }

  private digits(): void {
    while (this.i < this.bytes.length && isDigit(this.bytes[this.i] as number)) this.i++
  }

  private number(): void {
    if (this.peek() === 0x2d) this.i++
    const first = this.peek()
    if (!isDigit(first)) this.fail(first, 'in numeric literal')
    this.i++
    if (first !== 0x30) this.digits()
    if (this.i < this.bytes.length && this.bytes[this.i] === 0x2e) {
      this.i++
      const d = this.peek()
      if (!isDigit(d)) this.fail(d, 'after decimal point in numeric literal')
      this.digits()
    }
    const e = this.bytes[this.i]
    if (this.i < this.bytes.length && (e === 0x65 || e === 0x45)) {
      this.i++
      let d = this.peek()
      if (d === 0x2b || d === 0x2d) {
        this.i++
        d = this.peek()
      }
      if (!isDigit(d)) this.fail(d, 'in exponent of numeric literal')
      this.digits()
    }
  }

  private literal(word: string): void {
    this.i++
    for (let k = 1; k < word.length; k++) {
      const c = this.peek()
      if (c !== word.charCodeAt(k)) this.fail(c, `in literal ${word} (expecting '${word[k]}')`)
      this.i++
    }
  }

  /**
   * What follows the first value: OPA reads one more token and, when there is one, reports it
   * with fmt's `%s` (`'2'`, `'['`, `'%!s(bool=true)'`, `'%!s(<nil>)'`).
   */
  trailing(): string | undefined {
    const c = this.peek()
    if (c === 0x5b || c === 0x7b) return String.fromCharCode(c)
    if (c === 0x5d || c === 0x7d || c === 0x3a || c === 0x2c) this.fail(c, 'looking for beginning of value')
    const text = this.value(0)
    if (text === 'true' || text === 'false') return `%!s(bool=${text})`
    if (text === 'null') return '%!s(<nil>)'
    return c === 0x22 ? (JSON.parse(text) as string) : text
  }
}

/** Go's message for `text`, or undefined when Go would accept it. */
export function goJSONDecodeError(text: string): string | undefined {
  const scanner = new Scanner(Buffer.from(text, 'utf8'))
  try {
    scanner.skipSpace()
    if (scanner.atEnd()) return 'EOF'
    scanner.value(0)
    scanner.skipSpace()
    if (scanner.atEnd()) return undefined
    const token = scanner.trailing()
    return token === undefined ? undefined : `error: invalid character '${token}' after top-level value`
  } catch (err) {
    if (err instanceof Failure) return err.message
    throw err
  }
}
