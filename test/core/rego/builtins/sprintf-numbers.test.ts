/**
 * sprintf picks the Go argument type from the number's text, as OPA does (issue 24, item 4):
 * an integer lexeme is an int, a lexeme with a fraction or an exponent is a float64 even when its
 * value is integral (`101.00`, `1e2`), in Rego source, JSON input and to_number/json.unmarshal.
 * Expected outputs: OPA's (opa#9187 pins `0.0` → `0.000000`, `100.0` with `%3.1f` → `100.0`;
 * opa#4610 and opa#2504 pin `%!f(int=13)` for an integer lexeme) and Go's fmt for the rest.
 */
import { describe, expect, it } from 'vitest'
import { compile, parseModule } from '../../../../core/rego/index.js'
import { parseJSON, toJS } from '../../../../core/rego/values/index.js'

function evalRule(src: string, input = '{}'): unknown {
  const p = compile({ 'p.rego': parseModule(`package p\n${src}`, { file: 'p.rego' }) }, {})
  const run = p.prepare('x := data.p.x').evalSync({ input: parseJSON(input) })
  return run.results[0] ? toJS(run.results[0].bindings.get('x') as never) : undefined
}

describe('sprintf: int or float64 by the number text', () => {
  it('formats integral decimal literals with float verbs', () => {
    expect(evalRule('x := sprintf("%.2f", [101.00])')).toBe('101.00')
    expect(
      evalRule('x := sprintf("float: %f, %3.1f, %.3f, %f, %3.1f, %.3f", [0.1, 10.2, 0.5, 0.0, 100.0, 0.0])'),
    ).toBe('float: 0.100000, 10.2, 0.500, 0.000000, 100.0, 0.000')
    expect(evalRule('x := sprintf("%e %g %G %v", [1e2, 1e2, 1.0, 3.0])')).toBe('1.000000e+02 100 1 3')
  })

  it('keeps integer lexemes as ints: float verbs on them are Go errors', () => {
    expect(evalRule('x := sprintf("%f", [13])')).toBe('%!f(int=13)')
    expect(evalRule('x := sprintf("%.2f", [64])')).toBe('%!f(int=64)')
    expect(evalRule('x := sprintf("%d %d %d", [1, 1.0, 1e2])')).toBe('1 %!d(float64=1) %!d(float64=100)')
    expect(evalRule('x := sprintf("%s %x %05d|%-4d|", [1.0, 255, 42, 7])')).toBe(
      '%!s(float64=1) ff 00042|7   |',
    )
  })

  it('reads the form from JSON input and from to_number and json.unmarshal', () => {
    expect(evalRule('x := sprintf("%.2f %.2f", [input.a, input.b])', '{"a": 101.00, "b": 5}')).toBe(
      '101.00 %!f(int=5)',
    )
    expect(evalRule('x := sprintf("%.1f %.1f", [to_number("5.0"), json.unmarshal("7.0")])')).toBe('5.0 7.0')
  })

  it('drops the float form in arithmetic results, as OPA prints integral results as ints', () => {
    expect(evalRule('x := sprintf("%v %d", [1.0 + 1, 2.0 * 3])')).toBe('2 6')
  })

  it('formats float64 with %x, %X and %b as Go does', () => {
    expect(evalRule('x := sprintf("%x %X %x %.2x %x", [255.0, 1.5, 0.1, 1.999, 0.0])')).toBe(
      '0x1.fep+07 0X1.8P+00 0x1.999999999999ap-04 0x1.00p+01 0x0p+00',
    )
    expect(evalRule('x := sprintf("%b %b", [1.0, -0.5])')).toBe('4503599627370496p-52 -4503599627370496p-53')
  })
})

describe('an integer in float form is the integer it equals', () => {
  it('indexes arrays and passes integer operands as the integer (OPA 1.20+ reads 1.0 as an int)', () => {
    const src = [
      'x := [',
      '  [1, 2, 3][1.0], [1, 2, 3][input.i], substring("abcdef", 1.0, 2.0), array.slice([1, 2, 3], input.i, 3),',
      '  object.get({"a": [1, 2]}, ["a", 1.0], 0), pair, format_int(10.0, 16), numbers.range(1.0, 2),',
      ']',
      'pair if 1.0, 2 in [1, 2]',
    ].join('\n')
    expect(evalRule(src, '{"i": 1.0}')).toEqual([2, 2, 'bc', [2, 3], 2, true, 'a', [1, 2]])
  })

  it('compares, hashes and keys like its canonical number', () => {
    const src = [
      'x := [',
      '  101.0 == 101, 101 == input.a, input.a == 101, 1e2 == 100,',
      '  {1, 1.0, 2.0, 2} == {1, 2}, count({1, 1.0}), {101.0: "a"}[101], {101: "b"}[input.a],',
      '  [1.0, 2] == [1, 2.0], input.a + 1, input.a > 100, sort([2.0, 1, 1.5]),',
      ']',
    ].join('\n')
    expect(evalRule(src, '{"a": 101.00}')).toEqual([
      true,
      true,
      true,
      true,
      true,
      1,
      'a',
      'b',
      true,
      102,
      true,
      [1, 1.5, 2],
    ])
  })
})
