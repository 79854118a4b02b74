import { describe, expect, it } from 'vitest'
import { Value } from '../../../../core/rego/values/index.js'
import { expectError, json } from './helpers.js'

const S = (...xs: unknown[]) => new Set(xs)

describe('json.filter and json.remove', () => {
  it('filter keeps the listed paths', () => {
    const doc = { a: { b: { c: 7, d: 8 } }, e: 9 }
    expect(json('json.filter', doc, S('a/b/c'))).toBe('{"a":{"b":{"c":7}}}')
    expect(json('json.filter', doc, ['a/b/c', 'e'])).toBe('{"a":{"b":{"c":7}},"e":9}')
    expect(json('json.filter', { a: { b: 7 } }, S('a', 'a/b'))).toBe('{"a":{"b":7}}')
    expect(json('json.filter', { a: [{ b: 7, c: 8 }, { d: 9 }] }, S('a/0/b', 'a/1'))).toBe(
      '{"a":[{"b":7},{"d":9}]}',
    )
    expect(json('json.filter', doc, S(['a', 'b', 'c'], ['e']))).toBe('{"a":{"b":{"c":7}},"e":9}')
    expect(json('json.filter', {}, S('a/b'))).toBe('{}')
    expect(json('json.filter', { 'a/b': 1 }, ['/a~1b'])).toBe('{"a/b":1}')
  })

  it('remove drops the listed paths', () => {
    const doc = { a: { b: { c: 7, d: 8 } }, e: 9 }
    expect(json('json.remove', doc, S('a/b/c'))).toBe('{"a":{"b":{"d":8}},"e":9}')
    expect(json('json.remove', { a: { b: 7 }, c: 1 }, S('a', 'c'))).toBe('{}')
    expect(json('json.remove', { a: { b: 7 }, c: 1 }, S('a/b', 'c'))).toBe('{"a":{}}')
    expect(json('json.remove', { a: [{ 1: ['b', 'c', 'd'] }, { x: 'y' }] }, S('a/0/1/2'))).toBe(
      '{"a":[{"1":["b","c"]},{"x":"y"}]}',
    )
    expect(json('json.remove', { a: 7 }, S())).toBe('{"a":7}')
  })

  it('skip empty paths, which name nothing (not the whole document)', () => {
    const doc = { a: { b: 7, c: 8 }, d: 9 }
    expect(json('json.filter', doc, [''])).toBe('{}')
    expect(json('json.filter', doc, ['a/b', '', []])).toBe('{"a":{"b":7}}')
    expect(json('json.remove', doc, ['', []])).toBe('{"a":{"b":7,"c":8},"d":9}')
  })

  it('report operand errors with OPA wording', () => {
    expectError(
      'eval_type_error',
      'json.remove: operand 1 must be object but got number',
      'json.remove',
      22,
      S('a'),
    )
    expectError(
      'eval_type_error',
      'json.remove: operand 2 must be one of {set, array} but got string',
      'json.remove',
      {},
      'foo',
    )
    expectError(
      'eval_type_error',
      'json.remove: operand 2 must be one of {set, array} containing string paths or array of path segments but got object',
      'json.remove',
      {},
      ['a', { x: 1 }],
    )
    expectError(
      'eval_type_error',
      'containing string paths or array of path segments but got number',
      'json.filter',
      {},
      ['a', 1],
    )
  })
})

