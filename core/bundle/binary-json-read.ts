/**
 * Reading the reference tool's binary JSON (layout in `binary-json-write.ts`) back into JSON
 * text. Text rather than values, so each caller parses it as it parses any `data.json` (the
 * agent keeps big numbers exact, `core/bundle` uses `JSON.parse`), and numbers keep their digits.
 *
 * The input is untrusted: every offset and length is bounds-checked, nesting is capped, and since
 * offsets may point back at shared values (a legal way to write the same string twice), the
 * output is capped too, so a file of a few bytes cannot expand without end.
 */
import {
  BJSON_ARRAY,
  BJSON_FALSE,
  BJSON_NULL,
  BJSON_NUMBER,
  BJSON_OBJECT_FULL,
  BJSON_OBJECT_THIN,
  BJSON_STRING,
  BJSON_STRING_INT,
  BJSON_TRUE,
} from './binary-json-write.js'

const MAX_DEPTH = 1000
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/

/** Raised for bytes that are not well-formed binary JSON; the message says where. */
export class BinaryJsonError extends Error {
  override name = 'BinaryJsonError'
}

/**
 * Whether `raw` is binary JSON rather than JSON text: its first byte is a binary type byte that
 * JSON text cannot start with (tab and newline, the thin-object and patch type bytes, are JSON
 * whitespace; neither can start a document).
 */
export function isBinaryJson(raw: Uint8Array): boolean {
  const first = raw[0]
  return first !== undefined && first >= BJSON_NULL && first <= BJSON_OBJECT_FULL
}

/**
 * The JSON text of a binary JSON document.
 * @throws BinaryJsonError naming the offset at fault, or when the text would pass `maxChars`.
 */
export function binaryJsonToText(raw: Uint8Array, maxChars = 64 * 1024 * 1024): string {
  return new BinaryJsonReader(raw, maxChars).document()
}

/**
 * The value of a binary JSON document as `JSON.parse` would give it for the document's JSON text
 * (numbers as doubles), built directly: half the work of text then parse. Shared values are
 * built afresh at every place that refers to them, so no two places alias one object; the count
 * of values built is capped (`maxValues`) as the text is.
 * @throws BinaryJsonError as binaryJsonToText.
 */
export function binaryJsonToValue(raw: Uint8Array, maxValues = 16 * 1024 * 1024): unknown {
  return new BinaryJsonValueReader(raw, maxValues).read()
}

class BinaryJsonReader {
  private readonly view: DataView
  private readonly buf: Buffer
  private readonly parts: string[] = []
  private chars = 0
  /** JSON text of scalars and names by offset: the writer stores equal strings once, so they repeat. */
  private readonly scalars = new Map<number, string>()

  constructor(
    protected readonly raw: Uint8Array,
    private readonly maxChars: number,
  ) {
    this.view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
    this.buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
  }

  document(): string {
    if (this.raw.length === 0) throw new BinaryJsonError('binary JSON is empty')
    this.value(0, 0)
    return this.parts.join('')
  }

  private emit(text: string): void {
    this.chars += text.length
    if (this.chars > this.maxChars) {
      throw new BinaryJsonError(`binary JSON expands to more than ${this.maxChars} characters`)
    }
    this.parts.push(text)
  }

  protected size(): number {
    return this.raw.length
  }

  protected typeAt(offset: number): number {
    return this.byteAt(offset)
  }

  protected countAt(at: number): { value: number; next: number } {
    return this.count(at)
  }

  protected offsetAt(at: number): number {
    return this.int32At(at)
  }

  protected textAt(at: number): string {
    return this.text(at).value
  }

  protected embeddedText(offset: number): string {
    return this.embedded(offset)
  }

  protected scalarText(offset: number, type: number): string {
    return this.scalar(offset, type)
  }

