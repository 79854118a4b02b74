/**
 * The reference tool's binary JSON: exact bytes for small documents (worked out by hand from the
 * layout the reference's serializer writes), round trips, and hostile bytes refused with a
 * message instead of a crash or a runaway expansion.
 */
import { LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import {
  BinaryJsonError,
  binaryJsonToText,
  binaryJsonToValue,
  isBinaryJson,
} from '../../../core/bundle/binary-json-read.js'
import { encodeBinaryJson } from '../../../core/bundle/binary-json-write.js'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const int32 = (n: number) => Buffer.from([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255])
const ascii = (s: string) => [...Buffer.from(s)]

describe('encodeBinaryJson', () => {
  it('writes a full object: count, name offsets, value offsets, names, then values', () => {
    const bytes = encodeBinaryJson({ b: [true, 'x'], a: 1, c: { a: 2 } })
    const expected = Buffer.concat([
      Buffer.from([8, 6]), // full object, 3 properties (zigzag 3 = 6)
      int32(26),
      int32(28),
      int32(30), // names a, b, c (sorted)
      int32(32),
      int32(35),
      int32(48), // values
      Buffer.from([2, ...ascii('a'), 2, ...ascii('b'), 2, ...ascii('c')]),
      Buffer.from([6, 2, ...ascii('1')]), // number "1" at 32
      Buffer.from([7, 4]),
      int32(-3),
      int32(45), // array at 35: true embedded as -3, "x" at 45
      Buffer.from([4, 2, ...ascii('x')]),
      Buffer.from([8, 2]),
      int32(58),
      int32(60),
      Buffer.from([2, ...ascii('a')]), // {a:2} at 48
      Buffer.from([6, 2, ...ascii('2')]),
    ])
    expect(hex(bytes)).toBe(expected.toString('hex'))
  })

  it('writes a repeated key list as a thin object and a repeated value once', () => {
    const bytes = encodeBinaryJson([{ a: 'v' }, { a: 'v' }])
    // [7, 4, off0, off1] then full {a} at 10, "v" at 22, thin at 25 pointing at 10 and at "v".
    const expected = Buffer.concat([
      Buffer.from([7, 4]),
      int32(10),
      int32(25),
      Buffer.from([8, 2]),
      int32(20),
      int32(22),
      Buffer.from([2, ...ascii('a')]),
      Buffer.from([4, 2, ...ascii('v')]),
      Buffer.from([9]),
      int32(10),
      int32(22),
    ])
    expect(hex(bytes)).toBe(expected.toString('hex'))
  })

  it('writes canonical int64 strings as integers, other strings as text', () => {
    expect(hex(encodeBinaryJson('42'))).toBe('0554') // zigzag 42 = 84
    expect(hex(encodeBinaryJson('-1'))).toBe('0501')
    expect(encodeBinaryJson('042')[0]).toBe(4)
    expect(encodeBinaryJson('99999999999999999999')[0]).toBe(4) // past int64
  })
})

describe('binaryJsonToText', () => {
  it('round-trips documents, numbers keeping their digits', () => {
    const doc = {
      users: [
        { name: 'alice', roles: ['admin'], age: 30, active: true },
        { name: 'bob', roles: [], age: 25.5, active: false, manager: null },
      ],
      ids: ['1', '-7', '007'],
      ünï: { '😀': 'ok', ﬀ: 1 },
      empty: {},
    }
    expect(JSON.parse(binaryJsonToText(encodeBinaryJson(doc)))).toEqual(doc)
    const big = new LosslessNumber('12345678901234567890')
    expect(binaryJsonToText(encodeBinaryJson({ big }))).toBe('{"big":12345678901234567890}')
  })

  it('detects binary JSON by its first byte, never JSON text', () => {
    expect(isBinaryJson(encodeBinaryJson({}))).toBe(true)
    for (const text of ['{}', ' {}', '\n{}', '\t[]', '"x"', '1', 'null']) {
      expect(isBinaryJson(Buffer.from(text))).toBe(false)
    }
  })

  it('refuses truncated, out-of-range and cyclic documents with a message', () => {
    const good = encodeBinaryJson({ a: [1, 2, 3], b: 'text' })
    for (let cut = 1; cut < good.length; cut++) {
      expect(() => binaryJsonToText(good.subarray(0, cut))).toThrow(BinaryJsonError)
    }
    // An array whose only element points back at itself.
    const cyclic = Buffer.concat([Buffer.from([7, 2]), int32(0)])
    expect(() => binaryJsonToText(cyclic)).toThrow(/nests deeper/)
    expect(() => binaryJsonToText(Buffer.from([0x0b]))).toThrow(/unknown type byte 11/)
    expect(() => binaryJsonToText(Buffer.from([7, 0x7f]))).toThrow(/does not fit/)
    // A number whose text would inject JSON structure.
    const sneaky = Buffer.from([6, 10, ...ascii('1,"x":2')])
    expect(() => binaryJsonToText(sneaky)).toThrow(/not JSON/)
  })

  it('stops a document of shared values that expands past the output cap', () => {
    // 30 arrays, each holding the previous one twice: 2^30 leaves from under 400 bytes.
    const parts: Buffer[] = [Buffer.from([6, 2, ...ascii('1')])]
    let previous = 0
    let at = 3
    for (let i = 0; i < 30; i++) {
      parts.push(Buffer.from([7, 4]), int32(previous), int32(previous))
      previous = at
      at += 10
    }
    // The root must come first: a one-element array pointing at the last level.
    const body = Buffer.concat(parts)
    const root = Buffer.concat([Buffer.from([7, 2]), int32(previous + 6)])
    const shifted = Buffer.concat([root, shift(body, 6)])
    const started = Date.now()
    expect(() => binaryJsonToText(shifted, 1_000_000)).toThrow(/expands to more than/)
    expect(Date.now() - started).toBeLessThan(5000)
  })
})

/** The body with every int32 offset it holds moved by `by` (the bytes are placed after a root). */
function shift(body: Buffer, by: number): Buffer {
  const out = Buffer.from(body)
  for (let at = 3; at < out.length; at += 10) {
    out.writeInt32BE(out.readInt32BE(at + 2) + by, at + 2)
    out.writeInt32BE(out.readInt32BE(at + 6) + by, at + 6)
  }
  return out
}

describe('binaryJsonToValue', () => {
  it('gives what JSON.parse gives for the same text, without aliasing shared values', () => {
    const doc = {
      a: [{ k: 'v' }, { k: 'v' }],
      b: { k: 'v' },
      n: [1.5, -2, 1e21],
      s: ['12', 'x'],
      z: null,
      t: true,
    }
    const raw = encodeBinaryJson(doc)
    const value = binaryJsonToValue(raw) as typeof doc
    expect(value).toEqual(JSON.parse(binaryJsonToText(raw)))
    expect(value.a[0]).not.toBe(value.a[1])
    const proto = binaryJsonToValue(
      encodeBinaryJson(JSON.parse('{"__proto__": {"polluted": true}}')),
    ) as object
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype)
    expect(Object.keys(proto)).toEqual(['__proto__'])
  })

  it('refuses the same hostile documents, and caps the values built', () => {
    const cyclic = Buffer.concat([Buffer.from([7, 2]), int32(0)])
    expect(() => binaryJsonToValue(cyclic)).toThrow(/nests deeper/)
    expect(() => binaryJsonToValue(encodeBinaryJson(Array.from({ length: 100 }, () => 1)), 50)).toThrow(
      /more than 50 values/,
    )
  })
})
