import { describe, expect, it } from 'vitest'
import { boundX, type ErrorCase, expectErrors, withInput } from './eval-errors.js'

const B = 'eval_builtin_error' as const
const T = 'eval_type_error' as const
const call = (query: string, message: string): ErrorCase => ({ query, code: B, message })

// OPA's v1/topdown/encoding.go returns Go's own errors: encoding/base64's CorruptInputError,
// encoding/hex's, net/url's EscapeError, and encoding/json's Decoder errors (util.UnmarshalJSON).
describe('base64, hex and urlquery errors', () => {
  it('words them as Go does, with Go byte offsets', () => {
    expectErrors([
      call('x := base64.decode("a")', 'base64.decode: illegal base64 data at input byte 0'),
      call('x := base64.decode("a$==")', 'base64.decode: illegal base64 data at input byte 1'),
      call('x := base64.decode("YQ=")', 'base64.decode: illegal base64 data at input byte 3'),
      call('x := base64.decode("YQ=x")', 'base64.decode: illegal base64 data at input byte 2'),
      call('x := base64.decode("YWI=YWI=")', 'base64.decode: illegal base64 data at input byte 4'),
      call('x := base64url.decode("a")', 'base64url.decode: illegal base64url string: a'),
      call('x := base64url.decode("a$")', 'base64url.decode: illegal base64 data at input byte 1'),
      call('x := base64url.decode("a=")', 'base64url.decode: illegal base64 data at input byte 1'),
      call('x := hex.decode("abc")', 'hex.decode: encoding/hex: odd length hex string'),
      call('x := hex.decode("zz")', "hex.decode: encoding/hex: invalid byte: U+007A 'z'"),
      call('x := urlquery.decode("%zz")', 'urlquery.decode: invalid URL escape "%zz"'),
      call('x := urlquery.decode_object("a=%zz")', 'urlquery.decode_object: invalid URL escape "%zz"'),
      call(
        'x := urlquery.decode_object("a=1;b=2")',
        'urlquery.decode_object: invalid semicolon separator in query',
      ),
      withInput(
        'x := urlquery.encode_object(input)',
        '{"a": [1]}',
        T,
        'urlquery.encode_object: operand 1 values must be string, array[string], or set[string]',
      ),
    ])
  })

  it('skips line breaks inside base64 as Go does', () => {
    expect(boundX('x := base64.decode("YQ\\r\\n==\\n")')).toBe('"a"')
    expect(boundX('x := base64url.decode("YWI")')).toBe('"ab"')
  })
})

