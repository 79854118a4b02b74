import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { formatModule, formatSource } from '../../../../core/rego/format/formatter.js'
import type { Module } from '../../../../core/rego/syntax/ast.js'
import { parseModule, parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'
import { locationText } from '../../../../core/rego/syntax/source.js'
import { conformanceModules } from '../syntax/conformance-modules.js'
import { astOf } from './ast-of.js'

const KITCHEN_SINK = readFileSync(new URL('./fixtures/kitchen-sink.rego', import.meta.url), 'utf8')

function roundTrip(text: string, options: { regoVersion?: 'v0' | 'v1' } = {}): string {
  const m = parseModule(text, { file: 'x.rego', ...options })
  const out = formatModule(m, { regoVersion: 'v1' })
  const again = parseModule(out, { file: 'x.rego' })
  expect(astOf(again)).toBe(astOf(m))
  expect(formatModule(again)).toBe(out)
  return out
}

describe('formatter', () => {
  it('leaves the (already canonical) kitchen-sink fixture unchanged', () => {
    expect(formatSource(KITCHEN_SINK, { file: 'kitchen-sink.rego' })).toBe(KITCHEN_SINK)
    roundTrip(KITCHEN_SINK)
  })

  it('applies opa fmt conventions: tabs, blank lines, if/contains, := and spacing', () => {
    const out = roundTrip('package a\nimport data.b\nimport data.a\np[x]{x:=input[_]}\nq=1\nr{true}\n', {
      regoVersion: 'v0',
    })
    expect(out).toBe(
      'package a\n\nimport data.a\nimport data.b\n\np contains x if x := input[_]\nq := 1\nr if true\n',
    )
  })

  it('prints zero-argument heads without parentheses, as opa fmt does (len(Args) > 0)', () => {
    expect(roundTrip('package a\n\nf() = 1 { input.x }\n\ng() { input.y }\n', { regoVersion: 'v0' })).toBe(
      'package a\n\nf := 1 if input.x\n\ng if input.y\n',
    )
    expect(
      formatModule(parseModule('package a\n\nf() = 1 { input.x }\n', { regoVersion: 'v0' }), {
        regoVersion: 'v0',
      }),
    ).toBe('package a\n\nf = 1 {\n\tinput.x\n}\n')
  })

  it('keeps adjacent one-line rules grouped and separates the rest', () => {
    expect(roundTrip('package a\n\nx := 1\ny := 2\n\nz := 3\n')).toBe(
      'package a\n\nx := 1\ny := 2\n\nz := 3\n',
    )
  })

  it('groups only rules it prints on one line: braced set bodies and else chains are set apart', () => {
    // Each pair is adjacent in the source; a lone set (or empty object) body keeps its braces and
    // an else goes on a line of its own, so those rules end in `}` or `else` and need a blank line.
    expect(
      roundTrip(
        'package a\n\nb if { {1} }\nc := 1\nd := 1 if input.x else := 2\ne := 3 if input.y\nf if { {} }\ng := 4\nh := 5\n',
      ),
    ).toBe(
      'package a\n\nb if {\n\t{1}\n}\n\nc := 1\n\nd := 1 if input.x\n\nelse := 2\n\ne := 3 if input.y\n\nf if {\n\t{}\n}\n\ng := 4\nh := 5\n',
    )
  })

  it('keeps a one-line rule and a multi-line rule on the next source line together, as opa fmt does', () => {
    // opa fmt's groupableOneLiner does not ask whether the second rule fits on one line.
    const text = 'package a\n\nf(x) := 1 if x == 1\nf(x) := 2 if {\n\tx == 2\n}\n\ng := 3\n'
    expect(roundTrip(text)).toBe(text)
  })

  it('keeps quoted keywords bracketed in import paths; only future.keywords imports drop them', () => {
    const text =
      'package a\n\nimport data.q["else"] as e\nimport data.x["default"].y\nimport future.keywords.in\n\np := [e, y]\n'
    expect(formatSource(text, { regoVersion: 'v1' })).toBe(text)
    roundTrip(text)
  })

  it('puts a single same-line condition after if, and braces otherwise', () => {
    expect(roundTrip('package a\np if { input.x }\n\nq if {\n  input.y\n}\n')).toBe(
      'package a\n\np if input.x\n\nq if {\n\tinput.y\n}\n',
    )
  })

  it('parenthesises nested infix calls and keeps `in` readable', () => {
    expect(
      roundTrip(
        'package a\np if { x := 1 + 2 * 3; y := (1 + 2) * 3; z := a in b; c == (d in e); some k, v in f }\n',
      ),
    ).toBe(
      'package a\n\np if {\n\tx := 1 + (2 * 3)\n\ty := (1 + 2) * 3\n\tz := a in b\n\tc == (d in e)\n\tsome k, v in f\n}\n',
    )
    expect(roundTrip('package a\np if { a - (b - c); x := a - (b - c); y + z * w == v }\n')).toBe(
      'package a\n\np if {\n\ta - (b - c)\n\tx := a - (b - c)\n\ty + (z * w) == v\n}\n',
    )
  })

  it('breaks composites that were written over several lines, one source line per line', () => {
    const out = roundTrip('package a\nx := [1, 2,\n  3]\ny := {"a": 1,\n"b": 2}\nz := [1, 2, 3]\n')
    expect(out).toBe(
      'package a\n\nx := [\n\t1, 2,\n\t3,\n]\n\ny := {\n\t"a": 1,\n\t"b": 2,\n}\n\nz := [1, 2, 3]\n',
    )
  })

  it('keeps comments above their node and at the end of their line', () => {
    const src =
      '# top\npackage a\n\n# about p\np if {\n\tinput.x # why\n\n\t# before y\n\tinput.y\n}\n\n# end\n'
    expect(roundTrip(src)).toBe(src)
  })

  it('puts a blank line above the comments over an expression written apart from the one before', () => {
    // opa fmt's writeBody: the blank line goes before `b` (so above its comments) because `b` does
    // not start on the row after `a`; insertComments adds the one between `# c` and `b`.
    const src = 'package a\n\np if {\n\ta\n\t# c\n\tb\n\tx := [1 |\n\t\ty\n\t\t# d\n\n\t\tz\n\t]\n}\n'
    expect(roundTrip(src)).toBe(
      'package a\n\np if {\n\ta\n\n\t# c\n\tb\n\tx := [1 |\n\t\ty\n\n\t\t# d\n\n\t\tz\n\t]\n}\n',
    )
  })

  it('keeps else chains inline or on their own line as written', () => {
    const inline = 'package a\n\np := 1 if {\n\tinput.a\n} else := 2 if {\n\tinput.b\n} else := 3\n'
    expect(roundTrip(inline)).toBe(inline)
  })

  it('formats with modifiers on the same line or indented on the next', () => {
    const src = 'package a\n\np if {\n\tq with input as 1\n\t\twith data.x as 2\n}\n'
    expect(roundTrip(src)).toBe(src)
  })

  it('keeps `some` symbols written over several lines on their lines, with their comments', () => {
    const src = 'package a\n\np if {\n\tsome v1, v2, # c1\n\t\tv3, v4, # c2\n\t\tv5 # c3\n\tv1 = 1\n}\n'
    expect(roundTrip(src)).toBe(src)
    expect(roundTrip('package a\n\np if {\n\tsome a,\n  b\n\ta = b\n}\n')).toBe(
      'package a\n\np if {\n\tsome a,\n\t\tb\n\ta = b\n}\n',
    )
  })

  it('prints a rule as written when a comment inside it cannot be placed, losing no comment', () => {
    // The comment after `"a":` would end up before `"b"` on one line; the source text is kept, the
    // comment after it stays at the end of its line, and a comment inside it is not repeated.
    const asWritten =
      'package a\n\nv := {"a": # this is\n{"b": # nested\n"c"}} # trailing\n\nw := {"a":  # one\n"b"} # two\n'
    expect(roundTrip(asWritten)).toBe(asWritten)
    // Items on one line with a comment on a line of their own between the brackets: `opa fmt`
    // (writeIterable) prints such a collection as written.
    const interior = 'package a\n\ns := { # inline\n    # interior\n    "key": "value",\n}\n'
    expect(roundTrip(interior)).toBe(interior)
  })

  it('adds no trailing comma to a collection whose items share a line with a comment below the bracket', () => {
    const text =
      'package a\n\nx := {\n\t"a": 1 # c\n}\n\ny := [\n\t1, 2 # c\n]\n\np if {\n\tz := {\n\t\t"a": 1 # c\n\t}\n\tz.a == 1\n}\n'
    expect(roundTrip(text)).toBe(text)
    // Items on lines of their own are still laid out one per line, with trailing commas.
    expect(roundTrip('package a\n\nx := {\n\t"a": 1, # c\n\t"b": 2\n}\n')).toBe(
      'package a\n\nx := {\n\t"a": 1, # c\n\t"b": 2,\n}\n',
    )
  })

  it('prints an expression as written when a comment inside it cannot be placed', () => {
    const src =
      'package a\n\np if {\n\t"foo", # c0\n (2 in { # c1\n"bar": 2}) in {"foo": true}\n\tinput.x\n}\n'
    const out = roundTrip(src)
    expect(out).toContain('\t"foo", # c0\n (2 in { # c1\n"bar": 2}) in {"foo": true}\n\tinput.x\n')
    // Two comments inside parentheses used to run into one line comment (`# c2 # c1`).
    const nested = 'package a\n\np if {\n\tx := 1\n\t( # c1\n(( # c2\na + b) + c) + d) == 24\n}\n'
    expect(roundTrip(nested)).toBe(nested)
  })

  it('prints a comment once when the line before its expression already ended with it', () => {
    // `k := 1` ends the line that `# c4` is on; the expression after it is printed as written.
    const src = 'package a\n\nw if {\n k := 1; -5 == { # c4\n0: [\n$"v={\nnull}"][ # c7\n0]} }\n'
    expect(roundTrip(src).match(/# c4/g)).toHaveLength(1)
  })

  it('prints a function as written when a comment between its arguments and body has no place', () => {
    const src = 'package a\n\nf( # c0\nx) := y if { # c1\n\ty := x\n}\n'
    expect(roundTrip(src)).toContain('# c0')
  })

  it('writes an object comprehension whose key sits below the brace as `{k: v |` plus a body block', () => {
    expect(roundTrip('package a\n\np if {\n\tx := {\n\n\t\tk: o[k] | k := ks[_]\n\t}\n\tx\n}\n')).toBe(
      'package a\n\np if {\n\tx := {k: o[k] |\n\t\tk := ks[_]\n\t}\n\tx\n}\n',
    )
  })

  it('keeps the parentheses of an infix call just before a comprehension bar', () => {
    const src =
      'package a\n\nx := {k: (1 + 2) | k := ks[_]}\n\ny := [(a + 1) | a := 1]\n\nz := {(a in b) | a := 1}\n'
    expect(roundTrip(src)).toBe(src)
  })

  it('drops a `true` body under a head that has a value or key, as opa fmt does', () => {
    const out = roundTrip(
      'package a\n\np contains "foo" if { true }\n\na.b.c = "d" if true\n\nr := 1 if { input.x } else := 2 if { true }\n\ns if true\n',
    )
    expect(out).toBe(
      'package a\n\np contains "foo"\n\na.b.c := "d"\n\nr := 1 if input.x\n\nelse := 2\n\ns if true\n',
    )
    // Without its body `q[1] := y` would also get `1` as its key, so the body stays.
    expect(roundTrip('package a\n\nq[1] = y if true\n')).toBe('package a\n\nq[1] := y if true\n')
  })

  it('drops a `true` body in v0 output too, where the head stands without it', () => {
    const src =
      'package a\n\np["z"] = 3 { true }\n\nc := 3 {\n\tfalse\n} else := 4 {\n\ttrue\n}\n\nq { true }\n'
    const out = formatModule(parseModule(src, { regoVersion: 'v0' }), { regoVersion: 'v0' })
    expect(out).toBe('package a\n\np["z"] = 3\n\nc := 3 {\n\tfalse\n} else := 4\n\nq {\n\ttrue\n}\n')
  })

  it('moves comments between an else and its value into the else body, as opa fmt does', () => {
    const src =
      'package a\n\nf(x) = 1 {\n\ttrue\n} else =\n# bar\n2\n{\n\tinput.x\n} else = 3\n# baz\n{\n\tfalse\n}\n'
    const out = formatModule(parseModule(src, { regoVersion: 'v0' }), { regoVersion: 'v0' })
    expect(out).toBe(
      'package a\n\nf(x) = 1 {\n\ttrue\n} else = 2 {\n\t# bar\n\n\tinput.x\n} else = 3 {\n\t# baz\n\n\tfalse\n}\n',
    )
  })

  it('breaks an argument list where its items start on different rows', () => {
    // Rows are counted where items start: `{"c": 1}` starts on the row where `[a,` ... ends.
    expect(roundTrip('package a\n\nf([a,\nb], {"c": 1}) := 1\n')).toBe(
      'package a\n\nf(\n\t[\n\t\ta,\n\t\tb,\n\t],\n\t{"c": 1},\n) := 1\n',
    )
    // `"b"` starts on the row where `[1,` ... ends, a row below `"a"`; items sharing a row share a
    // line, and a first item written below its bracket starts a line of its own.
    expect(roundTrip('package a\n\nx := {"a": [1,\n2], "b": 3}\n\ny := [\n\t1, 2]\n')).toBe(
      'package a\n\nx := {\n\t"a": [\n\t\t1,\n\t\t2,\n\t],\n\t"b": 3,\n}\n\ny := [\n\t1, 2,\n]\n',
    )
  })

  it('drops future.keywords imports when rego.v1 is imported, keeping their comments', () => {
    const src =
      'package a\n\nimport rego.v1 # kept\nimport future.keywords.if # covered by rego.v1\n\n# p\np if true\n'
    expect(formatSource(src)).toBe(
      'package a\n\nimport rego.v1 # kept\n\n# covered by rego.v1\n\n# p\np if true\n',
    )
    const alone = 'package a\n\nimport future.keywords.if\n\np if true\n'
    expect(formatSource(alone)).toBe(alone)
  })

  it('writes a set union call argument infix, keeping parentheses only where they were written', () => {
    expect(roundTrip('package a\n\nx := f(or(a, b), (c | d))\n\ny := [or(a, b)]\n')).toBe(
      'package a\n\nx := f(a | b, (c | d))\n\ny := [(a | b)]\n',
    )
  })

  it('parenthesises a union leading a rule body, and only there', () => {
    // `p if {a | b == c}` would read as a set comprehension; else, every and comprehension bodies
    // cannot, so their unions need no parentheses.
    const src =
      'package a\n\np if {\n\t(input.a | input.b) == input.c\n}\n\nq if {\n\t(input.a | input.b) with input.x as 1\n}\n\n' +
      'r if {\n\tinput.z\n} else if {\n\t(input.a | input.b)\n}\n\ns if {\n\tevery x in input.xs {\n\t\t(input.a | input.b)\n\t\tx\n\t}\n}\n'
    expect(roundTrip(src)).toBe(
      'package a\n\np if {\n\t(input.a | input.b) == input.c\n}\n\nq if {\n\t(input.a | input.b) with input.x as 1\n}\n\n' +
        'r if {\n\tinput.z\n} else if {\n\tinput.a | input.b\n}\n\ns if {\n\tevery x in input.xs {\n\t\tinput.a | input.b\n\t\tx\n\t}\n}\n',
    )
  })

  it('gives a condition that starts with a brace a braced body, in else branches too', () => {
    // `else := 2 if {0} + 0` would read `{0}` as the body and fail on `+ 0`.
    expect(roundTrip('package a\n\nq := 1 if {\n\tinput.x\n} else := 2 if ({0} + 0)\n')).toBe(
      'package a\n\nq := 1 if {\n\tinput.x\n} else := 2 if {\n\t{0} + 0\n}\n',
    )
    expect(roundTrip('package a\n\np if not {1}\n\nr if input.x\n')).toBe(
      'package a\n\np if not {1}\n\nr if input.x\n',
    )
  })

  it('starts an else on a line of its own after a one-line condition that spans lines', () => {
    expect(roundTrip('package a\n\ne := 1 if {\n\tx\n} else := 0 if null == [\n""][0] else := 3\n')).toBe(
      'package a\n\ne := 1 if {\n\tx\n} else := 0 if null == [\n\t"",\n][0]\n\nelse := 3\n',
    )
  })

  it('keeps a variable at the end of a multi-value rule ref (p.q[r] contains x)', () => {
    const src = 'package a\n\np.q[r] contains x if {\n\tsome r, x in input.m\n}\n'
    expect(roundTrip(src)).toBe(src)
  })

  it('keeps a comment written after an opening bracket there, and one after the first items after them', () => {
    const afterBracket = 'package a\n\nx := { # about x\n\t"a": 1,\n\t"b": 2,\n}\n'
    expect(roundTrip(afterBracket)).toBe(afterBracket)
    expect(roundTrip('package a\n\nx := {"a": 1, # about a\n"b": 2}\n')).toBe(
      'package a\n\nx := {\n\t"a": 1, # about a\n\t"b": 2,\n}\n',
    )
  })

  it('indents a composite broken over lines inside a template string one level deeper', () => {
    expect(roundTrip('package a\n\ne := $"{[1,   2,\n3,\t4]} and {{"a": 1,\n"b": 2}}"\n')).toBe(
      'package a\n\ne := $"{[\n\t\t1, 2,\n\t\t3, 4,\n\t]} and {{\n\t\t"a": 1,\n\t\t"b": 2,\n\t}}"\n',
    )
    expect(roundTrip('package a\n\np if {\n\tx := $"{[1,\n2]}"\n}\n')).toBe(
      'package a\n\np if {\n\tx := $"{[\n\t\t\t1,\n\t\t\t2,\n\t\t]}"\n}\n',
    )
  })

  it('lays out comments inside template string braces as opa fmt does, keeping each one', () => {
    const src =
      'package a\n\ng := $"{# first\n       x} {# second\ny # third\n# fourth\n} {\n# fifth\nz\n}"\n'
    expect(roundTrip(src)).toBe(
      'package a\n\ng := $"{ # first\n\tx} { # second\n\ty # third\n\t# fourth\n\t} { # fifth\n\tz}"\n',
    )
  })

  it('prints v0 syntax when asked, keeping v0 rules without if', () => {
    const m = parseModule('package a\np[x] { x := 1 }\nq = 1\n', { regoVersion: 'v0' })
    expect(formatModule(m)).toBe('package a\n\np[x] {\n\tx := 1\n}\n\nq = 1\n')
  })

  it('formats trees whose locations have no text (a JSON round trip, generated nodes)', () => {
    const m = JSON.parse(JSON.stringify(parseModule(KITCHEN_SINK, { file: 'k.rego' }))) as Module
    expect(m.rules[0]?.location?.row).toBeGreaterThan(0)
    expect(locationText(m.rules[0]?.location)).toBeUndefined()
    const out = formatModule(m)
    expect(astOf(parseModule(out))).toBe(astOf(parseModule(KITCHEN_SINK)))
  })

  it('throws RegoErrors for text that does not parse', () => {
    expect(() => formatSource('package a\np := \n')).toThrow(RegoErrors)
  })
})

const modules = conformanceModules().filter((m) => !m.wantParseError)

describe.skipIf(modules.length === 0)('formatter over every conformance module', () => {
  it('parse -> format -> parse gives the same AST, and formatting is idempotent', () => {
    const failures: string[] = []
    for (const m of modules) {
      const { module } = parseModuleWithErrors(m.text, { file: m.file })
      if (!module) continue
      const out = formatModule(module)
      const again = parseModuleWithErrors(out, { file: m.file }).module
      if (!again) failures.push(`${m.file}: formatted text does not parse`)
      else if (astOf(again) !== astOf(module)) failures.push(`${m.file}: AST changed`)
      else if (formatModule(again) !== out) failures.push(`${m.file}: not idempotent`)
    }
    console.log(
      `formatter: ${modules.length - failures.length}/${modules.length} conformance modules round-trip`,
    )
    expect(failures).toEqual([])
  })
})

describe('formatting calls of infix built-ins', () => {
  it('refuses an argument count no form of the operator prints, as opa fmt (arity mismatch)', () => {
    const src =
      'package test\n\np if {\n\tx := 5\n\tplus([x]) == 3\n\tand(true, false, false) == false\n\tplus(x, x, x, x)\n}\n'
    let errors: string[] = []
    try {
      formatSource(src, { file: 'p.rego' })
    } catch (err) {
      if (!(err instanceof RegoErrors)) throw err
      errors = err.errors.map((e) => String(e))
    }
    expect(errors).toEqual([
      'p.rego:5: rego_type_error: plus: arity mismatch\n\thave: (array)\n\twant: (number,number)',
      'p.rego:6: rego_type_error: and: arity mismatch\n\thave: (boolean,boolean,boolean)\n\twant: (set[any],set[any])',
      'p.rego:7: rego_type_error: plus: arity mismatch\n\thave: (var,var,var,var)\n\twant: (number,number)',
    ])
    // The output form (`z = x + y`) is a call with one argument more, printed infix.
    expect(formatSource('package test\n\np if plus(1, 2, x)\n', { file: 'p.rego' })).toBe(
      'package test\n\np if x = 1 + 2\n',
    )
  })
})
