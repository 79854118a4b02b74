/**
 * strings.render_template against Go's text/template as OPA runs it. Each expected output is
 * worked out from Go's text/template and fmt sources (exec.go, funcs.go, parse/, print.go) and
 * OPA's topdown/template.go: the variables arrive as Go values decoded with UseNumber (numbers are
 * json.Number, a string type), and `<no value>` in the output becomes `<undefined>`.
 */
import { describe, expect, it } from 'vitest'
import { compile, type Policy, parseModule } from '../../../../core/rego/index.js'
import { parseJSON, toJS, type Value } from '../../../../core/rego/values/index.js'
import { call, failure } from './helpers.js'

const render = (template: string, vars: unknown = {}) => call('strings.render_template', template, vars)

/** [template, variables, output] */
const OUTPUTS: Array<[string, unknown, string]> = [
  // Text, fields, Go's rendering of the decoded values.
  ['hello', {}, 'hello'],
  ['', {}, ''],
  ['{{.test}}', { test: 'hello world' }, 'hello world'],
  ['{{.test}}', { test: 2023 }, '2023'],
  ['{{.x}}', { x: 1.5 }, '1.5'],
  ['{{.x}}', { x: 100000000 }, '100000000'],
  ['{{.x}}', { x: -3 }, '-3'],
  ['{{.x}} {{.y}}', { x: true, y: false }, 'true false'],
  ['{{.x}}', { x: null }, '<undefined>'],
  ['{{.nope}}', {}, '<undefined>'],
  ['test {{.foo}} {{.bar}} {{.baz}}', { baz: 1 }, 'test <undefined> <undefined> 1'],
  ['<no value>', {}, '<undefined>'],
  ['{{.a.b.c}}', { a: { b: { c: 'deep' } } }, 'deep'],
  ['{{.a.b}}', {}, '<undefined>'],
  ['{{.}}', { a: 1, b: [1, 'x', null], c: {} }, 'map[a:1 b:[1 x <nil>] c:map[]]'],
  ['{{.m}}', { m: { b: 2, a: 1, B: 0 } }, 'map[B:0 a:1 b:2]'],
  ['{{.l}} {{.e}}', { l: [[1, 2], { k: 'v' }], e: [] }, '[[1 2] map[k:v]] []'],
  ['{{$}}', { a: 1 }, 'map[a:1]'],
  // Trim markers and comments.
  ['a {{- .x -}} b', { x: 'X' }, 'aXb'],
  ['a\n\t {{- .x}}\n', { x: 'X' }, 'aX\n'],
  ['{{-3}}', {}, '-3'],
  ['{{3 -}}   x', {}, '3x'],
  ['a{{/* hi */}}b', {}, 'ab'],
  ['a {{- /* hi */ -}} b', {}, 'ab'],
  ['{{if\n.x}}y{{end}}', { x: 1 }, 'y'],
  // Pipelines, variables, parentheses.
  ['{{.s | len}}', { s: 'abc' }, '3'],
  ['{{"x" | printf "%s-%s" "a"}}', {}, 'a-x'],
  ['{{$x := .a}}{{$x}}', { a: 5 }, '5'],
  ['{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}', {}, '2'],
  ['{{with $v := .a}}{{$v}}{{.}}{{end}}', { a: 'q' }, 'qq'],
  ['{{range .xs}}{{$.k}}{{end}}', { xs: [1, 2], k: 'K' }, 'KK'],
  ['{{(len .s)}} {{(index .m "a").b}}', { s: 'abc', m: { a: { b: 'B' } } }, '3 B'],
  // if / else if / else and Go's truth: json.Number "0" is a non-empty string.
  ['{{if eq .n "1"}}one{{else if eq .n "2"}}two{{else}}many{{end}}', { n: 2 }, 'two'],
  ['{{if eq .n "1"}}one{{else if eq .n "2"}}two{{else}}many{{end}}', { n: 5 }, 'many'],
  ['{{if .z}}T{{else}}F{{end}}', { z: 0 }, 'T'],
  ['{{if .z}}T{{else}}F{{end}}', { z: '' }, 'F'],
  ['{{if .z}}T{{else}}F{{end}}', { z: [] }, 'F'],
  ['{{if .z}}T{{else}}F{{end}}', { z: {} }, 'F'],
  ['{{if .z}}T{{else}}F{{end}}', { z: false }, 'F'],
  ['{{if .z}}T{{else}}F{{end}}', { z: null }, 'F'],
  ['{{if .z}}T{{else}}F{{end}}', {}, 'F'],
  ['{{if 0}}T{{else}}F{{end}}{{if 0.5}}T{{end}}', {}, 'FT'],
  // range over arrays, maps (sorted keys), integers; else; break and continue.
  [
    '{{range $i, $name := .names}}{{if $i}},{{end}}hello {{$name}}{{end}}',
    { names: ['rohan', 'john doe'] },
    'hello rohan,hello john doe',
  ],
  ['{{range $k, $v := .m}}{{$k}}={{$v}};{{end}}', { m: { b: 2, a: 1, c: 3 } }, 'a=1;b=2;c=3;'],
  ['{{range .m}}{{.}}{{end}}', { m: { b: 2, a: 1 } }, '12'],
  ['{{range $e := .xs}}{{$e}}{{end}}', { xs: ['a', 'b'] }, 'ab'],
  ['{{range .xs}}x{{else}}none{{end}}', { xs: [] }, 'none'],
  ['{{range .nope}}x{{else}}none{{end}}', {}, 'none'],
  ['{{range .xs}}[{{.}}]{{end}}', { xs: [null, 1] }, '[<undefined>][1]'],
  ['{{range 3}}{{.}}{{end}}', {}, '012'],
  ['{{range $i := 2}}{{$i}}{{end}}{{range 0}}x{{else}}empty{{end}}', {}, '01empty'],
  [
    '{{range .xs}}{{if eq . "b"}}{{continue}}{{end}}{{if eq . "d"}}{{break}}{{end}}{{.}}{{end}}',
    { xs: ['a', 'b', 'c', 'd', 'e'] },
    'ac',
  ],
  ['{{$i := 0}}{{range .xs}}{{$i = .}}{{end}}{{$i}}', { xs: ['a', 'z'] }, 'z'],
  // with / else with / else.
  ['{{with .a}}A{{.}}{{else with .b}}B{{.}}{{else}}none{{end}}', { b: 2 }, 'B2'],
  ['{{with .a}}A{{.}}{{else with .b}}B{{.}}{{else}}none{{end}}', { a: 'x' }, 'Ax'],
  ['{{with .a}}A{{else}}none{{end}}', { a: [] }, 'none'],
  // define / template / block.
  ['{{define "T"}}<{{.}}>{{end}}{{template "T" .x}}{{template "T"}}', { x: 1 }, '<1><<undefined>>'],
  ['{{block "B" .y}}[{{.}}]{{end}}', { y: 2 }, '[2]'],
  [
    '{{define "r"}}{{if .}}{{len .}}{{template "r" (slice . 1)}}{{end}}{{end}}{{template "r" .xs}}',
    { xs: [1, 2, 3] },
    '321',
  ],
  ['{{define "T"}}{{$}}{{end}}{{$x := 1}}{{template "T" "dot"}}', {}, 'dot'],
  // and / or return an operand and short-circuit; not.
  ['{{and 1 0 2}} {{and 1 2}} {{or 0 "" "z"}} [{{or 0 ""}}]', {}, '0 2 z []'],
  ['{{and false (len 3)}} {{or true (len 3)}}', {}, 'false true'],
  ['{{.a | and 1}} {{.a | or 0}}', { a: 'A' }, 'A A'],
  ['{{not 0}} {{not .s}} {{not .nope}}', { s: 'x' }, 'true false true'],
  // len, index, slice: bytes for strings (json.Number too), Go's indexing rules.
  [
    '{{len .s}} {{len .l}} {{len .m}} {{len .n}}',
    { s: 'héllo', l: [1, 2], m: { a: 1 }, n: 12345 },
    '6 2 1 5',
  ],
  [
    '{{index .l 1}} {{index .m "a" 1}} {{index .s 0}} {{index .n 0}}',
    { l: [5, 6], m: { a: [7, 8] }, s: 'h', n: 7 },
    '6 8 104 55',
  ],
  ['{{index .m "nope"}} {{index .l}}', { m: {}, l: [1] }, '<undefined> [1]'],
  [
    '{{slice "abcdef" 1 3}} {{slice .xs 1}} {{slice "abc"}} {{slice .xs 0 0}}',
    { xs: [1, 2, 3] },
    'bc [2 3] abc []',
  ],
  ['{{slice .xs 0 4}}', { xs: [1, 2, 3] }, '[1 2 3 <nil>]'],
  // print / println / printf.
  ['{{print 1 2 "a" "b" 3}} {{print .n .n}}', { n: 1 }, '1 2ab3 11'],
  ['{{println "a" 1}}', {}, 'a 1\n'],
  ['{{print .nope}} {{print nil}}', {}, '<nil> <nil>'],
  ['{{printf "%d %5.2f %x %q %t %v" 3 1.5 255 "hi" true .l}}', { l: [1, 2] }, '3  1.50 ff "hi" true [1 2]'],
  ['{{printf "%d|%s|%v|%q|%5s" .n .n .n .n .n}}', { n: 7 }, '%!d(json.Number=7)|7|7|"7"|    7'],
  ['{{printf "%d %d" 1}} {{printf "x" 1}}', {}, '1 %!d(MISSING) x%!(EXTRA int=1)'],
  ['{{printf "%v %d %s" .nope .nope true}}', {}, '<nil> %!d(<nil>) %!s(bool=true)'],
  [
    '{{printf "%T %T %T %T %T %T" .n .s .l .m 1 1.5}}',
    { n: 1, s: 's', l: [], m: {} },
    'json.Number string []interface {} map[string]interface {} int float64',
  ],
  ['{{printf "%v %v %v" 1e21 1e6 100000.0}}', {}, '1e+21 1e+06 100000'],
  [
    '{{printf "%d" .l}} {{printf "%s" .m}}',
    { l: [1, 2], m: { a: true } },
    '[%!d(json.Number=1) %!d(json.Number=2)] map[a:%!s(bool=true)]',
  ],
  ["{{1e6}} {{1.5}} {{0x10}} {{'a'}} {{1_000}} {{0o17}}", {}, '1e+06 1.5 16 97 1000 15'],
  // html / js / urlquery (a nil prints as <no value>, which OPA does not rewrite here).
  ['{{html "<a href=\\"x\\">&\'"}}', {}, '&lt;a href=&#34;x&#34;&gt;&amp;&#39;'],
  ['{{html .nope}} {{html 1 2}}', {}, '&lt;no value&gt; 1 2'],
  ['{{js "a\\"b<c>=&\\\\\'"}}', {}, 'a\\"b\\u003Cc\\u003E\\u003D\\u0026\\\\\\\''],
  ['{{urlquery "a b&c=d/é~"}}', {}, 'a+b%26c%3Dd%2F%C3%A9~'],
  // Comparisons: json.Number compares as a string, ints and bytes together.
  ['{{eq 1 2 3 1}} {{eq "a" "b"}} {{ne 1 2}}', {}, 'true false true'],
  ['{{eq .n "7"}} {{lt .n "10"}}', { n: 9 }, 'false false'],
  ['{{eq .n "9"}}', { n: 9 }, 'true'],
  [
    '{{lt 1 2}} {{le 2 2}} {{gt 3 2}} {{ge 1 2}} {{lt "10" "9"}} {{lt 1.5 2.5}}',
    {},
    'true true true false true true',
  ],
  ['{{eq .nope .nope}} {{eq .nope 1}} {{eq (index .s 0) 104}}', { s: 'h' }, 'true false true'],
]

