import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('base64 and base64url', () => {
  it('encodes and decodes strictly', () => {
    expect(json('base64.encode', 'subjects?_d')).toBe('"c3ViamVjdHM/X2Q="')
    expect(json('base64.decode', 'c3ViamVjdHM/X2Q=')).toBe('"subjects?_d"')
    expect(json('base64.encode', 'héllo')).toBe('"aMOpbGxv"')
    expect(json('base64.is_valid', 'aGVsbG8=')).toBe('true')
    expect(json('base64.is_valid', "{'not':'base64'}")).toBe('false')
    expect(json('base64.is_valid', 'aGVsbG8')).toBe('false')
    expectError('eval_builtin_error', 'illegal base64 data at input byte 4', 'base64.decode', 'aGVs*G8=')
    expect(json('base64url.encode', 'subjects?_d')).toBe('"c3ViamVjdHM_X2Q="')
    expect(json('base64url.encode_no_pad', 'hello')).toBe('"aGVsbG8"')
    expect(json('base64url.decode', 'aGVsbG8=')).toBe('"hello"')
    expect(json('base64url.decode', 'aGVsbG8')).toBe('"hello"')
  })
})

describe('hex', () => {
  it('round-trips and reports Go errors', () => {
    expect(json('hex.encode', 'lorem ipsum')).toBe('"6c6f72656d20697073756d"')
    expect(json('hex.decode', '6c6f72656d20697073756d')).toBe('"lorem ipsum"')
    expectError('eval_builtin_error', "invalid byte: U+0067 'g'", 'hex.decode', 'fghijkl')
    expectError('eval_builtin_error', 'odd length hex string', 'hex.decode', 'abc')
  })
})

describe('JSON and YAML', () => {
  it('json.marshal writes canonical JSON with Go escaping; unmarshal is lossless', () => {
    expect(json('json.marshal', [{ foo: new Set([3, 1, 2]) }])).toBe(JSON.stringify('[{"foo":[1,2,3]}]'))
    expect(json('json.marshal', '<&>')).toBe(JSON.stringify('"\\u003c\\u0026\\u003e"'))
    expect(json('json.unmarshal', '{"n": 123456789012345678901234567890}')).toBe(
      '{"n":123456789012345678901234567890}',
    )
    expect(json('json.is_valid', '{"a": [1]}')).toBe('true')
    expect(json('json.is_valid', '{"a": ')).toBe('false')
    expect(json('json.is_valid', 42)).toBe('false')
    expectError('eval_builtin_error', 'json.unmarshal:', 'json.unmarshal', '{x}')
  })

  it('yaml.marshal and unmarshal round-trip; errors read like Go yaml', () => {
    const yaml = json('yaml.marshal', [{ foo: new Set([1, 2, 3]) }])
    expect(JSON.parse(yaml)).toBe('- foo:\n  - 1\n  - 2\n  - 3\n')
    expect(json('yaml.unmarshal', JSON.parse(yaml))).toBe('[{"foo":[1,2,3]}]')
    // An integer past 64 bits is the float64 go-yaml reads, printed as OPA prints it; below 1e21
    // a float64 prints as its digits (Go's JSON encoder and JavaScript draw the line alike).
    expect(json('yaml.unmarshal', 'a: yes\nb: 12345678901234567890123\nc: 1.5')).toBe(
      '{"a":true,"b":1.2345678901234568e+22,"c":1.5}',
    )
    expect(json('yaml.unmarshal', '[123456789012345678901, 1e20, 1.0e21]')).toBe(
      '[123456789012345680000,100000000000000000000,1e+21]',
    )
    expectError(
      'eval_builtin_error',
      "yaml: line 1: did not find expected ',' or ']'",
      'yaml.unmarshal',
      '[1,2,3',
    )
    expect(json('yaml.is_valid', 'foo:\n  - qux: bar\n  - baz: 2')).toBe('true')
    expect(json('yaml.is_valid', 'foo:\n   - qux: bar\n   - baz: {')).toBe('false')
    expect(json('yaml.is_valid', 1)).toBe('false')
    // An anchor used inside its own value is an error, as in Go's YAML library, not endless recursion.
    expectError('eval_builtin_error', 'yaml: anchor value contains itself', 'yaml.unmarshal', 'a: &x [*x]')
    expectError('eval_builtin_error', 'yaml: anchor value contains itself', 'yaml.unmarshal', 'a: &x {b: *x}')
    expect(json('yaml.is_valid', 'a: &x [*x]')).toBe('false')
    expect(json('yaml.unmarshal', 'a: &x [1]\nb: *x')).toBe('{"a":[1],"b":[1]}')
  })

  it('yaml.unmarshal reads numbers as go-yaml v2 does, not as the YAML 1.1 spec', () => {
    // No base 60; Go's base-0 prefixes; 64 bits exact; a float out of range stays text.
    expect(json('yaml.unmarshal', 'a: 1:20\nb: 190:20:30.15\nc: 0o17\nd: 0X1F\ne: 0B11\nf: 0644')).toBe(
      '{"a":"1:20","b":"190:20:30.15","c":15,"d":31,"e":3,"f":420}',
    )
    expect(json('yaml.unmarshal', '[18446744073709551615, 1e400, 0x1FFFFFFFFFFFFFFFF, .e3]')).toBe(
      '[18446744073709551615,"1e400","0x1FFFFFFFFFFFFFFFF",".e3"]',
    )
  })

  it('yaml.unmarshal keeps a timestamp as the text it was, as go-yaml v2 decodes into interface{}', () => {
    expect(json('yaml.unmarshal', 'day: 2001-12-14\nat: 2001-12-14T21:59:43.10-05:00')).toBe(
      '{"at":"2001-12-14T21:59:43.10-05:00","day":"2001-12-14"}',
    )
    expect(json('yaml.unmarshal', '[2001-12-14 21:59:43.10 -5, !!timestamp 2002-01-02]')).toBe(
      '["2001-12-14 21:59:43.10 -5","2002-01-02"]',
    )
  })
})

describe('urlquery', () => {
  it('escapes as Go url.QueryEscape', () => {
    expect(json('urlquery.encode', 'a b&c=d/é~')).toBe('"a+b%26c%3Dd%2F%C3%A9~"')
    expect(json('urlquery.decode', 'a+b%26c%3Dd%2F%C3%A9~')).toBe('"a b&c=d/é~"')
    expectError('eval_builtin_error', 'invalid URL escape "%zz"', 'urlquery.decode', 'x%zz')
  })

  it('encodes and decodes objects', () => {
    expect(json('urlquery.encode_object', { a: 'c=b+1' })).toBe('"a=c%3Db%2B1"')
    expect(json('urlquery.encode_object', { b: ['b+1', 'c+2'], a: new Set(['x']) })).toBe(
      '"a=x&b=b%2B1&b=c%2B2"',
    )
    expect(json('urlquery.decode_object', 'a=value_a1&b=value_b&a=value_a2')).toBe(
      '{"a":["value_a1","value_a2"],"b":["value_b"]}',
    )
    expect(json('urlquery.decode_object', 'a=value_a1&b')).toBe('{"a":["value_a1"],"b":[""]}')
    expect(json('urlquery.decode_object', '')).toBe('{}')
  })
})
