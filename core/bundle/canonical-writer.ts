/**
 * The canonical-JSON writer behind `canonicalJson`: one pass over the raw bytes that writes the
 * canonical form into a single output buffer. Numbers and plain strings are copied as written;
 * other strings are decoded and re-encoded as Go does. Each object's members are written as they
 * come, and reordered in place (through a scratch buffer) only when their keys are out of order
 * or repeated, so there is no tree and no allocation per value. Rules as Go's decoder: strict
 * grammar, invalid UTF-8 and lone surrogate escapes become U+FFFD, the last duplicate key wins.
 */
import { bundleError } from './errors.js'
import { decodeGoStringBody, goQuote } from './go-string.js'

/** Deeper nesting is refused rather than risking the stack (Go's decoder stops at 10,000). */
export const MAX_DEPTH = 2_000

/** One object member: where its key's sort bytes are and where it was written. */
interface Member {
  keySource: Uint8Array
  keyStart: number
  keyEnd: number
  start: number
  end: number
}

/** Writes the canonical form of one JSON text; `what` names the file in errors. */
export class CanonicalWriter {
  pos = 0
  out: Uint8Array
  length = 0
  private scratch = new Uint8Array(4096)

  constructor(
    private readonly raw: Uint8Array,
    private readonly what: string,
  ) {
    this.out = new Uint8Array(Math.max(64, raw.length + 16))
  }

  /** Writes the whole text: one value with optional whitespace around it. */
  writeDocument(): Uint8Array {
    this.skipSpace()
    this.writeValue(0)
    this.skipSpace()
    if (this.pos < this.raw.length) this.fail('unexpected data after the top-level value')
    return this.out.subarray(0, this.length)
  }

  private fail(message: string): never {
    throw bundleError('bundle_data_invalid', `${this.what} is not valid JSON: ${message} at byte ${this.pos}`)
  }