/** [template, variables, message] */
const ERRORS: Array<[string, unknown, string]> = [
  // Parse errors.
  ['{{if .x}}', {}, 'template: template:1: unexpected EOF'],
  ['a\n\n{{if .x}}', {}, 'template: template:3: unexpected EOF'],
  ['{{.x', {}, 'template: template:1: unclosed action'],
  ['{{if\n.x', {}, 'template: template:2: unclosed action started at template:1'],
  ['{{nope 1}}', {}, 'template: template:1: function "nope" not defined'],
  ['{{end}}', {}, 'template: template:1: unexpected {{end}}'],
  ['{{else}}', {}, 'template: template:1: unexpected {{else}}'],
  ['{{$x}}', {}, 'template: template:1: undefined variable "$x"'],
  ['{{if true}}{{$x := 1}}{{end}}{{$x}}', {}, 'undefined variable "$x"'],
  ['{{break}}', {}, 'template: template:1: {{break}} outside {{range}}'],
  ['{{range .x}}{{else}}{{continue}}{{end}}', {}, '{{continue}} outside {{range}}'],
  ['{{.x | 1}}', {}, 'non executable command in pipeline stage 2'],
  ['{{}}', {}, 'missing value for command'],
  ['{{(1}}', {}, 'unclosed left paren'],
  ['{{1)}}', {}, "unexpected right paren U+0029 ')'"],
  ['{{/* x */ }}', {}, 'comment ends before closing delimiter'],
  ['{{/* x }}', {}, 'unclosed comment'],
  ['{{"abc}}', {}, 'unterminated quoted string'],
  ['{{3k}}', {}, 'bad number syntax: "3k"'],
  ['{{.a-b}}', {}, "bad character U+002D '-'"],
  ['{{if .x}}{{else}}{{else}}{{end}}', {}, 'expected end; found {{else}}'],
  ['{{range $a, $b, $c := .x}}{{end}}', {}, 'too many declarations in range'],
  ['{{define "T"}}a{{end}}{{define "T"}}b{{end}}', {}, 'template: multiple definition of template "T"'],
  ['{{define "B"}}X{{end}}{{block "B" .}}Y{{end}}', {}, 'template: multiple definition of template "B"'],
  ['{{template .x}}', {}, 'unexpected ".x" in template clause'],
  ['{{template if}}', {}, 'unexpected <if> in template clause'],
  ['{{1.x}}', {}, 'bad number syntax: "1.x"'],
  ['{{"a".x}}', {}, 'unexpected . after term "\\"a\\""'],
  // Execution errors: Go's location (line:byte column), template name, node and message.
  [
    '{{eq .n 1}}',
    { n: 1 },
    'template: template:1:2: executing "template" at <eq .n 1>: error calling eq: incompatible types for comparison: json.Number and int',
  ],
  [
    '{{.x}}{{len 3}}',
    { x: 1 },
    'template: template:1:8: executing "template" at <len 3>: error calling len: len of type int',
  ],
  ['é\n{{len 3}}', {}, 'template: template:2:2: executing "template" at <len 3>'],
  ['{{define "T"}}{{len 3}}{{end}}{{template "T"}}', {}, 'executing "T" at <len 3>'],
  ['{{lt .l .l}}', { l: [1] }, 'error calling lt: invalid type for comparison'],
  ['{{lt true false}}', {}, 'error calling lt: invalid type for comparison'],
  ['{{lt 1 "a"}}', {}, 'error calling lt: incompatible types for comparison: int and string'],
  ['{{eq .l .l}}', { l: [1] }, 'error calling eq: non-comparable type [1]: []interface {}'],
  [
    '{{eq .l .m}}',
    { l: [1], m: {} },
    'error calling eq: non-comparable types [1]: []interface {}, map[string]interface {}: map[]',
  ],
  ['{{eq 1}}', {}, 'error calling eq: missing argument for comparison'],
  ['{{len .nope}}', {}, 'error calling len: reflect: call of reflect.Value.Type on zero Value'],
  ['{{len .x}}', { x: null }, 'error calling len: len of nil pointer'],
  ['{{index .l 5}}', { l: [1] }, 'error calling index: index out of range: 5'],
  ['{{index .l 1}}', { l: [1] }, 'error calling index: reflect: slice index out of range'],
  ['{{index .l "a"}}', { l: [1] }, 'error calling index: cannot index slice/array with type string'],
  [
    '{{index .l .i}}',
    { l: [1], i: 0 },
    'error calling index: cannot index slice/array with type json.Number',
  ],
  ['{{index .m 1}}', { m: {} }, 'error calling index: value has type int; should be string'],
  ['{{index true 1}}', {}, "error calling index: can't index item of type bool"],
  ['{{index .nope 1}}', {}, 'error calling index: index of untyped nil'],
  ['{{slice .l 2 1}}', { l: [1, 2, 3] }, 'error calling slice: invalid slice index: 2 > 1'],
  ['{{slice "abc" 1 2 3}}', {}, 'error calling slice: cannot 3-index slice a string'],
  [
    '{{slice .l .i}}',
    { l: [1], i: 0 },
    'error calling slice: cannot index slice/array with type interface {}',
  ],
  ['{{.x.y}}', { x: 's' }, 'executing "template" at <.x.y>: can\'t evaluate field y in type interface {}'],
  ['{{.x.y}}', { x: null }, 'nil pointer evaluating interface {}.y'],
  ['{{with .x}}{{.y}}{{end}}', { x: 's' }, "can't evaluate field y in type string"],
  ['{{.x 1}}', { x: 1 }, 'x is not a method but has arguments'],
  ['{{range .s}}{{end}}', { s: 'abc' }, "range can't iterate over abc"],
  ['{{range .n}}{{end}}', { n: 5 }, "range can't iterate over 5"],
  ['{{range $i, $e := 3}}{{end}}', {}, "can't use 3 to iterate over more than one variable"],
  [
    '{{template "zz"}}',
    {},
    'template: template:1:11: executing "template" at <{{template "zz"}}>: template "zz" not defined',
  ],
  ['{{define "r"}}{{template "r"}}{{end}}{{template "r"}}', {}, 'exceeded maximum template depth (1000)'],
  ['{{call .x}}', { x: 's' }, 'error calling call: non-function .x of type string'],
  ['{{call .nope}}', {}, 'error calling call: call of nil'],
  ['{{printf 3}}', {}, 'expected string; found 3'],
  ['{{printf .n}}', { n: 7 }, 'wrong type for value; expected string; got json.Number'],
  ['{{printf .nope}}', {}, 'invalid value; expected string'],
  ['{{and}}', {}, 'wrong number of args for and: want at least 1 got 0'],
  ['{{not 1 2}}', {}, 'wrong number of args for not: want 1 got 2'],
  ['{{1 2}}', {}, "can't give argument to non-function 1"],
  ['{{nil}}', {}, 'nil is not a command'],
  ['{{9223372036854775808}}', {}, '9223372036854775808 overflows int'],
]

