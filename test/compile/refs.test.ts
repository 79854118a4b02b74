import { describe, expect, it } from 'vitest'
import { exprToString, refToString } from '../../compile/print.js'
import { parseRefText, pathToRef, RefSyntaxError } from '../../compile/refs.js'
import { decodeCompileBody } from '../../compile/request.js'
import { residual } from './residual.js'

describe('refs', () => {
  it('parses ref texts and prints them back as OPA does', () => {
    for (const text of ['input', 'input.fruits', 'data.a["b-c"][0].d', 'input.x[y]', 'data.a[true]']) {
      expect(refToString(parseRefText(text).value)).toBe(text)
    }
    expect(refToString(parseRefText('data.a["b"]').value)).toBe('data.a.b')
    for (const bad of ['', '1x', 'input.', 'input[', 'input["x"', 'input x', 'input.fruits[']) {
      expect(() => parseRefText(bad)).toThrow(RefSyntaxError)
    }
  })

  it('turns URL paths into data refs', () => {
    expect(refToString(pathToRef('filters/include').value)).toBe('data.filters.include')
    expect(refToString(pathToRef('a/0/b%2Fc/').value)).toBe('data.a[0]["b/c"]')
    expect(() => pathToRef('a//b')).toThrow(RefSyntaxError)
    expect(() => pathToRef('')).toThrow(RefSyntaxError)
  })

  it('prints expressions as OPA String() does', () => {
    const [body] = residual(
      'not input.a.b == 1; count(input.x) > 2; {"k": [1, set()]} == input.c.d; startswith(input.e.f, "x") with input.y as 1',
    )
    expect(body!.map(exprToString)).toEqual([
      'not input.a.b = 1',
      'gt(count(input.x), 2)',
      '{"k": [1, set()]} = input.c.d',
      'startswith(input.e.f, "x") with input.y as 1',
    ])
  })
})

describe('decodeCompileBody', () => {
  it('applies defaults and treats empty unknowns as not given', () => {
    expect(decodeCompileBody('', '')).toEqual({
      input: undefined,
      query: undefined,
      unknowns: undefined,
      disableInlining: [],
      maskRule: undefined,
      nondeterministicBuiltins: false,
      targetDialects: [],
      targetSQLTableMappings: undefined,
    })
    const b = decodeCompileBody(
      '{"unknowns": [], "options": {"nondeterminsticBuiltins": true, "x": 1}, "extra": 2}',
      '',
    )
    expect([b.unknowns, b.nondeterministicBuiltins]).toEqual([undefined, true])
  })

  it('keeps numbers exact from JSON and YAML', () => {
    expect(
      String((decodeCompileBody('{"input": 1.10}', 'application/json').input as object).toString()),
    ).toBe('1.10')
    expect(String(decodeCompileBody('input: 7\n', 'application/x-yaml').input)).toBe('7')
  })
})
