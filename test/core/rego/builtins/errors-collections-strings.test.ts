import { describe, expect, it } from 'vitest'
import { boundX, type ErrorCase, expectErrors, withInput } from './eval-errors.js'

const B = 'eval_builtin_error' as const
const T = 'eval_type_error' as const
const call = (query: string, message: string): ErrorCase => ({ query, code: B, message })

// OPA's v1/topdown/reachable.go: the initial vertices are checked against "{array, set}" as
// one expected type, so the message has no "one of".
describe('graph.* errors', () => {
  it('words them as OPA does', () => {
    expectErrors([
      withInput(
        'x := graph.reachable(input, [])',
        '"a"',
        T,
        'graph.reachable: operand 1 must be object but got string',
      ),
      withInput(
        'x := graph.reachable({}, input)',
        '1',
        T,
        'graph.reachable: operand 2 must be {array, set} but got number',
      ),
      withInput(
        'x := graph.reachable_paths(input, [])',
        '[]',
        T,
        'graph.reachable_paths: operand 1 must be object but got array',
      ),
      withInput(
        'x := graph.reachable_paths({}, input)',
        '"a"',
        T,
        'graph.reachable_paths: operand 2 must be {array, set} but got string',
      ),
    ])
  })
})

// OPA's v1/topdown/uuid.go: uuid.rfc4122 keys its cache by the argument's hash and never checks
// its type; uuid.parse is undefined for text that is not a UUID.
describe('uuid.* errors', () => {
  it('checks only what OPA checks', () => {
    expectErrors([
      withInput('x := uuid.parse(input)', '1', T, 'uuid.parse: operand 1 must be string but got number'),
    ])
    expect(boundX('x := uuid.rfc4122(input)', '1')).toMatch(
      /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/,
    )
    expect(boundX('x := uuid.parse("nope")')).toBeUndefined()
  })
})

// OPA's v1/topdown/strings.go and builtins/builtins.go (NewOperandTypeErr, NewOperandElementErr,
// NewOperandEnumErr).
describe('strings.* errors', () => {
  it('words them as OPA does', () => {
    expectErrors([
      call('x := indexof("abc", "")', 'indexof: empty search character'),
      call('x := indexof_n("abc", "")', 'indexof_n: empty search character'),
      call('x := substring("abc", -1, 2)', 'substring: negative offset'),
      withInput(
        'x := substring("abc", input, 1)',
        '1.5',
        T,
        'substring: operand 2 must be integer number but got floating-point number',
      ),
      {
        query: 'x := format_int(10, 3)',
        code: T,
        message: 'format_int: operand 2 must be one of {2, 8, 10, 16}',
      },
      withInput(
        'x := format_int(10, input)',
        '"2"',
        T,
        'format_int: operand 2 must be number but got string',
      ),
      withInput(
        'x := concat(",", input)',
        '1',
        T,
        'concat: operand 2 must be one of {set, array} but got number',
      ),
      withInput(
        'x := concat(",", input)',
        '["a", 1]',
        T,
        'concat: operand 2 must be array of strings but got array containing number',
      ),
      withInput(
        'x := strings.replace_n(input, "s")',
        '{"a": 1}',
        T,
        'strings.replace_n: operand 1 non-string value found in pattern object',
      ),
      withInput(
        'x := strings.replace_n(input, "s")',
        '[1]',
        T,
        'strings.replace_n: operand 1 must be object but got array',
      ),
      withInput(
        'x := strings.replace_n({"a": "b"}, input)',
        '1',
        T,
        'strings.replace_n: operand 2 must be string but got number',
      ),
      withInput(
        'x := strings.any_prefix_match(input, "a")',
        '1',
        T,
        'strings.any_prefix_match: operand 1 must be one of {string, set, array} but got number',
      ),
      withInput(
        'x := strings.any_prefix_match(input, "a")',
        '[1]',
        T,
        'strings.any_prefix_match: operand 1 must be array of strings but got array containing number',
      ),
      withInput(
        'x := strings.any_suffix_match("a", input)',
        '{"a": 1}',
        T,
        'strings.any_suffix_match: operand 2 must be one of {string, set, array} but got object',
      ),
      withInput('x := sprintf(input, [])', '1', T, 'sprintf: operand 1 must be string but got number'),
      withInput('x := sprintf("%d", input)', '1', T, 'sprintf: operand 2 must be array but got number'),
      withInput(
        'x := strings.reverse(input)',
        'null',
        T,
        'strings.reverse: operand 1 must be string but got null',
      ),
    ])
  })
})

// OPA's v1/topdown/array.go and object.go.
describe('array.* and object.* errors', () => {
  it('words them as OPA does', () => {
    expectErrors([
      withInput(
        'x := array.slice(input, 1, 2)',
        '1',
        T,
        'array.slice: operand 1 must be array but got number',
      ),
      withInput(
        'x := array.slice([1], input, 2)',
        '1.5',
        T,
        'array.slice: operand 2 must be integer number but got floating-point number',
      ),
      withInput(
        'x := array.slice([1], 1, input)',
        '"a"',
        T,
        'array.slice: operand 3 must be number but got string',
      ),
      withInput(
        'x := array.concat([], input)',
        '{}',
        T,
        'array.concat: operand 2 must be array but got object',
      ),
      withInput('x := array.reverse(input)', '1', T, 'array.reverse: operand 1 must be array but got number'),
      withInput(
        'x := object.get(input, "a", 1)',
        '1',
        T,
        'object.get: operand 1 must be object but got number',
      ),
      withInput('x := object.keys(input)', '[]', T, 'object.keys: operand 1 must be object but got array'),
      withInput(
        'x := object.remove({}, input)',
        '1',
        T,
        'object.remove: operand 2 must be one of {object, set, array} but got number',
      ),
      withInput(
        'x := object.filter({}, input)',
        '"a"',
        T,
        'object.filter: operand 2 must be one of {object, set, array} but got string',
      ),
      withInput(
        'x := object.union(input, {})',
        '1',
        T,
        'object.union: operand 1 must be object but got number',
      ),
      withInput(
        'x := object.union_n(input)',
        '[1]',
        T,
        'object.union_n: operand 1 must be array of objects but got array containing number',
      ),
    ])
  })
})