describe('strings.render_template', () => {
  it.each(OUTPUTS)('%j with %j renders %j', (template, vars, output) => {
    expect(render(template, vars)).toBe(output)
  })

  it.each(ERRORS)('%j with %j fails with %j', (template, vars, message) => {
    const err = failure('strings.render_template', template, vars)
    expect(err.code).toBe('eval_builtin_error')
    expect(err.message).toContain(`strings.render_template: `)
    expect(err.message).toContain(message)
  })

  it('fails cleanly when deep template calls each nest blocks', () => {
    // Which limit is met first depends on the JS stack size: either is a clean built-in error.
    const deep =
      '{{define "r"}}{{if true}}{{with 1}}{{range $.xs}}{{with $.ys}}{{if .}}{{template "r" $}}{{end}}{{end}}{{end}}{{end}}{{end}}{{end}}{{template "r" .}}'
    const err = failure('strings.render_template', deep, { xs: [1], ys: [1] })
    expect(err.code).toBe('eval_builtin_error')
    expect(err.message).toMatch(/nested too deeply to execute|exceeded maximum template depth \(1000\)/)
  })

  it('rejects non-string operands as type errors', () => {
    expect(failure('strings.render_template', 1, {}).code).toBe('eval_type_error')
    expect(failure('strings.render_template', '{{.}}', [1]).code).toBe('eval_type_error')
  })
})