  private skipSpace(): void {
    const raw = this.raw
    let pos = this.pos
    while (pos < raw.length) {
      const b = raw[pos]!
      if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) break
      pos++
    }
    this.pos = pos
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.out.length) return
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.length + extra))
    grown.set(this.out.subarray(0, this.length))
    this.out = grown
  }

  private byte(b: number): void {
    this.ensure(1)
    this.out[this.length++] = b
  }

  private copy(source: Uint8Array, start: number, end: number): void {
    const n = end - start
    this.ensure(n)
    // Short runs (most numbers, keys and strings) are cheaper copied by hand than via subarray.
    if (n <= 32) {
      const out = this.out
      let at = this.length
      for (let i = start; i < end; i++) out[at++] = source[i]!
      this.length = at
      return
    }
    this.out.set(source.subarray(start, end), this.length)
    this.length += n
  }

  /** value = object | array | string | number | true | false | null */
  private writeValue(depth: number): void {
    if (depth > MAX_DEPTH) this.fail('nesting is too deep')
    const b = this.raw[this.pos]
    if (b === 0x7b) this.writeObject(depth)
    else if (b === 0x5b) this.writeArray(depth)
    else if (b === 0x22) this.writeString()
    else if (b === 0x2d || (b !== undefined && b >= 0x30 && b <= 0x39)) this.writeNumber()
    else if (!this.literal('true') && !this.literal('false') && !this.literal('null')) {
      this.fail(b === undefined ? 'unexpected end of input' : 'unexpected character')
    }
  }

  /** object = '{' [ string ':' value { ',' string ':' value } ] '}' */
  private writeObject(depth: number): void {
    this.pos++
    this.byte(0x7b)
    this.skipSpace()
    if (this.raw[this.pos] === 0x7d) {
      this.pos++
      this.byte(0x7d)
      return
    }
    const members: Member[] = []
    for (;;) {
      if (this.raw[this.pos] !== 0x22) this.fail('expected an object key')
      if (members.length > 0) this.byte(0x2c)
      const start = this.length
      const key = this.writeString()
      this.skipSpace()
      if (this.raw[this.pos] !== 0x3a) this.fail("expected ':' after an object key")
      this.pos++
      this.byte(0x3a)
      this.skipSpace()
      this.writeValue(depth + 1)
      members.push({ keySource: key.source, keyStart: key.start, keyEnd: key.end, start, end: this.length })
      this.skipSpace()
      const next = this.raw[this.pos]
      this.pos++
      if (next === 0x7d) break
      if (next !== 0x2c) this.fail("expected ',' or '}' in an object")
      this.skipSpace()
    }
    if (!inStrictOrder(members)) this.reorder(members)
    this.byte(0x7d)
  }

  /** Rewrites the members sorted by key bytes, keeping only the last of equal keys. */
  private reorder(members: Member[]): void {
    const regionStart = members[0]!.start
    const regionLength = this.length - regionStart
    if (this.scratch.length < regionLength) this.scratch = new Uint8Array(regionLength * 2)
    this.scratch.set(this.out.subarray(regionStart, this.length))
    const sorted = members.map((member, index) => ({ member, index }))
    sorted.sort((a, b) => compareKeys(a.member, b.member) || a.index - b.index)
    this.length = regionStart
    let written = 0
    for (let i = 0; i < sorted.length; i++) {
      const next = sorted[i + 1]
      const { member } = sorted[i]!
      if (next && compareKeys(member, next.member) === 0) continue
      if (written++ > 0) this.byte(0x2c)
      this.copy(this.scratch, member.start - regionStart, member.end - regionStart)
    }
  }

  /** array = '[' [ value { ',' value } ] ']' */
  private writeArray(depth: number): void {
    this.pos++
    this.byte(0x5b)
    this.skipSpace()
    if (this.raw[this.pos] === 0x5d) {
      this.pos++
      this.byte(0x5d)
      return
    }
    for (let first = true; ; first = false) {
      if (!first) this.byte(0x2c)
      this.writeValue(depth + 1)
      this.skipSpace()
      const next = this.raw[this.pos]
      this.pos++
      if (next === 0x5d) break
      if (next !== 0x2c) this.fail("expected ',' or ']' in an array")
      this.skipSpace()
    }
    this.byte(0x5d)
  }

  /** number = [ '-' ] int [ frac ] [ exp ], copied as written */
  private writeNumber(): void {
    const raw = this.raw
    const start = this.pos
    let pos = start
    const digits = (what: string) => {
      if (!isDigit(raw[pos])) {
        this.pos = pos
        this.fail(what)
      }
      while (isDigit(raw[pos])) pos++
    }
    if (raw[pos] === 0x2d) pos++
    if (raw[pos] === 0x30) pos++
    else digits('a number needs digits')
    if (raw[pos] === 0x2e) {
      pos++
      digits('a number needs digits after the decimal point')
    }
    if (raw[pos] === 0x65 || raw[pos] === 0x45) {
      pos++
      if (raw[pos] === 0x2b || raw[pos] === 0x2d) pos++
      digits('a number needs digits in its exponent')
    }
    this.pos = pos
    this.copy(raw, start, pos)
  }

  /**
   * string = '"' { char } '"'. Plain strings (printable ASCII, no escapes) are copied; others are
   * decoded as Go decodes them and re-encoded as Go encodes them. Returns the decoded bytes'
   * location, which is what object keys are sorted by.
   */
  private writeString(): { source: Uint8Array; start: number; end: number } {
    const raw = this.raw
    const start = this.pos
    let pos = start + 1
    let plain = true
    for (;;) {
      const b = raw[pos]
      if (b === undefined) {
        this.pos = pos
        this.fail('unterminated string')
      }
      if (b === 0x22) break
      if (b < 0x20) {
        this.pos = pos
        this.fail('control character in a string')
      }
      if (b === 0x5c) {
        plain = false
        pos += 2
        continue
      }
      if (b >= 0x7f) plain = false
      pos++
    }
    this.pos = pos + 1
    if (plain) {
      this.copy(raw, start, pos + 1)
      return { source: raw, start: start + 1, end: pos }
    }
    const decoded = decodeGoStringBody(raw, start + 1, pos)
    if (decoded === undefined) {
      this.pos = start
      this.fail('invalid escape in a string')
    }
    const encoded = Buffer.from(goQuote(decoded), 'utf8')
    this.copy(encoded, 0, encoded.length)
    const sortKey = Buffer.from(decoded, 'utf8')
    return { source: sortKey, start: 0, end: sortKey.length }
  }

  private literal(word: string): boolean {
    for (let i = 0; i < word.length; i++) if (this.raw[this.pos + i] !== word.charCodeAt(i)) return false
    this.copy(this.raw, this.pos, this.pos + word.length)
    this.pos += word.length
    return true
  }
}

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39
}

/** Byte-wise comparison of two members' decoded keys (Go's `sort.Strings` order). */
function compareKeys(a: Member, b: Member): number {
  const la = a.keyEnd - a.keyStart
  const lb = b.keyEnd - b.keyStart
  const n = la < lb ? la : lb
  const sa = a.keySource
  const sb = b.keySource
  for (let i = 0; i < n; i++) {
    const d = sa[a.keyStart + i]! - sb[b.keyStart + i]!
    if (d !== 0) return d
  }
  return la - lb
}

function inStrictOrder(members: readonly Member[]): boolean {
  for (let i = 1; i < members.length; i++) if (compareKeys(members[i - 1]!, members[i]!) >= 0) return false
  return true
}
