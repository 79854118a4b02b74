import { describe, expect, it } from 'vitest'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { parseModule, parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'
import { json, mod, n, op, ref, rule, s, v } from './helpers.js'

const TRUE_BODY = [{ index: 0, terms: { type: 'boolean', value: true } }]

function parseErrors(text: string, options = {}) {
  return parseModuleWithErrors(text, { file: 'x.rego', ...options }).errors.map((e) => e.toJSON())
}

describe('package and imports', () => {
  it('stores the package path under data, with dotted and bracketed parts', () => {
    const m = parseModule('package a.b["c d"]\n')
    expect(json(m.package)).toEqual({ path: [v('data'), s('a'), s('b'), s('c d')] })
    expect(json(parseModule('package foo.as.bar\n').package)).toEqual({
      path: [v('data'), s('foo'), s('as'), s('bar')],
    })
  })

  it('parses imports with aliases, rego.v1 and future keywords', () => {
    const m = mod('import data.x.y as z\nimport input.a\nimport rego.v1\nimport future.keywords.in')
    expect(m.imports.map((i) => json(i))).toEqual([
      { alias: 'z', path: ref(v('data'), s('x'), s('y')) },
      { path: ref(v('input'), s('a')) },
      { path: ref(v('rego'), s('v1')) },
      { path: ref(v('future'), s('keywords'), s('in')) },
    ])
  })

  it('rejects bad import roots and future imports', () => {
    expect(parseErrors('package a\nimport foo.bar\n')[0]?.message).toBe(
      'unexpected import path, must begin with one of: {data, future, input, rego}, got: foo (hint: if this is unexpected, try updating OPA)',
    )
    expect(parseErrors('package a\nimport future.keywords.nope\n')[0]?.message).toMatch(
      /unexpected keyword, must be one of/,
    )
    expect(parseErrors('package a\nimport future.keywords as k\n')[0]?.message).toMatch(/cannot be aliased/)
    // `rego.v2` exists since OPA 1.22 (not-bodies.test.ts); other versions do not.
    expect(parseErrors('package a\nimport rego.v3\n')[0]?.message).toMatch(/must be `rego.v1`/)
  })
})

describe('rules', () => {
  it('parses complete rules with :=, = and if bodies', () => {
    expect(rule('p := 1')).toEqual({
      body: TRUE_BODY,
      head: { name: 'p', ref: [v('p')], value: n(1), assign: true },
    })
    expect(rule('p if { input.x }')).toMatchObject({
      head: { name: 'p', ref: [v('p')], value: { type: 'boolean', value: true } },
    })
    const oneLine = rule('p if input.x == 1') as { body: Array<{ terms: unknown[] }> }
    expect(oneLine.body[0]?.terms[0]).toEqual(op('equal'))
  })

  it('reads `if { a | b }` as a set comprehension, as OPA does, but `not (a | b)` as a body', () => {
    const lone = rule('p if { a | b }') as { body: Array<{ terms: { type: string } }> }
    expect(lone.body[0]?.terms.type).toBe('setcomprehension')
    // The union may sit on the left edge of a longer expression: OPA still reads a comprehension.
    const assigned = rule('p if {y | y := input.x}') as { body: Array<{ terms: { type: string } }> }
    expect(assigned.body[0]?.terms.type).toBe('setcomprehension')
    const parenthesised = rule('p if {\n\t(a | b) == c\n}') as { body: Array<{ terms: unknown[] }> }
    expect(parenthesised.body[0]?.terms[0]).toEqual(op('equal'))
    const negated = rule('p if {\n\tnot (a | b)\n}') as {
      body: Array<{ negated?: boolean; terms: unknown[] }>
    }
    expect(negated.body[0]?.negated).toBe(true)
    expect(negated.body[0]?.terms[0]).toEqual(op('or'))
  })

  it('parses default rules and functions, and validates them', () => {
    expect(rule('default allow := false')).toEqual({
      body: TRUE_BODY,
      default: true,
      head: { name: 'allow', ref: [v('allow')], value: { type: 'boolean', value: false }, assign: true },
    })
    expect(rule('default f(_) := 1')).toMatchObject({ default: true, head: { name: 'f', args: [v('$0')] } })
    expect(parseErrors('package a\ndefault p := input.x\n')[0]?.message).toBe(
      'illegal default rule (value cannot contain ref)',
    )
    // As OPA: `default p` has the generated value true; `default p[0]` has no value.
    expect(parseErrors('package a\ndefault p\n')).toEqual([])
    expect(parseErrors('package a\ndefault p[0]\n')[0]?.message).toBe(
      'illegal default rule (must have a value)',
    )
  })

  it('parses partial sets, partial objects and ref heads as OPA normalises them', () => {
    expect(rule('p contains x if { some x in input }')).toMatchObject({
      head: { name: 'p', ref: [v('p')], key: v('x') },
    })
    expect(rule('p contains x if { some x in input }').head).not.toHaveProperty('value')
    expect(rule('p[k] := v if { some k, v in input }')).toMatchObject({
      head: { name: 'p', ref: [v('p'), v('k')], key: v('k'), value: v('v'), assign: true },
    })
    expect(rule('a.b[c].d := 1 if { c := "x" }')).toMatchObject({
      head: { ref: [v('a'), s('b'), v('c'), s('d')], value: n(1) },
    })
    expect(rule('a.b[c].d := 1 if { c := "x" }').head).not.toHaveProperty('name')
    expect(rule('p[x] if { x := 1 }')).toMatchObject({
      head: { ref: [v('p'), v('x')], key: v('x'), value: { value: true } },
    })
  })

  it('parses functions with several definitions and composite arguments', () => {
    const m = mod('f(x, {"a": y}) := z if { z := x + y }\nf(1, _) := 0')
    expect(m.rules).toHaveLength(2)
    expect(json(m.rules[0]?.head as never)).toMatchObject({
      name: 'f',
      ref: [v('f')],
      args: [v('x'), { type: 'object' }],
    })
    expect(rule('a.b.f(x) := x').head).toMatchObject({ ref: [v('a'), s('b'), s('f')], args: [v('x')] })
  })

  it('parses else chains with and without values', () => {
    const r = rule('p := 1 if {\n\tinput.a\n} else := 2 if {\n\tinput.b\n} else if input.c else := 4')
    expect(r).toMatchObject({
      head: { value: n(1), assign: true },
      else: {
        head: { value: n(2), assign: true },
        else: {
          head: { value: { type: 'boolean', value: true } },
          else: { head: { value: n(4) }, body: TRUE_BODY },
        },
      },
    })
    expect(parseErrors('package a\np contains 1 if { true } else := 2\n')[0]?.message).toMatch(/multi-value/)
  })

  it('splits several bodies of one head into rules sharing the head', () => {
    const m = parseModule('package a\np { a } { b }\n', { regoVersion: 'v0' })
    expect(m.rules).toHaveLength(2)
    expect(json(m.rules[1]?.head as never)).toEqual(json(m.rules[0]?.head as never))
  })

  it('accepts keywords as ref heads and parts', () => {
    const m = mod('as.foo := 1\nfoo.contains contains "a"\nif.x := 2 if input.if')
    expect(m.rules.map((r) => json(r.head.ref[0] as never))).toEqual([v('as'), v('foo'), v('if')])
  })
})

describe('Rego v0 and v1', () => {
  it('requires if and contains in v1', () => {
    expect(parseErrors('package a\np { true }\n').map((e) => e.message)).toEqual([
      '`if` keyword is required before rule body',
    ])
    expect(parseErrors('package a\np[x] if { x := 1 }\nq[x] { x := 1 }\n').map((e) => e.message)).toEqual([
      '`if` keyword is required before rule body',
      '`contains` keyword is required for partial set rules',
    ])
  })

  it('parses v0 rules, where p[x] { } is a partial set and if needs an import', () => {
    const m = parseModule('package a\np[x] { x := 1 }\nq = 1 { true }\n', { regoVersion: 'v0' })
    expect(json(m.rules[0]?.head as never)).toEqual({ name: 'p', ref: [v('p')], key: v('x') })
    expect(m.regoVersion).toBe('v0')
    expect(
      parseModuleWithErrors('package a\np if { true }\n', { regoVersion: 'v0' }).errors[0]?.message,
    ).toBe(
      "unexpected identifier token: expected rule body (hint: `import future.keywords.if` for 'if' keyword)",
    )
    expect(
      parseModule('package a\nimport future.keywords.if\np if { true }\n', { regoVersion: 'v0' }).rules,
    ).toHaveLength(1)
    expect(
      parseModule('package a\nimport rego.v1\np contains 1 if { 1 in [1] }\n', { regoVersion: 'v0' }).rules,
    ).toHaveLength(1)
  })

  it('enables `in` with `import future.keywords.every` in v0, as OPA does', () => {
    const src = 'package a\nimport future.keywords.every\np { every x in [1] { x > 0 }; 1 in [1] }\n'
    expect(parseModule(src, { regoVersion: 'v0' }).rules).toHaveLength(1)
  })
})

describe('zero-argument heads', () => {
  // OPA tests len(head.Args) > 0 for functions: `f()` heads are complete rules (issue 24, item 2).
  it('parses f() = 1 { … } (v0) and f() := 1 if … (v1) as complete rules without args', () => {
    const v0 = parseModule('package a\nf() = 1 { true }\ng() { true }\n', { regoVersion: 'v0' })
    expect(json(v0.rules[0]?.head as never)).toEqual({ name: 'f', ref: [v('f')], value: n(1) })
    expect(json(v0.rules[1]?.head as never)).toEqual({
      name: 'g',
      ref: [v('g')],
      value: { type: 'boolean', value: true },
    })
    const v1 = parseModule('package a\nf() := 1 if { true }\ng() if { true }\n')
    expect(json(v1.rules[0]?.head as never)).toEqual({ name: 'f', ref: [v('f')], value: n(1), assign: true })
    expect(v1.rules[1]?.head.args).toBeUndefined()
    expect(v1.rules[0]?.head.args).toBeUndefined()
  })
})

describe('errors', () => {
  it('reports file:row:col in JSON, file:row in text, what was expected and a caret under the offending token', () => {
    const errors = parseErrors('package a\n\np if {\n\tx := [1,\n}\n')
    expect(errors).toEqual([
      {
        code: 'rego_parse_error',
        message: 'unexpected } token: expected term',
        location: { file: 'x.rego', row: 5, col: 1 },
        details: { line: '}', idx: 0 },
      },
    ])
    try {
      parseModule('package a\np if {\n\tx := 1 +\n}\n', { file: 'y.rego' })
      expect.fail('should throw')
    } catch (err) {
      expect(err).toBeInstanceOf(RegoErrors)
      expect(String(err)).toBe(
        '1 error occurred: y.rego:4: rego_parse_error: unexpected } token: expected term\n\t}\n\t^',
      )
    }
  })

  it('names lexical errors', () => {
    expect(parseErrors('package a\np := "abc\n')[0]).toMatchObject({
      message: 'non-terminated string',
      location: { row: 2, col: 6 },
    })
    expect(parseErrors('package a\np := 1 ^ 2\n')[0]?.message).toBe('illegal token: "^"')
    // OPA's scanner says the same for an unclosed raw or template string.
    expect(parseErrors('package a\np := `abc\n')[0]?.message).toBe('non-terminated string')
    expect(parseErrors('package a\np := $"abc\n')[0]?.message).toBe('non-terminated string')
  })

  it('names tokens as OPA does: operators by name, identifiers in full (parser_test infix heads)', () => {
    const message = (text: string) => parseErrors(`package a\n${text}\n`)[0]?.message
    expect(message('foo+bar := 1')).toBe('unexpected plus token')
    expect(message('foo==bar := 1')).toBe('unexpected equal token')
    expect(message('foo&&bar := 1')).toBe('unexpected and token')
    expect(message('p if {\n\tevery x in xs { + }\n}')).toBe('unexpected plus token: expected term')
    expect(message('p if {\n\tx := 1 y\n}')).toBe('unexpected identifier token: expected \\n or ; or }')
  })

  it('rejects a package path that does not start with a name (parser_test TestPackage)', () => {
    expect(parseErrors('package e().s\np := 1\n')[0]?.message).toBe('unexpected call token: expecting var')
  })

  it('rejects a call other than `in` after some, as OPA (parser_test TestSomeDeclExpr)', () => {
    expect(parseErrors('package a\np if {\n\tsome f(x)\n}\n')[0]?.message).toBe(
      'unexpected } token: expected `x in xs` or `x, y in xs` expression',
    )
  })

  it("names malformed numbers as OPA's scanner does (parser_test TestScalarTerms)", () => {
    const message = (term: string) => parseErrors(`package a\np := ${term}\n`)[0]?.message
    expect(message('6abc')).toBe('illegal number format')
    expect(message('6true')).toBe('illegal number format')
    expect(message('0F')).toBe('illegal number format')
    expect(message('0e')).toBe('expected exponent')
    expect(message('0e.')).toBe('expected exponent')
    expect(message('.0.')).toBe('expected fraction')
    expect(message('1.foo')).toBe('expected fraction')
    expect(message('7e3000000000')).toBe('invalid float')
    expect(message('10245423601e680507880')).toBe('number too big')
    expect(parseErrors('package a\np := [1.5, 1e5, 2E-3, 0.1e-6]\n')).toEqual([])
  })

  it('says what it expected: a term, the closing bracket of an unclosed body, a rule', () => {
    const message = (text: string) => parseErrors(text)[0]?.message
    expect(message('package a\np := f(1,\n')).toBe('unexpected eof token: expected term')
    expect(message('package a\np if {\n\tx := 1\n')).toBe('unexpected eof token: expected }')
    expect(message('package a\nx := [y | y := 1\n')).toBe('unexpected eof token: expected ]')
    expect(message('package a\n1 := p\n')).toBe('unexpected number token: expected rule')
  })

  it('needs a package first, and something in the file', () => {
    expect(parseErrors('p := 1\n')[0]?.message).toBe('package expected')
    expect(parseErrors('# only a comment\n')[0]?.message).toBe('empty module')
    expect(parseErrors('package a\np if {}\n')[0]?.message).toBe('found empty body')
  })

  it('recovers at the next statement and stops after maxErrors', () => {
    const text = `package a\n${Array.from({ length: 20 }, (_, i) => `p${i} := [\n`).join('')}`
    expect(parseErrors(text)).toHaveLength(10)
    expect(parseErrors(text, { maxErrors: 3 })).toHaveLength(3)
    const two = parseErrors('package a\np := ]\nq := 1\nr := )\n')
    // Each bad value gives two errors, as in OPA: the term's, then the expected head form.
    expect(two.map((e) => e.location?.row)).toEqual([2, 2, 4, 4])
  })

  it('never overflows the stack on deep nesting', () => {
    const deep = `package a\np := ${'['.repeat(5000)}${']'.repeat(5000)}\n`
    expect(parseErrors(deep)[0]?.message).toBe('max parsing recursion depth exceeded')
  })
})

describe("OPA's parser_test.go cases", () => {
  const messages = (text: string, options = {}) => parseErrors(text, options).map((e) => e.message)
  const V1 = 'package test\nimport rego.v1\n'

  it('says "function" in the v1 keyword errors of functions, and refuses a ref head with neither value nor body', () => {
    expect(messages(`${V1}f(x) := x {\n\tx == 1\n}`)).toEqual([
      '`if` keyword is required before function body',
    ])
    expect(messages(`${V1}f(x) if {\n\tx == 1\n} else := 42 {\n\tx == 2\n}`)).toEqual([
      '`if` keyword is required before function body',
    ])
    expect(messages(`${V1}p.q.r`)).toEqual(['rule must have value assignment and/or body declaration'])
    expect(messages(`${V1}p.q[input.x]`)).toEqual(['rule must have value assignment and/or body declaration'])
    // A bare call is a function returning true, in v1 too.
    expect(messages('package a.b.c\nfoo.bar(x)')).toEqual([])
  })

  it('reads an import alias as a term, and refuses it unless a var', () => {
    expect(messages('package a\nimport input as A(')).toEqual(['unexpected eof token: expected var'])
  })

  it('gives two errors for a head value that does not parse, the second showing the expected form', () => {
    const opts = { file: '' }
    expect(messages('package a\nf(_) := { "foo" = "bar" }', opts)).toEqual([
      'unexpected eq token: non-terminated set',
      'unexpected eq token: expected function value term (e.g., f(...) := <VALUE> { ... })',
    ])
    expect(messages('package a\nf[_] := { "foo" = "bar" }')[1]).toBe(
      'unexpected eq token: expected rule value term (e.g., f[_] := <VALUE> { ... })',
    )
    expect(messages('package a\ndefault f :=')).toEqual([
      'unexpected eof token',
      'unexpected eof token: expected default rule value term (e.g., default f := <VALUE>)',
    ])
  })

  it('names the separators when a body reaches the end of the text on its last line', () => {
    expect(messages('package a\nf(x) = y { trim(x, ".", y) ')).toEqual([
      'unexpected eof token: expected \\n or ; or }',
    ])
  })

  it('accepts `default a` (value true) and refuses `default 0` at the keyword', () => {
    expect(parseErrors('package a\ndefault a\n')).toEqual([])
    expect(messages('package a\ndefault 0[0')).toEqual(['unexpected default keyword'])
  })

  it('refuses a keyword that starts no statement as it is', () => {
    expect(messages(`${V1}p if {\n\tinput.x == 1\n} if {\n\tinput.x == 2\n}`)).toEqual([
      'unexpected if keyword',
    ])
  })

  it('refuses `contains` after any head written with parentheses, and names an invalid head ref', () => {
    expect(messages('package a\np() contains x if { x := 1 }')).toEqual([
      'unexpected contains keyword: the contains keyword can only be used with multi-value rule definitions (e.g., p contains <VALUE> { ... })',
    ])
    expect(messages('package a\nq(0).r(0) { true }', { regoVersion: 'v0' })).toEqual([
      'unexpected { token: rule head ref q(0).r invalid',
    ])
  })

  it('chains a body after an `if` body whatever the body holds', () => {
    const m = parseModule('package ex\n\np[x] = y if {\n\tx = "a"\n\ty = 1\n} {\n\tx = "b"\n\ty = 2\n}\n')
    expect(m.rules).toHaveLength(2)
  })

  it('words the errors of heads read as expressions as OPA does', () => {
    expect(messages('package a\ndata')).toEqual(['refs cannot be used for rule head'])
    expect(messages('package a\ninput')).toEqual(['refs cannot be used for rule head'])
    expect(messages('package a\np()')).toEqual(['rule argument list must take at least one argument'])
    expect(messages('package a\nassign(x)')).toEqual(['assignment requires two operands'])
    expect(messages('package a\neq()')).toEqual(['assignment requires two operands'])
  })
})

describe('v0 hints and `some` domains, as OPA words them', () => {
  const messages = (text: string, options = {}) => parseErrors(text, options).map((e) => e.message)

  it('hints at the future import when `some x in` or `every x in` is used without it in v0', () => {
    const v0 = { regoVersion: 'v0' }
    expect(messages('package a\np { some x in [1] }', v0)).toEqual([
      'unexpected identifier token: expected \\n or ; or } (hint: `import future.keywords.in` for `some x in xs` expressions)',
    ])
    expect(messages('package a\np { every x in [1] { x } }', v0)).toEqual([
      'unexpected identifier token: expected \\n or ; or } (hint: `import future.keywords.every` for `every x in xs { ... }` expressions)',
    ])
  })

  it('refuses a member call written out after `some` with the wrong operand count', () => {
    expect(messages('package a\np if { some internal.member_2(1) }')).toEqual([
      'unexpected } token: illegal domain',
    ])
    expect(messages('package a\np if { some internal.member_3(1, 2) }')).toEqual([
      'unexpected } token: illegal domain',
    ])
    expect(messages('package a\np if { some internal.member_2(1, 2) }')).toEqual([])
  })
})