  /** Where an object's names and values are: a thin object borrows the names of its full one. */
  protected objectLayout(offset: number): { count: number; nameOffsets: number; valueOffsets: number } {
    let fullOffset = offset
    let valueOffsets = -1
    if (this.byteAt(offset) === BJSON_OBJECT_THIN) {
      fullOffset = this.int32At(offset + 1)
      if (this.byteAt(fullOffset) !== BJSON_OBJECT_FULL) {
        throw this.fail(offset, 'thin object does not point at a full object')
      }
      valueOffsets = offset + 5
    }
    const { value: count, next: nameOffsets } = this.count(fullOffset + 1)
    if (valueOffsets === -1) valueOffsets = nameOffsets + 4 * count
    return { count, nameOffsets, valueOffsets }
  }

  private value(offset: number, depth: number): void {
    if (offset < 0) {
      this.emit(this.embedded(offset))
      return
    }
    if (depth > MAX_DEPTH) throw new BinaryJsonError(`binary JSON nests deeper than ${MAX_DEPTH}`)
    const type = this.byteAt(offset)
    if (type === BJSON_ARRAY) this.array(offset, depth)
    else if (type === BJSON_OBJECT_FULL || type === BJSON_OBJECT_THIN) this.object(offset, depth)
    else {
      let text = this.scalars.get(offset)
      if (text === undefined) {
        text = this.scalar(offset, type)
        this.scalars.set(offset, text)
      }
      this.emit(text)
    }
  }

  /** A null, false or true stored in its parent's slot as -1, -2 or -3. */
  private embedded(offset: number): string {
    if (offset === -BJSON_NULL) return 'null'
    if (offset === -BJSON_FALSE) return 'false'
    if (offset === -BJSON_TRUE) return 'true'
    throw new BinaryJsonError(`binary JSON: negative offset ${offset} is no embedded value`)
  }

  private scalar(offset: number, type: number): string {
    switch (type) {
      case BJSON_NULL:
        return 'null'
      case BJSON_FALSE:
        return 'false'
      case BJSON_TRUE:
        return 'true'
      case BJSON_STRING:
        return JSON.stringify(this.text(offset + 1).value)
      case BJSON_STRING_INT:
        return `"${this.bigVarint(offset + 1)}"`
      case BJSON_NUMBER: {
        const text = this.text(offset + 1).value
        if (!JSON_NUMBER.test(text)) throw this.fail(offset, `number ${JSON.stringify(text)} is not JSON`)
        return text
      }
      default:
        throw this.fail(offset, `unknown type byte ${type}`)
    }
  }

  private array(offset: number, depth: number): void {
    const { value: count, next } = this.count(offset + 1)
    this.emit('[')
    for (let i = 0; i < count; i++) {
      if (i > 0) this.emit(',')
      this.value(this.int32At(next + 4 * i), depth + 1)
    }
    this.emit(']')
  }

  private object(offset: number, depth: number): void {
    const { count, nameOffsets, valueOffsets } = this.objectLayout(offset)
    this.emit('{')
    for (let i = 0; i < count; i++) {
      if (i > 0) this.emit(',')
      const nameAt = this.int32At(nameOffsets + 4 * i)
      let name = this.scalars.get(-nameAt - 1)
      if (name === undefined) {
        name = `${JSON.stringify(this.text(nameAt).value)}:`
        this.scalars.set(-nameAt - 1, name)
      }
      this.emit(name)
      this.value(this.int32At(valueOffsets + 4 * i), depth + 1)
    }
    this.emit('}')
  }

  /** A count: a varint that must be non-negative and fit the bytes left (4 per entry). */
  private count(at: number): { value: number; next: number } {
    const { value, next } = this.varint(at)
    if (value < 0 || value * 4 > this.raw.length - next) {
      throw this.fail(at, `length ${value} does not fit the document`)
    }
    return { value, next }
  }

  private text(at: number): { value: string; next: number } {
    const { value: length, next } = this.varint(at)
    if (length < 0 || next + length > this.raw.length) {
      throw this.fail(at, `string length ${length} does not fit the document`)
    }
    const end = next + length
    return { value: this.buf.toString('utf8', next, end), next: end }
  }