describe('json.patch', () => {
  const p = (...ops: unknown[]) => ops
  it('applies RFC 6902 operations', () => {
    expect(json('json.patch', { foo: 'bar' }, p({ op: 'add', path: '/baz', value: 'qux' }))).toBe(
      '{"baz":"qux","foo":"bar"}',
    )
    expect(json('json.patch', { foo: ['bar', 'baz'] }, p({ op: 'add', path: '/foo/1', value: 'qux' }))).toBe(
      '{"foo":["bar","qux","baz"]}',
    )
    expect(json('json.patch', { foo: ['bar'] }, p({ op: 'add', path: '/foo/-', value: 'x' }))).toBe(
      '{"foo":["bar","x"]}',
    )
    expect(json('json.patch', { foo: ['bar', 'qux', 'baz'] }, p({ op: 'remove', path: '/foo/1' }))).toBe(
      '{"foo":["bar","baz"]}',
    )
    expect(json('json.patch', { baz: 'qux' }, p({ op: 'replace', path: '/baz', value: 'boo' }))).toBe(
      '{"baz":"boo"}',
    )
    expect(
      json(
        'json.patch',
        { foo: { waldo: 'fred' }, qux: {} },
        p({ op: 'move', from: '/foo/waldo', path: '/qux/thud' }),
      ),
    ).toBe('{"foo":{},"qux":{"thud":"fred"}}')
    expect(json('json.patch', { a: [1] }, p({ op: 'copy', from: '/a', path: '/b' }))).toBe(
      '{"a":[1],"b":[1]}',
    )
    expect(json('json.patch', { a: 1 }, p({ op: 'test', path: '/a', value: 1 }))).toBe('{"a":1}')
    expect(json('json.patch', 'foo', p({ op: 'replace', path: '', value: 'bar' }))).toBe('"bar"')
    expect(json('json.patch', {}, p())).toBe('{}')
    expect(json('json.patch', { foo: S('a', 'b', 'c') }, p({ op: 'add', path: 'foo/d', value: 'd' }))).toBe(
      '{"foo":["a","b","c","d"]}',
    )
    expect(json('json.patch', Value.set([[1]]), p({ op: 'add', path: [[1], 1], value: 2 }))).toBe('[[1,2]]')
  })

  // OPA's builtinJSONPatch returns no error for a patch that cannot apply: the call is undefined.
  it('is undefined on missing parents, bad indexes, failed tests', () => {
    for (const ops of [
      p({ op: 'add', path: '/a/b', value: 1 }),
      p({ op: 'add', path: '/foo/5', value: 1 }),
      p({ op: 'remove', path: '/nope' }),
      p({ op: 'add', path: '/foo/01', value: 1 }),
      p({ op: 'test', path: '/foo', value: 'x' }),
      p({ op: 'move', from: '/foo', path: '/foo/0' }),
      p({ op: 'bogus', path: '/foo' }),
      p({ op: 'add', path: '/foo' }),
    ]) {
      expect(json('json.patch', { foo: ['a'] }, ops), JSON.stringify(ops)).toBe('undefined')
    }
    expect(json('json.patch', { foo: S('a') }, p({ op: 'add', path: 'foo/d', value: 'e' }))).toBe('undefined')
    expect(json('json.patch', { foo: ['a'] }, [1])).toBe('undefined')
  })
})

describe('json.marshal_with_options', () => {
  const xs = [1234567890, 2000000, 1000000000]
  it('formats like Go MarshalIndent with OPA prefixing', () => {
    expect(json('json.marshal_with_options', xs, { indent: '  ' })).toBe(
      JSON.stringify('[\n  1234567890,\n  2000000,\n  1000000000\n]'),
    )
    expect(json('json.marshal_with_options', xs, {})).toBe(JSON.stringify('[1234567890,2000000,1000000000]'))
    expect(json('json.marshal_with_options', xs, { pretty: true })).toBe(
      JSON.stringify('[\n\t1234567890,\n\t2000000,\n\t1000000000\n]'),
    )
    expect(json('json.marshal_with_options', xs, { prefix: 'JSON => ' })).toBe(
      JSON.stringify('JSON => [\nJSON => \t1234567890,\nJSON => \t2000000,\nJSON => \t1000000000\nJSON => ]'),
    )
    expect(json('json.marshal_with_options', [], { indent: '    ', prefix: '---' })).toBe(
      JSON.stringify('---[]'),
    )
    expectError(
      'eval_type_error',
      'object contained unknown key "include_winning_lottery_numbers"',
      'json.marshal_with_options',
      [],
      { include_winning_lottery_numbers: true },
    )
  })
})

