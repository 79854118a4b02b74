import { LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { Decimal, fromJS, parseJSON, toJS, toJSONText, Value } from '../../../../core/rego/values/index.js'

describe('parseJSON', () => {
  it('keeps big integers and long decimals exact', () => {
    const v = parseJSON('{"big": 123456789012345678901234567890, "d": 0.10000000000000000001, "e": 1e400}')
    expect(toJSONText(v)).toBe(
      // An integer written with an exponent prints as written (OPA's json.Number).
      '{"big":123456789012345678901234567890,"d":0.10000000000000000001,"e":1e400}',
    )
    expect((v as ReturnType<typeof Value.record>).get('d')).toBeInstanceOf(Decimal)
  })

  it('takes the last of duplicate keys, as Go does, on both paths', () => {
    expect(toJSONText(parseJSON('{"a": 1, "a": 2}'))).toBe('{"a":2}')
    expect(toJSONText(parseJSON('{"a": 1, "a": 12345678901234567890}'))).toBe('{"a":12345678901234567890}')
  })

  it('reads an escaped surrogate that is not half of a pair as U+FFFD, as Go does, on both paths', () => {
    expect(parseJSON('"\\ud800x"')).toBe('\ufffdx')
    expect(parseJSON('"\\ud83d\\ud83d\\ude00"')).toBe('\ufffd😀')
    expect(toJSONText(parseJSON('{"\\udc00": ["\\ud800", 1.50]}'))).toBe('{"\ufffd":["\ufffd",1.50]}')
  })

  it('rejects invalid JSON with a SyntaxError', () => {
    expect(() => parseJSON('{"a": }')).toThrow(SyntaxError)
    expect(() => parseJSON('{"a": 1234567890123456789012,}')).toThrow()
  })

  it('reads 500 nested arrays, and says so of 100,000 rather than overflowing the stack', () => {
    expect(toJSONText(parseJSON(`${'['.repeat(500)}1${']'.repeat(500)}`))).toBe(
      `${'['.repeat(500)}1${']'.repeat(500)}`,
    )
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    expect(() => parseJSON(deep)).toThrow(new SyntaxError('JSON document nested too deeply'))
    expect(() => parseJSON(`{"n": 12345678901234567890, "a": ${deep}}`)).toThrow(/nested too deeply/)
  })
})

describe('toJSONText and toJS', () => {
  it('writes canonical output: sorted keys, sets as sorted arrays, non-string keys in Rego syntax', () => {
    const v = Value.object([
      ['b', Value.set([3, 1])],
      ['a', null],
      [[1], true],
    ])
    expect(toJSONText(v)).toBe('{"a":null,"b":[1,3],"[1]":true}')
    expect(toJSONText(v, { indent: '  ' })).toBe(
      '{\n  "a": null,\n  "b": [\n    1,\n    3\n  ],\n  "[1]": true\n}',
    )
    expect(toJS(v)).toEqual({ a: null, b: [1, 3], '[1]': true })
  })

  it('escapes HTML characters only when asked (Go json.Marshal does)', () => {
    expect(toJSONText('<a&b>')).toBe('"<a&b>"')
    expect(toJSONText('<a&b>', { escapeHTML: true })).toBe('"\\u003ca\\u0026b\\u003e"')
  })

  it('renders big numbers lossily or as text in toJS', () => {
    const v = parseJSON('[123456789012345678901234567890]')
    expect(toJS(v)).toEqual([1.2345678901234568e29])
    expect(toJS(v, { bigNumbers: 'string' })).toEqual(['123456789012345678901234567890'])
  })

  it('keeps __proto__ as an ordinary key', () => {
    const v = parseJSON('{"__proto__": {"x": 1}}')
    expect(toJSONText(v)).toBe('{"__proto__":{"x":1}}')
    const js = toJS(v) as Record<string, unknown>
    expect(Object.keys(js)).toEqual(['__proto__'])
  })
})

describe('fromJS', () => {
  it('converts JS data, lossless numbers, Maps and Sets', () => {
    const v = fromJS({ a: [1, 2n, new LosslessNumber('99999999999999999999')], s: new Set([2, 1]) })
    expect(toJSONText(v)).toBe('{"a":[1,2,99999999999999999999],"s":[1,2]}')
    expect(() => fromJS(undefined)).toThrow(TypeError)
    expect(() => fromJS(new Date())).toThrow(TypeError)
    expect(() => fromJS(Number.NaN)).toThrow(RangeError)
  })
})

describe('parseJSON path choice', () => {
  it('keeps short exponent forms that overflow or underflow a double', () => {
    expect(toJSONText(parseJSON('[1e400, 1e-400, 0.3333333333333333, 12345678901234567]'))).toBe(
      '[1e400,1e-400,0.3333333333333333,12345678901234567]',
    )
    expect(toJSONText(parseJSON('{"s": "12345678901234567890", "n": 1.5}'))).toBe(
      '{"n":1.5,"s":"12345678901234567890"}',
    )
  })
})
