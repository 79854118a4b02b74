import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../../core/bundle/canonical-json.js'
import { BundleError } from '../../../core/bundle/errors.js'

const bytes = (text: string) => new TextEncoder().encode(text)
const canon = (input: string | Uint8Array) =>
  Buffer.from(canonicalJson(typeof input === 'string' ? bytes(input) : input)).toString('utf8')

describe('canonicalJson', () => {
  it('drops whitespace, sorts keys and keeps number lexemes (the issue example)', () => {
    expect(canon('{ "b": [1, 2.50], "a": "x" }')).toBe('{"a":"x","b":[1,2.50]}')
  })

  it('keeps every number exactly as written', () => {
    expect(canon('[1.0, 1e3, -0, 1E+2, 0.000001, 123456789012345678901234567890, -1.5e-7]')).toBe(
      '[1.0,1e3,-0,1E+2,0.000001,123456789012345678901234567890,-1.5e-7]',
    )
  })

  it('sorts keys by UTF-8 bytes, not UTF-16 units', () => {
    // UTF-16 order would put the emoji (D83D) before U+FFFF; UTF-8 order puts it last (F0 > EF).
    const text = '{"😀": 1, "\uffff": 2, "é": 3, "z": 4, "Z": 5, "a": 6}'
    expect(canon(text)).toBe('{"Z":5,"a":6,"z":4,"é":3,"\uffff":2,"😀":1}')
  })

  it('sorts escaped keys by their decoded bytes', () => {
    // '"' (0x22) sorts before '#' (0x23) once decoded, though '\\' (0x5c) would sort after it.
    expect(canon('{"a#": 1, "a\\"": 2}')).toBe('{"a\\"":2,"a#":1}')
  })

  it('escapes strings as Go does with HTML escaping off', () => {
    expect(canon('["\\u0001\\b\\f\\n\\r\\t\\"\\\\\\/", "<a>&amp;", "\\u007f"]')).toBe(
      '["\\u0001\\b\\f\\n\\r\\t\\"\\\\/","<a>&amp;","\u007f"]',
    )
  })

  it('escapes U+2028 and U+2029 whether written raw or escaped', () => {
    expect(canon('["a\u2028b", "\\u2029"]')).toBe('["a\\u2028b","\\u2029"]')
  })

  it('writes non-ASCII as raw UTF-8 and joins surrogate-pair escapes', () => {
    expect(canon('["\\u00e9", "\\ud83d\\ude00", "ü"]')).toBe('["é","😀","ü"]')
  })

  it('replaces lone surrogate escapes and invalid UTF-8 bytes with U+FFFD, byte by byte', () => {
    expect(canon('["\\ud800x", "\\udc00", "\\ud800\\u0041"]')).toBe('["\ufffdx","\ufffd","\ufffdA"]')
    // E2 82 is a truncated 3-byte sequence: Go replaces each byte on its own.
    const raw = Buffer.concat([
      bytes('["a'),
      Buffer.from([0xe2, 0x82]),
      bytes('b", "'),
      Buffer.from([0xff]),
      bytes('"]'),
    ])
    expect(canon(raw)).toBe('["a\ufffd\ufffdb","\ufffd"]')
  })

  it('keeps the last of duplicate keys, as a Go map does', () => {
    expect(canon('{"a": 1, "b": 2, "a": 3}')).toBe('{"a":3,"b":2}')
  })

  it('handles nesting, empty containers and literals', () => {
    expect(canon(' { "x" : { "z" : [ ] , "y" : { } } , "t" : [true, false, null] } ')).toBe(
      '{"t":[true,false,null],"x":{"y":{},"z":[]}}',
    )
  })

  it.each([
    ['trailing comma', '[1,]'],
    ['leading zero', '[01]'],
    ['bare decimal point', '[1.]'],
    ['NaN', '[NaN]'],
    ['single quotes', "{'a': 1}"],
    ['trailing data', '{} {}'],
    ['raw control character', '["a\u0001"]'],
    ['bad escape', '["\\x"]'],
    ['short unicode escape', '["\\u12"]'],
    ['unterminated', '{"a": "b'],
    ['empty', ''],
  ])('refuses %s with a BundleError naming the file', (_name, text) => {
    expect(() => canonicalJson(bytes(text), 'data file x/data.json')).toThrow(BundleError)
    expect(() => canonicalJson(bytes(text), 'data file x/data.json')).toThrow(/data file x\/data\.json/)
  })

  it('refuses nesting deeper than the limit instead of overflowing the stack', () => {
    expect(() => canonicalJson(bytes('['.repeat(100_000)))).toThrow(/too deep/)
  })

  it('agrees with JSON.parse on the value, whatever the spacing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const compact = canon(JSON.stringify(value))
        expect(canon(JSON.stringify(value, null, 2))).toBe(compact)
        expect(JSON.parse(compact)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
      { numRuns: 200 },
    )
  })
})
