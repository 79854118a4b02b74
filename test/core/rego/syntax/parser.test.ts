import { describe, expect, it } from 'vitest'
import type { RegoErrors } from '../../../../core/rego/errors.js'
import { stringifyOpaJson } from '../../../../core/rego/syntax/json.js'
import { parseQuery } from '../../../../core/rego/syntax/query.js'
import { locationText } from '../../../../core/rego/syntax/source.js'
import { call, member2, member3, n, op, ref, s, terms, v } from './helpers.js'

describe('terms', () => {
  it('parses scalars; numbers keep their lexeme, so no precision is lost', () => {
    expect(terms('null')).toEqual({ type: 'null', value: null })
    expect(terms('true')).toEqual({ type: 'boolean', value: true })
    expect(terms('"a\\tb\\u00e9"')).toEqual(s('a\tbé'))
    expect(terms('`raw \\n`')).toEqual(s('raw \\n'))
    const big = parseQuery('x := 123456789012345678901234567890')
    expect(stringifyOpaJson(big)).toContain('"value":123456789012345678901234567890}')
    const exp = parseQuery('x := 1e400')
    expect(stringifyOpaJson(exp)).toContain('"value":1e400}')
    expect(terms('-1.5e-3')).toEqual({ type: 'number', value: -0.0015 })
  })

  it('rejects numbers with leading zeros and absurd exponents', () => {
    expect(() => parseQuery('x := 01')).toThrow(/leading zero/)
    expect(() => parseQuery('x := 1e999999')).toThrow(/number too big/)
  })

  it('turns _ into numbered wildcards', () => {
    expect(terms('[_, _]')).toEqual({ type: 'array', value: [v('$0'), v('$1')] })
  })

  it('parses refs with dots, brackets, nested refs, calls and composite heads', () => {
    expect(terms('input.a["b c"][x].d')).toEqual(ref(v('input'), s('a'), s('b c'), v('x'), s('d')))
    expect(terms('data')).toEqual(ref(v('data')))
    expect(terms('a[b.c]')).toEqual(ref(v('a'), ref(v('b'), s('c'))))
    expect(terms('[1, 2][0]')).toEqual(ref({ type: 'array', value: [n(1), n(2)] }, n(0)))
    expect(terms('f(x).y')).toEqual(ref(call(op('f'), v('x')), s('y')))
    expect(terms('input.if.every')).toEqual(ref(v('input'), s('if'), s('every')))
  })

  it('does not continue a ref across whitespace', () => {
    expect(() => parseQuery('x := a [1]')).toThrow(/unexpected \[ token/)
  })

  it('parses arrays, sets, objects, set() and {}', () => {
    expect(terms('[1, "a",]')).toEqual({ type: 'array', value: [n(1), s('a')] })
    expect(terms('{1, 2}')).toEqual({ type: 'set', value: [n(1), n(2)] })
    expect(terms('set()')).toEqual({ type: 'set', value: [] })
    expect(terms('{}')).toEqual({ type: 'object', value: [] })
    expect(terms('{"a": 1, x: [2]}')).toEqual({
      type: 'object',
      value: [
        [s('a'), n(1)],
        [v('x'), { type: 'array', value: [n(2)] }],
      ],
    })
  })

  it('prefers comprehensions over `|` calls, as OPA does', () => {
    expect(terms('[x | x := 1]')).toEqual({
      type: 'arraycomprehension',
      value: { term: v('x'), body: [{ index: 0, terms: [op('assign'), v('x'), n(1)] }] },
    })
    expect(terms('{x | some x in y}')).toMatchObject({ type: 'setcomprehension' })
    expect(terms('{k: v | some k, v in y}')).toMatchObject({
      type: 'objectcomprehension',
      value: { key: v('k'), value: v('v') },
    })
    expect(terms('[a | b, c]')).toEqual({ type: 'array', value: [call(op('or'), v('a'), v('b')), v('c')] })
  })

  it('parses template strings with expressions and escapes', () => {
    expect(terms('$"Hi {input.name}! \\{x}"')).toEqual({
      type: 'templatestring',
      value: {
        parts: [s('Hi '), { index: 0, terms: ref(v('input'), s('name')) }, s('! {x}')],
        multi_line: false,
      },
    })
    expect(terms('$`a\n{1}`')).toEqual({
      type: 'templatestring',
      value: { parts: [s('a\n'), n(1)], multi_line: true },
    })
    expect(() => parseQuery('x := $"{y := 1}"')).toThrow(/assignment/)
  })

  it('words template-string errors as OPA, and refuses them without the capability', () => {
    const message = (query: string, options = {}) => {
      try {
        parseQuery(query, options)
      } catch (err) {
        return (err as RegoErrors).errors[0]?.message
      }
      return undefined
    }
    expect(message('$"{}"')).toBe('invalid template-string expression')
    expect(message('$"{true; false}"')).toBe('expected } to end template string expression')
    expect(message('$"{x}`')).toBe('non-terminated string')
    expect(message('$"foo {bar} baz"', { features: ['rego_v1'] })).toBe(
      'template strings are not supported by current capabilities',
    )
  })
})

describe('operators', () => {
  it('builds calls with OPA builtin names, with OPA precedence and left associativity', () => {
    expect(terms('1 + 2 * 3')).toEqual([op('plus'), n(1), call(op('mul'), n(2), n(3))])
    expect(terms('1 - 2 - 3')).toEqual([op('minus'), call(op('minus'), n(1), n(2)), n(3)])
    expect(terms('a == b + 1')).toEqual([op('equal'), v('a'), call(op('plus'), v('b'), n(1))])
    expect(terms('a | b & c')).toEqual([op('or'), v('a'), call(op('and'), v('b'), v('c'))])
    expect(terms('x := y % 2')).toEqual([op('assign'), v('x'), call(op('rem'), v('y'), n(2))])
    expect(terms('x = y')).toEqual([op('eq'), v('x'), v('y')])
    expect((terms('a != b') as unknown[])[0]).toEqual(op('neq'))
    for (const [sym, name] of [
      ['<', 'lt'],
      ['<=', 'lte'],
      ['>', 'gt'],
      ['>=', 'gte'],
      ['/', 'div'],
    ]) {
      expect((terms(`a ${sym} b`) as unknown[])[0]).toEqual(op(name as string))
    }
  })

  it('parses unary minus on refs as minus(0, x) and on numbers as a negative number', () => {
    expect(terms('x := -y.z')).toEqual([op('assign'), v('x'), call(op('minus'), n(0), ref(v('y'), s('z')))])
    expect(terms('x := -1')).toEqual([op('assign'), v('x'), n(-1)])
  })

  it('parses in and k, v in as internal.member_2 and member_3', () => {
    expect(terms('x in xs')).toEqual([member2, v('x'), v('xs')])
    expect(terms('k, v in xs')).toEqual([member3, v('k'), v('v'), v('xs')])
    expect(terms('f(x, y in z)')).toEqual([op('f'), v('x'), call(member2, v('y'), v('z'))])
    expect(terms('x in xs in ys')).toEqual([member2, call(member2, v('x'), v('xs')), v('ys')])
  })

  it('parses parenthesised expressions', () => {
    expect(terms('(1 + 2) * 3')).toEqual([op('mul'), call(op('plus'), n(1), n(2)), n(3)])
  })
})

describe('bodies and literals', () => {
  it('splits on newlines and semicolons, and needs one of them between literals', () => {
    expect(parseQuery('a; b\nc')).toHaveLength(3)
    expect(() => parseQuery('a b')).toThrow(/expected \\n or ; or eof/)
  })

  it('parses not, some, every and with', () => {
    const [notExpr, some1, some2, some3, every, withExpr] = parseQuery(
      'not a\nsome x, y\nsome x in xs\nsome k, v in xs\nevery k, v in xs { v > k }\nf(x) with input.a as 1 with data.b as 2',
    )
    expect(notExpr?.negated).toBe(true)
    expect(some1?.terms).toMatchObject({ type: 'somedecl', symbols: [{ value: 'x' }, { value: 'y' }] })
    expect(some2?.terms).toMatchObject({ type: 'somedecl', symbols: [{ type: 'call' }] })
    expect(some3?.terms).toMatchObject({
      type: 'somedecl',
      symbols: [{ type: 'call', value: { length: 4 } }],
    })
    expect(every?.terms).toMatchObject({
      type: 'every',
      key: { value: 'k' },
      value: { value: 'v' },
      domain: { value: 'xs' },
    })
    expect(withExpr?.with).toHaveLength(2)
    expect(withExpr?.with?.[1]).toMatchObject({ target: { type: 'ref' }, value: { value: '2' } })
  })

  it('rejects not some / not every with a clear message', () => {
    expect(() => parseQuery('not some x')).toThrow(/illegal negation of 'some'/)
    expect(() => parseQuery('every x in xs')).toThrow(/missing body/)
  })

  it('records locations with row, column and source text', () => {
    const [, expr] = parseQuery('a\n  x := [1,\n 2]')
    expect(expr?.location).toMatchObject({ row: 2, col: 3, offset: 4 })
    expect(locationText(expr?.location)).toBe('x := [1,\n 2]')
  })
})