describe('JSON Schema', () => {
  const schema = { properties: { id: { type: 'integer' } }, required: ['id'] }
  it('match_schema reports gojsonschema errors', () => {
    expect(json('json.match_schema', { id: 5 }, schema)).toBe('[true,[]]')
    expect(json('json.match_schema', '{"id": 5}', JSON.stringify(schema))).toBe('[true,[]]')
    expect(json('json.match_schema', { id: 'foo' }, schema)).toBe(
      '[false,[{"desc":"Invalid type. Expected: integer, given: string","error":"id: Invalid type. Expected: integer, given: string","field":"id","type":"invalid_type"}]]',
    )
    expect(json('json.match_schema', {}, schema)).toBe(
      '[false,[{"desc":"id is required","error":"(Root): id is required","field":"(Root)","type":"required"}]]',
    )
    expectError(
      'eval_builtin_error',
      'json.match_schema: has a primitive type that is NOT VALID -- given: /unknown/ Expected valid values are:[array boolean integer number null object string]',
      'json.match_schema',
      { id: 'foo' },
      { properties: { id: { type: 'unknown' } } },
    )
  })

  it('covers common keywords', () => {
    const s = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
        tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true, maxItems: 2 },
        n: { type: 'number', minimum: 1, exclusiveMaximum: 10, multipleOf: 0.5 },
        ref: { $ref: '#/definitions/pos' },
      },
      additionalProperties: false,
      definitions: { pos: { type: 'integer', minimum: 0 } },
    }
    expect(json('json.match_schema', { name: 'ab', tags: ['a'], n: 2.5, ref: 1 }, s)).toBe('[true,[]]')
    const bad = JSON.parse(
      json('json.match_schema', { name: 'A', tags: ['a', 'a', 'c'], n: 10.2, ref: -1, extra: 1 }, s),
    )
    expect(bad[0]).toBe(false)
    expect(bad[1].map((e: { type: string }) => e.type).sort()).toEqual([
      'additional_property_not_allowed',
      'array_max_items',
      'enum',
      'multiple_of',
      'number_gte',
      'number_lt',
      'pattern',
      'string_gte',
      'unique',
    ])
  })

  // Each [format, value, valid]: whether json.match_schema accepts `value` under `format`.
  function expectFormatVerdicts(cases: [string, string, boolean][]): void {
    for (const [format, value, ok] of cases) {
      expect([
        format,
        value,
        JSON.parse(json('json.match_schema', { v: value }, { properties: { v: { format } } }))[0],
      ]).toEqual([format, value, ok])
    }
  }

  // gojsonschema's FormatCheckers: time.Parse layouts, net.ParseIP, a hostname and a UUID pattern,
  // regexp.Compile, JSON pointers; a failed check is a `format` error after the pattern's.
  it('checks formats as gojsonschema does', () => {
    const cases: [string, string, boolean][] = [
      ['date', '2023-01-02', true],
      ['date', '2023-02-30', false],
      ['time', '12:00:00Z', true],
      ['time', '25:00:00', false],
      ['date-time', '2023-11-14T22:13:20.5Z', true],
      ['date-time', '2023-11-14', true],
      ['date-time', 'x', false],
      ['hostname', 'a-b.c', true],
      ['hostname', '-a', false],
      ['ipv4', '10.0.0.1', true],
      ['ipv4', '::1', false],
      ['ipv6', '::1', true],
      ['uuid', '6BA7B810-9dad-11d1-80b4-00c04fd430c8', true],
      ['uuid', '6ba7b810', false],
      ['regex', '(', false],
      ['json-pointer', '/a~1b', true],
      ['json-pointer', 'a', false],
      ['relative-json-pointer', '0#', true],
      ['no-such-format', 'x', true],
    ]
    expectFormatVerdicts(cases)
    const errors = JSON.parse(
      json(
        'json.match_schema',
        { c: 'yz' },
        { properties: { c: { type: 'string', format: 'date', pattern: '^x' } } },
      ),
    )[1]
    expect(errors.map((e: { error: string; type: string }) => [e.type, e.error])).toEqual([
      ['pattern', "c: Does not match pattern '^x'"],
      ['format', "c: Does not match format 'date'"],
    ])
  })

  // `email` is net/mail.ParseAddress: one mailbox, with or without a display name, comments and
  // quoted local parts allowed; the URI formats are net/url.Parse (a scheme for `uri`, no
  // backslash, balanced `{}` in a template's path).
  it('checks email and URI formats as net/mail and net/url parse them', () => {
    const cases: [string, string, boolean][] = [
      ['email', 'alice@example.com', true],
      ['email', 'Alice Smith <alice@example.com>', true],
      ['email', '"Smith, Alice" <alice@example.com>', true],
      ['email', 'alice@example.com (Alice)', true],
      ['email', '"a b"@example.com', true],
      ['email', 'alice@[10.0.0.1]', true],
      ['email', 'team: alice@example.com;', true],
      ['email', 'jörg@bücher.example', true],
      ['email', 'alice', false],
      ['email', 'alice@', false],
      ['email', '@example.com', false],
      ['email', 'a..b@example.com', false],
      ['email', '.a@example.com', false],
      ['email', 'alice@example.com, bob@example.com', false],
      ['email', 'Alice <alice@example.com', false],
      ['email', 'alice@[not-an-ip]', false],
      ['email', 'team: ;', false],
      ['email', 'alice@example.com (unclosed', false],
      ['email', '""@example.com', false],
      ['idn-email', 'x@y', true],
      ['uri', 'https://example.com/a?b#c', true],
      ['uri', 'mailto:alice@example.com', true],
      ['uri', 'HTTP://user:p%20w@example.com:8080/x', true],
      ['uri', 'http://[::1]:80/', true],
      ['uri', '/relative/path', false],
      ['uri', 'http://exa mple.com/', false],
      ['uri', 'http://example.com:8o/', false],
      ['uri', 'http://example.com/%zz', false],
      ['uri', 'http://example.com/a#%zz', false],
      ['uri', 'http://[::1/', false],
      ['uri', 'http://ex%41mple.com/', false],
      ['uri', 'http://a\\b.com/', false],
      ['uri', ':foo', false],
      ['uri', 'http://exa\tmple.com/', false],
      ['iri', 'http://bücher.example/', true],
      ['uri-reference', '/relative/path?q', true],
      ['uri-reference', '', true],
      ['uri-reference', 'a:b', true],
      ['uri-reference', '1a:b', false],
      ['uri-reference', 'x\\y', false],
      ['iri-reference', '../up', true],
      ['uri-template', 'http://example.com/{id}/x', true],
      ['uri-template', '/a/{b', false],
      ['uri-template', '/a}/b', true],
      ['uri-template', 'mailto:{x', true],
    ]
    expectFormatVerdicts(cases)
  })

  it('verify_schema answers [valid, error]', () => {
    expect(json('json.verify_schema', '{"type": "boolean"}')).toBe('[true,null]')
    expect(json('json.verify_schema', { type: 'unknown_type' })).toBe(
      '[false,"jsonschema: has a primitive type that is NOT VALID -- given: /unknown_type/ Expected valid values are:[array boolean integer number null object string]"]',
    )
    expect(json('json.verify_schema', { type: 'string', minLength: -1 })).toBe(
      '[false,"jsonschema: minLength must be a non-negative integer"]',
    )
  })

  // OPA loads array operands (open-policy-agent/opa#8264); gojsonschema's draft detection
  // (internal/gojsonschema/draft.go, parseSchemaURL) then refuses a root that is not an object
  // or a boolean.
  it('verify_schema refuses a root that is not an object or a boolean', () => {
    expect(json('json.verify_schema', ['something'])).toBe('[false,"jsonschema: schema is invalid"]')
    expect(json('json.verify_schema', '5')).toBe('[false,"jsonschema: schema is invalid"]')
    expect(json('json.verify_schema', 'true')).toBe('[true,null]')
  })
})
