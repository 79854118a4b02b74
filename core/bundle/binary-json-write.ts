/**
 * Writing the reference tool's binary JSON ("bjson", variant A's `data.json` in a binary bundle),
 * so that bundles converted here load there and back. The layout, as the reference writes it:
 *
 * - one type byte per value: 1 null, 2 false, 3 true, 4 string, 5 integer-string, 6 number,
 *   7 array, 8 object (full), 9 object (thin);
 * - lengths and integers as Go `binary.PutVarint` (zigzag, 7 bits a byte);
 * - strings as varint byte length + UTF-8; numbers as their JSON text written as a string;
 *   a string that is a canonical int64 (`"42"`) as type 5 + varint;
 * - arrays: type, varint count, then one big-endian int32 offset per element, then the elements;
 * - objects, keys in byte order: the first object with a given key list is written "full" (type,
 *   varint count, name offsets, value offsets, the names, the values); later objects with the
 *   same key list are "thin" (type, int32 offset of the full one, value offsets, the values);
 * - offsets are absolute from the start; a null, false or true below the root is not written but
 *   stored in its parent's slot as -1, -2 or -3; equal strings and numbers are written once.
 */
import { isLosslessNumber } from 'lossless-json'

export const BJSON_NULL = 1
export const BJSON_FALSE = 2
export const BJSON_TRUE = 3
export const BJSON_STRING = 4
export const BJSON_STRING_INT = 5
export const BJSON_NUMBER = 6
export const BJSON_ARRAY = 7
export const BJSON_OBJECT_FULL = 8
export const BJSON_OBJECT_THIN = 9

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const CANONICAL_INT = /^(0|-?[1-9][0-9]*)$/
const encoder = new TextEncoder()

/**
 * The binary JSON of `value`: objects, arrays, strings, booleans, null, numbers (JS numbers,
 * bigints, or lossless-json numbers, whose digits are kept as written).
 * @throws Error for a value JSON cannot hold (undefined, a function, a non-finite number).
 */
export function encodeBinaryJson(value: unknown): Uint8Array {
  const writer = new BinaryJsonWriter()
  writer.value(value, 0)
  return writer.bytes()
}

class BinaryJsonWriter {
  private buf = new Uint8Array(1024)
  private len = 0
  private readonly strings = new Map<string, number>()
  private readonly numbers = new Map<string, number>()
  private readonly objectTypes = new Map<string, number>()

  bytes(): Uint8Array {
    return this.buf.slice(0, this.len)
  }

  /** Writes `value` (unless embedded) and returns the offset its parent stores. */
  value(value: unknown, depth: number): number {
    if (depth > 10_000) throw new Error('binary JSON: value nested too deeply')
    const offset = this.len
    const root = offset === 0
    if (value === null) return this.constant(BJSON_NULL, root)
    if (value === true) return this.constant(BJSON_TRUE, root)
    if (value === false) return this.constant(BJSON_FALSE, root)
    if (typeof value === 'string') return this.string(value)
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`binary JSON: ${value} is not a JSON number`)
      return this.number(JSON.stringify(value))
    }
    if (typeof value === 'bigint') return this.number(value.toString())
    if (isLosslessNumber(value)) return this.number(value.value)
    if (Array.isArray(value)) return this.array(value, depth)
    if (typeof value === 'object') return this.object(value as Record<string, unknown>, depth)
    throw new Error(`binary JSON: unsupported value of type ${typeof value}`)
  }

  private constant(type: number, root: boolean): number {
    if (!root) return -type
    this.byte(type)
    return 0
  }

  private string(text: string): number {
    const offset = this.len
    const seen = this.strings.get(text)
    if (seen !== undefined) return seen
    this.strings.set(text, offset)
    if (CANONICAL_INT.test(text)) {
      const n = BigInt(text)
      if (n >= INT64_MIN && n <= INT64_MAX) {
        this.byte(BJSON_STRING_INT)
        this.varint(n)
        return offset
      }
    }
    this.byte(BJSON_STRING)
    this.text(text)
    return offset
  }

  private number(text: string): number {
    const offset = this.len
    const seen = this.numbers.get(text)
    if (seen !== undefined) return seen
    this.numbers.set(text, offset)
    this.byte(BJSON_NUMBER)
    this.text(text)
    return offset
  }

  private array(items: readonly unknown[], depth: number): number {
    const offset = this.len
    this.byte(BJSON_ARRAY)
    this.varint(BigInt(items.length))
    let slot = this.reserve(4 * items.length)
    for (const item of items) {
      this.int32At(slot, this.value(item, depth + 1))
      slot += 4
    }
    return offset
  }

  private object(object: Record<string, unknown>, depth: number): number {
    const offset = this.len
    const names = sortedKeys(object)
    const typeKey = JSON.stringify(names)
    const full = this.objectTypes.get(typeKey)
    let valueSlot: number
    if (full === undefined) {
      this.objectTypes.set(typeKey, offset)
      this.byte(BJSON_OBJECT_FULL)
      this.varint(BigInt(names.length))
      let nameSlot = this.reserve(4 * names.length)
      valueSlot = this.reserve(4 * names.length)
      for (const name of names) {
        this.int32At(nameSlot, this.len)
        this.text(name)
        nameSlot += 4
      }
    } else {
      this.byte(BJSON_OBJECT_THIN)
      this.int32At(this.reserve(4), full)
      valueSlot = this.reserve(4 * names.length)
    }
    for (const name of names) {
      this.int32At(valueSlot, this.value(object[name], depth + 1))
      valueSlot += 4
    }
    return offset
  }

  private text(text: string): void {
    const raw = encoder.encode(text)
    this.varint(BigInt(raw.length))
    this.ensure(raw.length)
    this.buf.set(raw, this.len)
    this.len += raw.length
  }

  /** Go's `binary.PutVarint`: zigzag, then 7 bits a byte, low bits first. */
  private varint(n: bigint): void {
    let zigzag = n >= 0n ? n << 1n : (-n << 1n) - 1n
    while (zigzag >= 0x80n) {
      this.byte(Number(zigzag & 0x7fn) | 0x80)
      zigzag >>= 7n
    }
    this.byte(Number(zigzag))
  }

  private byte(b: number): void {
    this.ensure(1)
    this.buf[this.len++] = b
  }

  private reserve(n: number): number {
    this.ensure(n)
    const at = this.len
    this.buf.fill(0, at, at + n)
    this.len += n
    return at
  }

  private int32At(at: number, value: number): void {
    if (value > 0x7fffffff) throw new Error('binary JSON: document larger than 2 GiB')
    new DataView(this.buf.buffer, this.buf.byteOffset).setInt32(at, value, false)
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.len + extra) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
  }
}

/** Keys in Go's string order (UTF-8 bytes), which the reader's binary search relies on. */
function sortedKeys(object: Record<string, unknown>): string[] {
  const names = Object.keys(object).filter((k) => object[k] !== undefined)
  names.sort()
  // UTF-16 order equals UTF-8 byte order except around surrogate pairs: re-sort only then.
  if (names.some((n) => /[\ud800-\udfff]/.test(n))) {
    names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  }
  return names
}