describe('json.unmarshal errors', () => {
  it('reports Go Decoder errors', () => {
    const unmarshal = (text: string, message: string) =>
      call(`x := json.unmarshal(${JSON.stringify(text)})`, `json.unmarshal: ${message}`)
    expectErrors([
      unmarshal('', 'EOF'),
      unmarshal('  ', 'EOF'),
      unmarshal('{', 'unexpected EOF'),
      unmarshal('tru', 'unexpected EOF'),
      unmarshal('x', "invalid character 'x' looking for beginning of value"),
      unmarshal("'a'", "invalid character '\\'' looking for beginning of value"),
      unmarshal('é', "invalid character 'Ã' looking for beginning of value"),
      unmarshal('{"a":}', "invalid character '}' looking for beginning of value"),
      unmarshal('[1,]', "invalid character ']' looking for beginning of value"),
      unmarshal('{1}', "invalid character '1' looking for beginning of object key string"),
      unmarshal('{"a" 1}', "invalid character '1' after object key"),
      unmarshal('{"a":1 2}', "invalid character '2' after object key:value pair"),
      unmarshal('[1 2]', "invalid character '2' after array element"),
      unmarshal('"\\x"', "invalid character 'x' in string escape code"),
      unmarshal('"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"),
      unmarshal('"a\nb"', "invalid character '\\n' in string literal"),
      unmarshal('trux', "invalid character 'x' in literal true (expecting 'e')"),
      unmarshal('-x', "invalid character 'x' in numeric literal"),
      unmarshal('1.x', "invalid character 'x' after decimal point in numeric literal"),
      unmarshal('1ex', "invalid character 'x' in exponent of numeric literal"),
      // After the first value OPA reads one more token and prints it with %s.
      unmarshal('1 2', "error: invalid character '2' after top-level value"),
      unmarshal('01', "error: invalid character '1' after top-level value"),
      unmarshal('1 [', "error: invalid character '[' after top-level value"),
      unmarshal('1 "ab"', "error: invalid character 'ab' after top-level value"),
      unmarshal('1 true', "error: invalid character '%!s(bool=true)' after top-level value"),
      unmarshal('1 null', "error: invalid character '%!s(<nil>)' after top-level value"),
      unmarshal('1 ]', "invalid character ']' looking for beginning of value"),
      unmarshal('1 x', "invalid character 'x' looking for beginning of value"),
    ])
  })
})

describe('json.marshal_with_options errors', () => {
  it('words option errors as OPA does', () => {
    const marshal = (opts: string, message: string) =>
      withInput('x := json.marshal_with_options({}, input)', opts, T, `json.marshal_with_options: ${message}`)
    expectErrors([
      marshal('{"pretty": 1}', 'operand 2 key "pretty" failed cast to bool'),
      marshal(
        '{"indent": 1}',
        'operand 2 key "indent" failed cast to string: operand 0 must be string but got number',
      ),
      marshal(
        '{"indent": "x", "prefix": 1}',
        'operand 2 key "prefix" failed cast to string: operand 1 must be string but got number',
      ),
      marshal('{"a": 1}', 'operand 2 object contained unknown key "a"'),
    ])
  })
})

// OPA's yaml.unmarshal is sigs.k8s.io/yaml's YAMLToJSON over go-yaml v2, which returns go-yaml's
// error as it is: its decoder's (an unknown alias, no line), and libyaml's scanner and parser
// problems placed by go-yaml v2's parser.fail: a scanner error names its 1-based line, a parser
// error the 0-based one, and a problem on the first line names none.
describe('yaml.unmarshal errors', () => {
  const yaml = (text: string, message: string): ErrorCase => ({
    query: `x := yaml.unmarshal(${JSON.stringify(text)})`,
    code: 'eval_builtin_error',
    message: `yaml.unmarshal: yaml: ${message}`,
  })

  it('words the go-yaml errors regent can tell apart as go-yaml does, placed as go-yaml places them', () => {
    expectErrors([
      yaml('a: &x 1\nb: *y', "unknown anchor 'y' referenced"),
      // Scanner problems: no line on the first one, else the line itself.
      yaml('a: b: c', 'mapping values are not allowed in this context'),
      yaml('x: 1\na: b: c', 'line 2: mapping values are not allowed in this context'),
      yaml('key: value\n  bad: 1', 'line 2: mapping values are not allowed in this context'),
      yaml('\t- a', 'found character that cannot start any token'),
      yaml('a: 1\n\tb: 2', 'line 2: found character that cannot start any token'),
      yaml('@foo', 'found character that cannot start any token'),
      yaml('a: 1\nb: `x', 'line 2: found character that cannot start any token'),
      yaml("a: 'x", 'found unexpected end of stream'),
      yaml('a: 1\nb: "x\n', 'line 3: found unexpected end of stream'),
      // Parser problems: the line before the offending one (go-yaml's 0-based mark); the end of a text
      // without a final line break is a line of its own.
      yaml('a: [1, 2', "line 1: did not find expected ',' or ']'"),
      yaml('a: {b: 1', "line 1: did not find expected ',' or '}'"),
      yaml('a: [1,\n2', "line 2: did not find expected ',' or ']'"),
      yaml('a: [1, 2\n', "line 1: did not find expected ',' or ']'"),
      yaml('- a\nb: 1', 'line 1: did not find expected <document start>'),
      yaml('[1, 2]]', 'did not find expected <document start>'),
      yaml('a: [1, 2]\n- 3', 'line 1: did not find expected key'),
      yaml('a:\n- 1\n b: 2', 'line 2: did not find expected key'),
    ])
  })

  it('keeps the last value of a repeated key, as go-yaml v2 outside its strict mode', () => {
    expect(boundX('x := yaml.unmarshal("a: 1\\nb: 2\\na: 3")')).toBe('{"a":3,"b":2}')
  })
})
