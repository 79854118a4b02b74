import { isLosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { decodeContent, formatOf, itemCount } from '../../../service/datasources/decode.js'

const bytes = (text: string) => new TextEncoder().encode(text)

describe('formatOf', () => {
  it('follows the media type, then the extension, then JSON', () => {
    expect(formatOf('application/yaml; charset=utf-8')).toBe('yaml')
    expect(formatOf('application/atom+xml')).toBe('xml')
    expect(formatOf('application/json', 'x.yaml')).toBe('json')
    expect(formatOf('application/octet-stream', '/data/users.yml')).toBe('yaml')
    expect(formatOf(undefined, 'feed.XML')).toBe('xml')
    expect(formatOf(undefined, '/api/users')).toBe('json')
  })
})

describe('decodeContent', () => {
  it('keeps every digit of a large JSON integer', () => {
    const value = decodeContent(bytes('{"id": 12345678901234567890}'), 'json', 'u', 100) as { id: unknown }
    expect(isLosslessNumber(value.id)).toBe(true)
  })

  it('names the place of a JSON or YAML error', () => {
    expect(() => decodeContent(bytes('{\n "a": [1,\n}'), 'json', 'https://h/x', 100)).toThrow(
      /^decode error: JSON of https:\/\/h\/x: .*line 3, column 1/,
    )
    expect(() => decodeContent(bytes('a: 1\na: 2\n'), 'yaml', 'f.yaml', 100)).toThrow(
      /^decode error: YAML of f\.yaml: .*line 2, column 1/,
    )
  })

  it('reads XML with attributes as strings and refuses entity declarations', () => {
    expect(decodeContent(bytes('<a x="01"><b>02</b></a>'), 'xml', 'f', 100)).toEqual({
      a: { b: '02', '@_x': '01' },
    })
    expect(() =>
      decodeContent(
        bytes('<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>'),
        'xml',
        'f',
        100,
      ),
    ).toThrow('decode error: XML of f: entity declarations are refused')
    expect(() => decodeContent(bytes('<a><b></a>'), 'xml', 'f', 100)).toThrow(
      /^decode error: XML of f: .* at line 1, column \d+/,
    )
  })

  it('refuses text that is not UTF-8 and YAML past its node limit', () => {
    expect(() => decodeContent(new Uint8Array([0xff, 0xfe]), 'json', 'f', 100)).toThrow('not UTF-8')
    expect(() => decodeContent(bytes('[1, 2, 3, 4, 5]'), 'yaml', 'f', 3)).toThrow(/decode error: YAML of f/)
  })

  it('counts items', () => {
    expect(itemCount([1, 2])).toBe(2)
    expect(itemCount({ a: 1 })).toBe(1)
    expect(itemCount('x')).toBe(1)
  })
})
