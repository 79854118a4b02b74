import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

describe('strings: positions count code points', () => {
  it('indexof, indexof_n and substring', () => {
    expect(json('indexof', 'abcdefgh', 'xyz')).toBe('-1')
    expect(json('indexof', 'μx', 'x')).toBe('1')
    expect(json('indexof', '🍧🍨🧁', '🧁')).toBe('2')
    expect(json('indexof_n', 'dogcatdogcat', 'cat')).toBe('[3,9]')
    expect(json('indexof_n', '😇😀😇😀😇😀', '😀')).toBe('[1,3,5]')
    expect(json('indexof_n', 'aaa', 'aa')).toBe('[0,1]')
    expect(json('substring', 'abcdefgh', 2, 3)).toBe('"cde"')
    expect(json('substring', 'aåäö', 2, -1)).toBe('"äö"')
    expect(json('substring', 'åäö', 4, -1)).toBe('""')
    expect(json('substring', 'abc', 1, 10000)).toBe('"bc"')
    expectError('eval_builtin_error', 'substring: negative offset', 'substring', 'aaa', -1, -1)
  })

  it('reverse, count, upper and lower', () => {
    expect(json('strings.reverse', '1😀𝛾')).toBe('"𝛾😀1"')
    expect(json('strings.reverse', '2️⃣')).toBe('"\u20e3\ufe0f2"')
    expect(json('strings.count', 'cheese', 'e')).toBe('3')
    expect(json('strings.count', 'dummy', '')).toBe('6')
    expect(json('strings.count', '11111', '11')).toBe('2')
    expect(json('upper', 'AbCdéß')).toBe('"ABCDÉß"')
    expect(json('lower', 'ÀBC')).toBe('"àbc"')
    // Go maps rune by rune with the simple case mapping: İ lowers to i (not i + U+0307), and the
    // Greek letters with ypogegrammeni upper to their one-rune title forms (not two runes).
    expect(json('lower', 'İSTANBUL')).toBe('"istanbul"')
    expect(json('upper', 'ᾳ ᾀ ῳ')).toBe('"ᾼ ᾈ ῼ"')
    expectError(
      'eval_type_error',
      'strings.reverse: operand 1 must be string but got number',
      'strings.reverse',
      1,
    )
  })
})

describe('strings: splitting, joining, replacing, trimming', () => {
  it('works like Go', () => {
    expect(json('split', 'foo.bar.baz', '.')).toBe('["foo","bar","baz"]')
    expect(json('split', '', '.')).toBe('[""]')
    expect(json('split', 'tést', '')).toBe('["t","é","s","t"]')
    expect(json('concat', ',', new Set(['b', 'a']))).toBe('"a,b"')
    expect(json('concat', '/', [])).toBe('""')
    expect(json('replace', 'foo...bar', '..', ',,')).toBe('"foo,,.bar"')
    expect(json('replace', 'ab', '', '-')).toBe('"-a-b-"')
    expect(json('trim', '...foo.bar...', '.fr')).toBe('"oo.ba"')
    expect(json('trim_left', '¡¡¡foo, bar!!!', '!¡')).toBe('"foo, bar!!!"')
    expect(json('trim_right', '¡¡¡foo, bar!!!', '!¡')).toBe('"¡¡¡foo, bar"')
    expect(json('trim_prefix', 'foobar', 'foo')).toBe('"bar"')
    expect(json('trim_suffix', 'foobar', 'baz')).toBe('"foobar"')
    expect(json('trim_space', ' \t\n foo, bar \n\t\r\n')).toBe('"foo, bar"')
    expect(json('startswith', 'abcd', 'ab')).toBe('true')
    expect(json('endswith', 'abcd', 'bc')).toBe('false')
    expect(json('contains', 'abcdefgh', 'defg')).toBe('true')
    expectError(
      'eval_type_error',
      'concat: operand 2 must be array of strings but got array containing number',
      'concat',
      ',',
      [1],
    )
  })

  it('strings.replace_n applies patterns in key order without overlap', () => {
    expect(json('strings.replace_n', { '<': '&lt;', '>': '&gt;' }, 'This is <b>HTML</b>!')).toBe(
      '"This is &lt;b&gt;HTML&lt;/b&gt;!"',
    )
    expect(json('strings.replace_n', { f: 'x', foo: 'xxx' }, 'foobar')).toBe('"xoobar"')
    expectError(
      'eval_type_error',
      'operand 1 non-string key found in pattern object',
      'strings.replace_n',
      new Map([[2, 'x']]),
      'foo',
    )
  })

  it('any_prefix_match and any_suffix_match take strings, arrays or sets', () => {
    expect(json('strings.any_prefix_match', ['a/b', 'c/d'], 'c/')).toBe('true')
    expect(json('strings.any_prefix_match', 'a/b', new Set(['x', 'a']))).toBe('true')
    expect(json('strings.any_suffix_match', ['a/b'], ['/c'])).toBe('false')
    expectError(
      'eval_type_error',
      'operand 1 must be array of strings but got array containing number',
      'strings.any_prefix_match',
      [1],
      'a',
    )
    expectError(
      'eval_type_error',
      'operand 2 must be one of {string, set, array} but got number',
      'strings.any_suffix_match',
      'a',
      1,
    )
  })
})