describe('strings.render_template through evaluation', () => {
  const policy = (src: string) => compile({ 'p.rego': parseModule(src, { file: 'p.rego' }) }, {})
  const result = (p: Policy, query: string, opts: Record<string, unknown> = {}) =>
    p
      .prepare(query)
      .evalSync(opts)
      .results.map((r) => toJS(r.bindings.get('x') as Value))

  it('renders a template from a rule with Rego values as vars', () => {
    const p = policy(
      [
        'package t',
        'vars := {"user": {"name": "ana"}, "n": 3, "xs": [1, 2.5, "z"]}',
        'out := strings.render_template(`{{.user.name}}:{{range $i, $x := .xs}}{{if $i}},{{end}}{{$x}}{{end}}:{{len .xs}}:{{if eq .n "3"}}three{{end}}`, vars)',
      ].join('\n'),
    )
    expect(result(p, 'x := data.t.out')).toEqual(['ana:1,2.5,z:3:three'])
  })

  it('prints numbers as the text they were written as, as Go prints a json.Number', () => {
    const p = policy(
      [
        'package t',
        'out := strings.render_template(`{{.a}} {{.b}} {{.c}} {{.d}} {{.e}} {{len .a}}`, {"a": 1.50, "b": input.n, "c": 2.0, "d": 15e-1, "e": 1.5 + 0})',
      ].join('\n'),
    )
    expect(result(p, 'x := data.t.out', { input: parseJSON('{"n": 3.140}') })).toEqual([
      '1.50 3.140 2.0 15e-1 1.5 4',
    ])
  })

  it('is undefined on a template error, and reports it under strict built-in errors', () => {
    const p = policy('package t\nout := strings.render_template("{{if .x}}", {})')
    const run = p.prepare('x := data.t.out').evalSync()
    expect(run.results).toEqual([])
    expect(run.builtinErrors[0]?.message).toBe(
      'strings.render_template: template: template:1: unexpected EOF',
    )
    expect(() => p.prepare('x := data.t.out').evalSync({ strictBuiltinErrors: true })).toThrow(
      /strings\.render_template: template: template:1: unexpected EOF/,
    )
  })

  it('fails as OPA decodes a set or a non-string key in the variables', () => {
    const message = (vars: string) =>
      policy(`package t\nout := strings.render_template("{{.}}", ${vars})`)
        .prepare('x := data.t.out')
        .evalSync().builtinErrors[0]?.message
    expect(message('{"s": set()}')).toBe(
      "strings.render_template: invalid character 's' looking for beginning of value",
    )
    expect(message('{"s": {1, 2}}')).toBe(
      "strings.render_template: invalid character '1' looking for beginning of object key string",
    )
    expect(message('{"s": {"a"}}')).toBe("strings.render_template: invalid character '}' after object key")
    expect(message('{"s": {"a": {1: 2}}}')).toBe(
      "strings.render_template: invalid character '1' looking for beginning of object key string",
    )
  })

  it('stops a runaway template at the evaluation budget', () => {
    const p = policy(
      [
        'package t',
        'xs := numbers.range(1, 2000)',
        'out := strings.render_template("{{range .xs}}{{range $.xs}}.{{end}}{{end}}", {"xs": xs})',
      ].join('\n'),
    )
    expect(() => p.prepare('x := data.t.out').evalSync({ instructionLimit: 100_000 })).toThrow(
      /instructions limit exceeded/,
    )
    const tiny = policy(
      'package t\nout := strings.render_template("{{range .xs}}{{.}}{{end}}", {"xs": [1, 2]})',
    )
    expect(result(tiny, 'x := data.t.out', { instructionLimit: 100_000 })).toEqual(['12'])
  })
})