  /**
   * Go's `binary.ReadVarint` (at most 10 bytes, zigzag) as a number: exact up to 2^53, which
   * covers every length and count; `bigVarint` is for integer strings that may go past it.
   */
  private varint(at: number): { value: number; next: number } {
    let result = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      const b = this.byteAt(at + i)
      result += (b & 0x7f) * scale
      if (b < 0x80) {
        const value = result % 2 === 1 ? -(result + 1) / 2 : result / 2
        return { value, next: at + i + 1 }
      }
      scale *= 128
    }
    throw this.fail(at, 'varint longer than 10 bytes')
  }

  private bigVarint(at: number): bigint {
    let result = 0n
    let shift = 0n
    for (let i = 0; i < 10; i++) {
      const b = this.byteAt(at + i)
      result |= BigInt(b & 0x7f) << shift
      if (b < 0x80) return result & 1n ? -((result >> 1n) + 1n) : result >> 1n
      shift += 7n
    }
    throw this.fail(at, 'varint longer than 10 bytes')
  }

  private byteAt(at: number): number {
    const b = this.raw[at]
    if (at < 0 || b === undefined) throw this.fail(at, 'offset past the end of the document')
    return b
  }

  private int32At(at: number): number {
    if (at < 0 || at + 4 > this.raw.length) throw this.fail(at, 'offset past the end of the document')
    return this.view.getInt32(at, false)
  }

  private fail(at: number, what: string): BinaryJsonError {
    return new BinaryJsonError(`binary JSON at byte ${at}: ${what}`)
  }
}

/** The same walk as BinaryJsonReader, building values instead of text. */
class BinaryJsonValueReader extends BinaryJsonReader {
  private values = 0
  private readonly names = new Map<number, string>()
  private readonly strings = new Map<number, unknown>()

  constructor(
    raw: Uint8Array,
    private readonly maxValues: number,
  ) {
    super(raw, Number.POSITIVE_INFINITY)
  }

  read(): unknown {
    if (this.size() === 0) throw new BinaryJsonError('binary JSON is empty')
    return this.node(0, 0)
  }

  private node(offset: number, depth: number): unknown {
    if (++this.values > this.maxValues) {
      throw new BinaryJsonError(`binary JSON holds more than ${this.maxValues} values`)
    }
    if (offset < 0)
      return offset === -BJSON_NULL
        ? null
        : offset === -BJSON_TRUE
          ? true
          : offset === -BJSON_FALSE
            ? false
            : JSON.parse(this.embeddedText(offset))
    if (depth > MAX_DEPTH) throw new BinaryJsonError(`binary JSON nests deeper than ${MAX_DEPTH}`)
    const type = this.typeAt(offset)
    if (type === BJSON_ARRAY) {
      const { value: count, next } = this.countAt(offset + 1)
      const out = new Array<unknown>(count)
      for (let i = 0; i < count; i++) out[i] = this.node(this.offsetAt(next + 4 * i), depth + 1)
      return out
    }
    if (type === BJSON_OBJECT_FULL || type === BJSON_OBJECT_THIN) {
      const { count, nameOffsets, valueOffsets } = this.objectLayout(offset)
      const out: Record<string, unknown> = {}
      for (let i = 0; i < count; i++) {
        const nameAt = this.offsetAt(nameOffsets + 4 * i)
        let name = this.names.get(nameAt)
        if (name === undefined) {
          name = this.textAt(nameAt)
          this.names.set(nameAt, name)
        }
        const value = this.node(this.offsetAt(valueOffsets + 4 * i), depth + 1)
        // As JSON.parse: `__proto__` is an own key, never the prototype.
        if (name === '__proto__')
          Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true })
        else out[name] = value
      }
      return out
    }
    let scalar = this.strings.get(offset)
    if (scalar === undefined) {
      scalar = this.scalarValue(offset, type)
      this.strings.set(offset, scalar)
    }
    return scalar
  }

  private scalarValue(offset: number, type: number): unknown {
    if (type === BJSON_STRING) return this.textAt(offset + 1)
    if (type === BJSON_NUMBER) return Number(this.scalarText(offset, type)) // text checked there
    return JSON.parse(this.scalarText(offset, type))
  }
}
