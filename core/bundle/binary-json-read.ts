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
const decoder = new TextDecoder('utf-8', { fatal: true })

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

class BinaryJsonReader {
  private readonly view: DataView
  private readonly parts: string[] = []
  private chars = 0

  constructor(
    private readonly raw: Uint8Array,
    private readonly maxChars: number,
  ) {
    this.view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
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

  private value(offset: number, depth: number): void {
    if (offset === -BJSON_NULL) return this.emit('null')
    if (offset === -BJSON_FALSE) return this.emit('false')
    if (offset === -BJSON_TRUE) return this.emit('true')
    if (depth > MAX_DEPTH) throw new BinaryJsonError(`binary JSON nests deeper than ${MAX_DEPTH}`)
    const type = this.byteAt(offset)
    switch (type) {
      case BJSON_NULL:
        return this.emit('null')
      case BJSON_FALSE:
        return this.emit('false')
      case BJSON_TRUE:
        return this.emit('true')
      case BJSON_STRING:
        return this.emit(JSON.stringify(this.text(offset + 1).value))
      case BJSON_STRING_INT:
        return this.emit(`"${this.varint(offset + 1).value}"`)
      case BJSON_NUMBER: {
        const text = this.text(offset + 1).value
        if (!JSON_NUMBER.test(text)) throw this.fail(offset, `number ${JSON.stringify(text)} is not JSON`)
        return this.emit(text)
      }
      case BJSON_ARRAY:
        return this.array(offset, depth)
      case BJSON_OBJECT_FULL:
      case BJSON_OBJECT_THIN:
        return this.object(offset, depth)
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
    let fullOffset = offset
    let valueOffsets: number
    if (this.byteAt(offset) === BJSON_OBJECT_THIN) {
      fullOffset = this.int32At(offset + 1)
      if (this.byteAt(fullOffset) !== BJSON_OBJECT_FULL) {
        throw this.fail(offset, 'thin object does not point at a full object')
      }
      valueOffsets = offset + 5
    } else valueOffsets = -1
    const { value: count, next: nameOffsets } = this.count(fullOffset + 1)
    if (valueOffsets === -1) valueOffsets = nameOffsets + 4 * count
    this.emit('{')
    for (let i = 0; i < count; i++) {
      if (i > 0) this.emit(',')
      const name = this.text(this.int32At(nameOffsets + 4 * i)).value
      this.emit(`${JSON.stringify(name)}:`)
      this.value(this.int32At(valueOffsets + 4 * i), depth + 1)
    }
    this.emit('}')
  }

  /** A count: a varint that must be non-negative and fit the bytes left (4 per entry). */
  private count(at: number): { value: number; next: number } {
    const { value, next } = this.varint(at)
    if (value < 0n || value * 4n > BigInt(this.raw.length - next)) {
      throw this.fail(at, `length ${value} does not fit the document`)
    }
    return { value: Number(value), next }
  }

  private text(at: number): { value: string; next: number } {
    const { value: length, next } = this.varint(at)
    if (length < 0n || BigInt(next) + length > BigInt(this.raw.length)) {
      throw this.fail(at, `string length ${length} does not fit the document`)
    }
    const end = next + Number(length)
    try {
      return { value: decoder.decode(this.raw.subarray(next, end)), next: end }
    } catch {
      throw this.fail(at, 'string is not UTF-8')
    }
  }

  /** Go's `binary.ReadVarint`: at most 10 bytes, zigzag-decoded. */
  private varint(at: number): { value: bigint; next: number } {
    let result = 0n
    let shift = 0n
    for (let i = 0; i < 10; i++) {
      const b = this.byteAt(at + i)
      result |= BigInt(b & 0x7f) << shift
      if (b < 0x80) {
        const value = result & 1n ? -((result >> 1n) + 1n) : result >> 1n
        return { value, next: at + i + 1 }
      }
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
