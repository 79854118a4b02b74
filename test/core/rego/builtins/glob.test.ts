import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('glob.match', () => {
  const cases: Array<[string, unknown, string, boolean]> = [
    ['*.github.com', ['.'], 'api.github.com', true],
    ['*.github.com', ['.'], 'api.cdn.github.com', false],
    ['api.**.com', ['.'], 'api.cdn.github.com', true],
    ['*:github:com', [':'], 'api:github:com', true],
    ['[abc]at', [], 'cat', true],
    ['[!abc]at', [], 'cat', false],
    ['[a-c]at', [], 'bat', true],
    ['[!a-c]at', [], 'fat', true],
    ['?at', ['f'], 'fat', false],
    ['{cat,bat,[fr]at}', [], 'rat', true],
    ['{cat,bat,[fr]at}', [], 'at', false],
    ['*', [], 'foo.bar', false],
    ['*', null, 'foo.bar', true],
    ['a\\*b', [], 'a*b', true],
    ['a\\*b', [], 'axb', false],
    ['(x)+', [], '(x)+', true],
  ]
  for (const [pattern, delims, value, want] of cases) {
    it(`${pattern} ${JSON.stringify(delims)} ${value}`, () => {
      expect(json('glob.match', pattern, delims, value)).toBe(String(want))
    })
  }

  it('rejects broken patterns and bad delimiters', () => {
    expectError('eval_builtin_error', 'unclosed', 'glob.match', '[abc', [], 'a')
    expectError(
      'eval_type_error',
      'operand 2 must be one of {array, null} but got string',
      'glob.match',
      '*',
      '.',
      'a',
    )
  })

  it('quote_meta escapes glob metacharacters', () => {
    expect(json('glob.quote_meta', '*.github.com')).toBe('"\\\\*.github.com"')
    expect(json('glob.quote_meta', '{a,[b]}?\\')).toBe('"\\\\{a,\\\\[b\\\\]\\\\}\\\\?\\\\\\\\"')
  })
})
