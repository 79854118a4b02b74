import { describe, expect, it } from 'vitest'
import { expectError, failure, json } from './helpers.js'

describe('regex (RE2 semantics)', () => {
  it('match and is_valid', () => {
    expect(json('regex.match', '^[a-z]+\\[[0-9]+\\]$', 'foo[1]')).toBe('true')
    expect(json('regex.match', '', 'x')).toBe('true')
    expect(json('re_match', 'b+', 'abbc')).toBe('true')
    expect(failure('regex.match', '$^[[[', 'x').message).toContain('error parsing regexp: missing closing ]')
    expect(json('regex.is_valid', '.+')).toBe('true')
    expect(json('regex.is_valid', '++')).toBe('false')
    expect(json('regex.is_valid', 1)).toBe('false')
    // Backreferences and lookahead are not RE2.
    expect(json('regex.is_valid', '(a)\\1')).toBe('false')
    expect(json('regex.is_valid', '(?=a)')).toBe('false')
  })

  it('find_n and find_all_string_submatch_n', () => {
    expect(json('regex.find_n', 'a.', 'paranormal', -1)).toBe('["ar","an","al"]')
    expect(json('regex.find_n', 'a.', 'paranormal', 2)).toBe('["ar","an"]')
    expect(json('regex.find_n', 'a.', 'paranormal', 0)).toBe('[]')
    expect(json('regex.find_n', '^a.', 'abacadaeaf', -1)).toBe('["ab"]')
    expect(json('regex.find_n', 'x*', 'axb', -1)).toBe('["","x",""]')
    expect(json('regex.find_all_string_submatch_n', 'a(x*)b', '-ab-axb-', -1)).toBe('[["ab",""],["axb","x"]]')
    expect(json('regex.find_all_string_submatch_n', '[^aouiye]([aouiye])([^aouiye])?', 'somestri', -1)).toBe(
      '[["som","o","m"],["ri","i",""]]',
    )
  })

  it('replace expands Go templates; split follows Go', () => {
    expect(json('regex.replace', '-wy-wxxy-', 'w(x*)y', '0')).toBe('"-0-0-"')
    expect(json('regex.replace', 'foo', '(foo)', '$1$1')).toBe('"foofoo"')
    expect(json('regex.replace', 'foo bar', '(?P<w>[a-z]+)', '<${w}>')).toBe('"<foo> <bar>"')
    expect(json('regex.replace', 'foo', '^[a-z]$', 'F')).toBe('"foo"')
    expect(json('regex.split', '^[a-z]+\\[[0-9]+\\]$', '')).toBe('[""]')
    expect(json('regex.split', '^[a-z]+', 'foobar baz')).toBe('[""," baz"]')
    expect(json('regex.split', '^[a-z ]+$', 'foobar baz')).toBe('["",""]')
    expect(json('regex.split', 'z+', 'pizza')).toBe('["pi","a"]')
  })

  it('template_match', () => {
    expect(json('regex.template_match', 'urn:foo:{.*}', 'urn:foo:bar:baz', '{', '}')).toBe('true')
    expect(json('regex.template_match', 'urn:foo.<[a-z]+>', 'urn:fooxbar', '<', '>')).toBe('false')
    expect(json('regex.template_match', 'urn:foo.<[a-z]+>', 'urn:foo.bar', '<', '>')).toBe('true')
    expectError('eval_builtin_error', 'unbalanced', 'regex.template_match', 'urn:{.*', 'x', '{', '}')
  })

  it('globs_match intersects glob-style expressions', () => {
    expect(json('regex.globs_match', 'a.a.[0-9]+z', '.b.b2359825792*594823z')).toBe('true')
    expect(json('regex.globs_match', '[a-z]+', '[0-9]*')).toBe('false')
    expect(json('regex.globs_match', 'b.*', 'b')).toBe('true')
    expect(json('regex.globs_match', '[a-z]+\\[[0-9]+\\]', 'foo\\[1\\]')).toBe('true')
    expect(json('regex.globs_match', '[a-z]+\\[[0-9]+\\]', 'foo["bar"]')).toBe('false')
    expect(json('regex.globs_match', '[^a]', 'a')).toBe('false')
    expectError(
      'eval_builtin_error',
      "input:pqrs], pos:5, set-close ']' with no preceding '[': the input provided is invalid",
      'regex.globs_match',
      'pqrs]',
      '[a-b]+',
    )
  })
})
