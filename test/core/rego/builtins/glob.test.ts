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
    // As gobwas/glob lexes: `}` and `,` are text outside braces, `-` is text in a set.
    ['a}b,c', [], 'a}b,c', true],
    ['[abc-e]', [], 'd', false],
    ['[abc-e]', [], '-', true],
    ['{a\\,b,c}', [], 'a,b', true],
  ]
  for (const [pattern, delims, value, want] of cases) {
    it(`${pattern} ${JSON.stringify(delims)} ${value}`, () => {
      expect(json('glob.match', pattern, delims, value)).toBe(String(want))
    })
  }

  it("fails on malformed patterns with gobwas/glob's offsets and reasons", () => {
    const fails = (pattern: string, message: string) =>
      expectError(
        'eval_builtin_error',
        `glob.match: glob: syntax error at ${message}`,
        'glob.match',
        pattern,
        null,
        'abc',
      )
    fails('{a,b', '4: unclosed `{`')
    fails('a\\', '2: trailing backslash')
    fails('\\', '1: trailing backslash')
    fails('[]', '2: could not parse range')
    fails('[c-a]', '5: range hi character is less than lo')
    fails('[a-cx]', '5: expected close range character')
  })

  it('rejects broken patterns and bad delimiters', () => {
    expectError(
      'eval_builtin_error',
      'glob: syntax error at 4: unexpected end of input',
      'glob.match',
      '[abc',
      [],
      'a',
    )
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