describe('format_int and sprintf', () => {
  it('format_int truncates toward zero and checks the base', () => {
    expect(json('format_int', 15.5, 16)).toBe('"f"')
    expect(json('format_int', -15.5, 16)).toBe('"-f"')
    expect(json('format_int', 'json:123456789012345678901234567890', 10)).toBe(
      '"123456789012345678901234567890"',
    )
    expect(json('format_int', 5, 2)).toBe('"101"')
    // A non-integer is read as a 64-bit big.Float before the truncation (OPA's NumberToFloat, then
    // Int): 2.9999999999999999999 rounds to 3 on reading; -0.5 truncates to 0 (Go's math/big).
    expect(json('format_int', 'json:2.9999999999999999999', 10)).toBe('"3"')
    expect(json('format_int', -0.5, 10)).toBe('"0"')
    expectError('eval_type_error', 'operand 2 must be one of {2, 8, 10, 16}', 'format_int', 4.1, 199)
  })

  it('sprintf follows Go verbs', () => {
    expect(json('sprintf', 'hi %s', ['there'])).toBe('"hi there"')
    expect(json('sprintf', 'hi %02d', [5])).toBe('"hi 05"')
    expect(json('sprintf', 'hi %02X.%02X', [127, 1])).toBe('"hi 7F.01"')
    expect(json('sprintf', 'hi %.2f', [3.1389])).toBe('"hi 3.14"')
    expect(json('sprintf', 'hi %v', ['json:2e308'])).toBe('"hi 2e308"')
    expect(json('sprintf', 'hi %s', [true])).toBe('"hi true"')
    expect(json('sprintf', 'hi %v', [['there', 5, 3.14]])).toBe('"hi [\\"there\\", 5, 3.14]"')
    expect(json('sprintf', '%s', ['json:1208925819614629174706175'])).toBe('"1208925819614629174706175"')
    expect(json('sprintf', '%v %v', [new Set([2, 1]), { a: null }])).toBe('"{1, 2} {\\"a\\": null}"')
    expect(json('sprintf', '%d', ['x'])).toBe('"%!d(string=x)"')
    expect(json('sprintf', '%d %d', [1])).toBe('"1 %!d(MISSING)"')
    expect(json('sprintf', '%d', [1, 2])).toBe('"1%!(EXTRA int=2)"')
    expect(
      json('sprintf', '%-5s|%5s|%x|%q|%e|%g|%v', ['ab', 'cd', 255, 'q', 1234.5678, 0.00001, 1.5e-7]),
    ).toBe('"ab   |   cd|ff|\\"q\\"|1.234568e+03|1e-05|1.5e-07"')
    expect(json('sprintf', '%v %.3g %+d %%', [1234567.5, 2.7149, 3])).toBe('"1.2345675e+06 2.71 +3 %"')
  })

  // Go's doPrintf: `*` takes an int argument as width or precision, `[n]` picks an argument (and
  // then unused arguments go unreported), a bad index or a bad `*` argument leaves a marker.
  it('takes widths, precisions and argument indexes as Go does', () => {
    expect(json('sprintf', '%*d|%-*d|%.*f', [5, 3, 4, 7, 2, 3.14259])).toBe('"    3|7   |3.14"')
    expect(json('sprintf', '%[2]v %[1]v', ['a', 'b'])).toBe('"b a"')
    expect(json('sprintf', '%[2]*[1]d|%d %d %[1]d %d', [7, 4])).toBe('"   7|4 %!d(MISSING) 7 4"')
    expect(json('sprintf', '%[3]v|%[1]5d|%[0]d', ['a'])).toBe('"%!v(BADINDEX)|%!d(BADINDEX)|%!d(BADINDEX)"')
    expect(json('sprintf', '%*d|%.*f', ['x', 3, -1, 1.5])).toBe('"%!(BADWIDTH)3|%!(BADPREC)1.500000"')
  })

  // Go's fmt: %q of an integer is strconv.QuoteRune (a character literal with Go's escapes), %q
  // of a string strconv.Quote; an integer past utf8.MaxRune (or negative) prints U+FFFD.
  it('quotes as Go does', () => {
    expect(json('sprintf', '%q|%q|%q|%q|%q', [1, 65, 39, 10, 0x2028])).toBe(
      JSON.stringify(String.raw`'\x01'|'A'|'\''|'\n'|'\u2028'`),
    )
    expect(json('sprintf', '%q %c', [-1, 0x110000])).toBe(JSON.stringify("'\ufffd' \ufffd"))
    expect(json('sprintf', '%q', ['a\u0007\u007f\u00a0b'])).toBe(JSON.stringify(String.raw`"a\a\x7f\u00a0b"`))
  })
})

describe('internal.template_string', () => {
  it('renders literal parts, single values and undefined', () => {
    expect(
      json('internal.template_string', ['a', new Set([1]), ' ', new Set(['s']), ' ', new Set(), ' ', 42]),
    ).toBe('"a1 s <undefined> 42"')
    expect(json('internal.template_string', [new Set([[1, 'x']]), new Set([new Set()])])).toBe(
      '"[1, \\"x\\"]set()"',
    )
    expectError('eval_builtin_error', 'must not produce multiple outputs', 'internal.template_string', [
      new Set([1, 2]),
    ])
  })
})
