/**
 * A JSON parser over raw bytes for canonical hashing. It keeps number lexemes and the bytes of
 * plain strings as they are, and decodes only strings that need it (escapes, non-ASCII that
 * may be invalid, U+2028/U+2029), with the rules of Go's decoder: strict JSON grammar, invalid
 * UTF-8 bytes and lone surrogate escapes become U+FFFD, the last of duplicate keys wins.
 */
import { bundleError } from './errors.js'
import { decodeGoStringBody, goQuote } from './go-string.js'

/** Deeper nesting is refused rather than risking the stack (Go's decoder stops at 10,000). */
export const MAX_DEPTH = 2_000

/** A parsed value ready to print: a leaf's canonical bytes, an array, or an object's members. */
export type Node = Leaf | Node[] | ObjectNode

/** A scalar, already in its canonical bytes. */
export class Leaf {
  constructor(readonly bytes: Uint8Array) {}
}

/** One object member. */
export interface Member {
  /** The decoded key as UTF-8: what keys are sorted by. */
  sortKey: Uint8Array
  /** The key as canonical JSON text, quotes included. */
  encoded: Uint8Array
  value: Node
}

/** An object; members keyed by decoded key so a later duplicate replaces an earlier one. */
export class ObjectNode {
  readonly members = new Map<string, Member>()
}

const TRUE = new Leaf(new TextEncoder().encode('true'))
const FALSE = new Leaf(new TextEncoder().encode('false'))
const NULL = new Leaf(new TextEncoder().encode('null'))
const latin1 = {
  decode: (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'),
}

/** Recursive-descent parser over `raw`; `what` names the file in errors. */
export class Parser {
  pos = 0

  constructor(
    private readonly raw: Uint8Array,
    private readonly what: string,
  ) {}

  fail(message: string): never {
    throw bundleError('bundle_data_invalid', `${this.what} is not valid JSON: ${message} at byte ${this.pos}`)
  }

  skipSpace(): void {
    const raw = this.raw
    let pos = this.pos
    while (pos < raw.length) {
      const b = raw[pos]!
      if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) break
      pos++
    }
    this.pos = pos
  }

  /** value = object | array | string | number | true | false | null */
  parseValue(depth: number): Node {
    if (depth > MAX_DEPTH) this.fail('nesting is too deep')
    const b = this.raw[this.pos]
    if (b === 0x7b) return this.parseObject(depth)
    if (b === 0x5b) return this.parseArray(depth)
    if (b === 0x22) return new Leaf(this.parseString().encoded)
    if (b === 0x2d || (b !== undefined && b >= 0x30 && b <= 0x39)) return this.parseNumber()
    if (this.literal('true')) return TRUE
    if (this.literal('false')) return FALSE
    if (this.literal('null')) return NULL
    return this.fail(b === undefined ? 'unexpected end of input' : 'unexpected character')
  }

  /** object = '{' [ string ':' value { ',' string ':' value } ] '}' */
  private parseObject(depth: number): ObjectNode {
    const node = new ObjectNode()
    this.pos++
    this.skipSpace()
    if (this.raw[this.pos] === 0x7d) {
      this.pos++
      return node
    }
    for (;;) {
      if (this.raw[this.pos] !== 0x22) this.fail('expected an object key')
      const key = this.parseString()
      this.skipSpace()
      if (this.raw[this.pos] !== 0x3a) this.fail("expected ':' after an object key")
      this.pos++
      this.skipSpace()
      const value = this.parseValue(depth + 1)
      node.members.set(key.mapKey, { sortKey: key.sortKey, encoded: key.encoded, value })
      this.skipSpace()
      const next = this.raw[this.pos]
      this.pos++
      if (next === 0x7d) return node
      if (next !== 0x2c) this.fail("expected ',' or '}' in an object")
      this.skipSpace()
    }
  }

  /** array = '[' [ value { ',' value } ] ']' */
  private parseArray(depth: number): Node[] {
    const items: Node[] = []
    this.pos++
    this.skipSpace()
    if (this.raw[this.pos] === 0x5d) {
      this.pos++
      return items
    }
    for (;;) {
      items.push(this.parseValue(depth + 1))
      this.skipSpace()
      const next = this.raw[this.pos]
      this.pos++
      if (next === 0x5d) return items
      if (next !== 0x2c) this.fail("expected ',' or ']' in an array")
      this.skipSpace()
    }
  }

  /** number = [ '-' ] int [ frac ] [ exp ], kept as written */
  private parseNumber(): Leaf {
    const raw = this.raw
    const start = this.pos
    let pos = start
    if (raw[pos] === 0x2d) pos++
    if (raw[pos] === 0x30) pos++
    else if (isDigit(raw[pos])) while (isDigit(raw[pos])) pos++
    else {
      this.pos = pos
      this.fail('a number needs digits')
    }
    if (raw[pos] === 0x2e) {
      pos++
      if (!isDigit(raw[pos])) {
        this.pos = pos
        this.fail('a number needs digits after the decimal point')
      }
      while (isDigit(raw[pos])) pos++
    }
    if (raw[pos] === 0x65 || raw[pos] === 0x45) {
      pos++
      if (raw[pos] === 0x2b || raw[pos] === 0x2d) pos++
      if (!isDigit(raw[pos])) {
        this.pos = pos
        this.fail('a number needs digits in its exponent')
      }
      while (isDigit(raw[pos])) pos++
    }
    this.pos = pos
    return new Leaf(raw.subarray(start, pos))
  }

  /**
   * string = '"' { char } '"'. Plain strings (printable ASCII without escapes) are used as
   * written; others are decoded as Go decodes them and re-encoded as Go encodes them.
   */
  private parseString(): { encoded: Uint8Array; sortKey: Uint8Array; mapKey: string } {
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
      const body = raw.subarray(start + 1, pos)
      return { encoded: raw.subarray(start, pos + 1), sortKey: body, mapKey: latin1.decode(body) }
    }
    const decoded = decodeGoStringBody(raw, start + 1, pos)
    if (decoded === undefined) {
      this.pos = start
      this.fail('invalid escape in a string')
    }
    const sortKey = Buffer.from(decoded, 'utf8')
    return { encoded: Buffer.from(goQuote(decoded), 'utf8'), sortKey, mapKey: latin1.decode(sortKey) }
  }

  private literal(word: string): boolean {
    for (let i = 0; i < word.length; i++) if (this.raw[this.pos + i] !== word.charCodeAt(i)) return false
    this.pos += word.length
    return true
  }
}

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39
}
