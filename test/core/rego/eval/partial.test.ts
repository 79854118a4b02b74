import { describe, expect, it } from 'vitest'
import { exprToString } from '../../../../compile/print.js'
import { partialEvaluate } from '../../../../core/rego/eval/partial.js'
import { compile, parseModule } from '../../../../core/rego/index.js'
import type { Body, Module } from '../../../../core/rego/syntax/ast.js'
import { fromJS } from '../../../../core/rego/values/index.js'

interface Case {
  policy: string
  query?: string
  input?: unknown
  unknowns?: string[]
  data?: unknown
  disableInlining?: string[]
  nondeterministicBuiltins?: boolean
  shallowInlining?: boolean
}

async function pe(c: Case) {
  const policy = compile({ 'p.rego': parseModule(c.policy, { file: 'p.rego' }) }, c.data ?? {})
  const result = await partialEvaluate(policy, c.query ?? 'data.filters.include', {
    ...(c.input !== undefined ? { input: fromJS(c.input) } : {}),
    unknowns: c.unknowns ?? ['input.fruits'],
    ...(c.disableInlining ? { disableInlining: c.disableInlining } : {}),
    ...(c.nondeterministicBuiltins !== undefined
      ? { nondeterministicBuiltins: c.nondeterministicBuiltins }
      : {}),
    ...(c.shallowInlining ? { shallowInlining: true } : {}),
  })
  return {
    queries: result.queries.map(text),
    support: result.support.flatMap(supportText),
  }
}

const text = (body: Body) => body.map(exprToString).join('; ')

function supportText(m: Module): string[] {
  const pkg = m.package.path
    .slice(1)
    .map((t) => t.value)
    .join('.')
  return m.rules.map((r) => {
    const head = r.head.ref.map((t) => t.value).join('.')
    const args = r.head.args
      ? `(${r.head.args.map((a) => exprToString({ type: 'expr', index: 0, terms: a })).join(', ')})`
      : ''
    const value = r.head.key
      ? ` contains ${exprToString({ type: 'expr', index: 0, terms: r.head.key })}`
      : r.head.value
        ? ` = ${exprToString({ type: 'expr', index: 0, terms: r.head.value })}`
        : ''
    return `${r.default ? 'default ' : ''}${pkg}.${head}${args}${value} { ${text(r.body)} }`
  })
}

describe('partial evaluation', () => {
  it('keeps what depends on unknowns and evaluates the rest', async () => {
    const r = await pe({
      policy: `package filters
include if input.fruits.price > 100
include if { input.fruits.name == "apple"; input.user == "bob" }
include if { input.fruits.name == "pear"; input.user == "alice" }`,
      input: { user: 'bob' },
    })
    expect(r.queries).toEqual(['gt(input.fruits.price, 100)', 'input.fruits.name = "apple"'])
    expect(r.support).toEqual([])
  })

  it('answers no queries when nothing can hold, and an empty query when everything does', async () => {
    expect(
      (await pe({ policy: 'package filters\ninclude if input.user == "x"', input: { user: 'y' } })).queries,
    ).toEqual([])
    expect(
      (await pe({ policy: 'package filters\ninclude if input.user == "x"', input: { user: 'x' } })).queries,
    ).toEqual([''])
  })

  it('inlines rules and functions, copy-propagating their locals away', async () => {
    const r = await pe({
      policy: `package filters
include if cheap(input.fruits)
include if named
cheap(f) if f.price < limit
limit := 10
named if { x := input.fruits.name; x == input.fav }`,
      input: { fav: 'kiwi' },
    })
    expect(r.queries).toEqual(['lt(input.fruits.price, 10)', '"kiwi" = input.fruits.name'])
  })

  it('evaluates data and known input inside rule bodies', async () => {
    const r = await pe({
      policy: `package filters
include if "admin" in data.roles[input.user]
include if { "reader" in data.roles[input.user]; input.users.name == input.user }`,
      data: { roles: { bob: ['reader'] } },
      input: { user: 'bob' },
      unknowns: ['input.users'],
    })
    expect(r.queries).toEqual(['"bob" = input.users.name'])
  })

  it('keeps default rules as support rules', async () => {
    const r = await pe({
      policy: `package filters
include if only_pineapples
default only_pineapples := false
only_pineapples if input.fruits.name == "pineapple"`,
    })
    expect(r.queries).toEqual(['data.partial.filters.only_pineapples'])
    expect(r.support).toEqual([
      'partial.filters.only_pineapples = true { input.fruits.name = "pineapple" }',
      'default partial.filters.only_pineapples = false { true }',
    ])
  })

  it('keeps a whole multi-value rule as support rules', async () => {
    const r = await pe({
      policy: `package filters
include if input.fruits.id in allowed
allowed contains x if { some x in input.ids }
allowed contains "z" if input.fruits.owner == "me"`,
      input: { ids: ['a'] },
    })
    expect(r.queries).toEqual(['internal.member_2(input.fruits.id, data.partial.filters.allowed)'])
    expect(r.support).toEqual([
      'partial.filters.allowed contains "a" { true }',
      'partial.filters.allowed contains "z" { input.fruits.owner = "me" }',
    ])
  })

  it('complements simple negations in place and keeps others as support rules', async () => {
    const inline = await pe({
      policy: 'package filters\ninclude if not input.fruits.name == "x"',
    })
    expect(inline.queries).toEqual(['not input.fruits.name = "x"'])
    const support = await pe({
      policy: 'package filters\ninclude if not other\nother if input.fruits.price > 100',
    })
    expect(support.queries).toEqual(['not data.partial.__not1_0_2__'])
    expect(support.support).toEqual(['partial.__not1_0_2__ = true { gt(input.fruits.price, 100) }'])
  })

  it('treats negations of undefined as true and of unconditional results as false', async () => {
    const r = await pe({
      policy: `package filters
include if { not input.missing; input.fruits.a == 1 }
include if { not input.present; input.fruits.b == 2 }`,
      input: { present: true },
    })
    expect(r.queries).toEqual(['input.fruits.a = 1'])
  })

  it('keeps rules and functions with else by reference', async () => {
    const rule = await pe({
      policy:
        'package filters\ninclude if other\nother if input.fruits.price > 100\nelse := input.fruits.extra',
    })
    expect(rule.queries).toEqual(['data.filters.other'])
    const fn = await pe({
      policy: 'package filters\ninclude if func(input.fruits)\nfunc(f) if f.price > 100\nelse := true',
    })
    expect(fn.queries).toEqual(['data.filters.func(input.fruits)'])
  })

  it('honours disableInlining', async () => {
    const r = await pe({
      policy: 'package filters\ninclude if allowed\nallowed if input.fruits.price > 1',
      disableInlining: ['data.filters.allowed'],
    })
    expect(r.queries).toEqual(['data.partial.filters.allowed'])
    expect(r.support).toEqual(['partial.filters.allowed = true { gt(input.fruits.price, 1) }'])
  })

  it('keeps rules and functions that depend on unknowns as support rules under shallow inlining', async () => {
    const policy = `package filters
include if { allowed; cheap(input.fruits.price) }
include if known
allowed if input.fruits.colour == "red"
cheap(p) if p < 10
known if input.fav == "kiwi"
`
    const inlined = await pe({ policy, input: { fav: 'kiwi' } })
    expect(inlined.queries).toEqual(['input.fruits.colour = "red"; lt(input.fruits.price, 10)', ''])
    const shallow = await pe({ policy, input: { fav: 'kiwi' }, shallowInlining: true })
    // The rule that depends on nothing unknown (known) is still inlined; the query itself depends on
    // unknowns, so it becomes a support rule too, and nothing is copy-propagated.
    expect(shallow.queries).toEqual(['data.partial.filters.include = __term_0_0; __term_0_0'])
    expect(shallow.support).toEqual([
      'partial.filters.allowed = true { input.fruits.colour = "red" }',
      'partial.filters.cheap(__local0__3) = true { lt(__local0__3, 10) }',
      'partial.filters.include = true { data.partial.filters.allowed = __term_1_0; __term_1_0; __local1__1 = input.fruits.price; data.partial.filters.cheap(__local1__1) }',
      'partial.filters.include = true { true }',
    ])
  })

  it('folds a call whose output is used once into its use', async () => {
    const r = await pe({ policy: 'package filters\ninclude if (input.fruits.colour == "orange") > 0' })
    expect(r.queries).toEqual(['gt(equal(input.fruits.colour, "orange"), 0)'])
  })

  it('saves non-deterministic built-ins unless asked to evaluate them', async () => {
    const policy = 'package filters\ninclude if { t := time.now_ns(); t > 0; input.fruits.a == 1 }'
    const saved = await pe({ policy })
    expect(saved.queries).toEqual(['gt(time.now_ns(), 0); input.fruits.a = 1'])
    const evaluated = await pe({ policy, nondeterministicBuiltins: true })
    expect(evaluated.queries).toEqual(['input.fruits.a = 1'])
  })

  it('unrolls iteration over known collections', async () => {
    const r = await pe({
      policy: 'package filters\ninclude if { some id in input.ids; input.fruits.id == id }',
      input: { ids: ['a', 'b'] },
    })
    expect(r.queries).toEqual(['input.fruits.id = "a"', 'input.fruits.id = "b"'])
  })

  it('looks up one key of a known object rule without evaluating its other keys, as evaluation does', async () => {
    // Found by the differential fuzzer: partial evaluation built the whole object and raised the
    // conflict under "a", where evaluation of o["b"] (and OPA's) answers undefined.
    const policy = `package filters
o[k] := 1 if { some k in ["a"] }
o[k] := 2 if { some k in ["a"] }
include if o["b"] == 1
`
    expect((await pe({ policy, unknowns: [] })).queries).toEqual([])
    expect((await pe({ policy, unknowns: ['input'] })).queries).toEqual([])
    // The conflict itself is still an error.
    await expect(pe({ policy: policy.replace('o["b"]', 'o["a"]'), unknowns: [] })).rejects.toThrow(
      /object keys must be unique/,
    )
  })

  it('keeps a naked unknown ref as a statement', async () => {
    const r = await pe({ policy: 'package filters\ninclude if input.fruits.ripe' })
    expect(r.queries).toEqual(['input.fruits.ripe'])
  })

  it('defaults the unknowns to input', async () => {
    const policy = compile({ 'p.rego': parseModule('package x\np if input.a == 1', { file: 'p.rego' }) }, {})
    const r = await partialEvaluate(policy, 'data.x.p')
    expect(r.queries.map(text)).toEqual(['input.a = 1'])
    expect(r.metrics.timer_rego_partial_eval_ns).toBeGreaterThan(0)
  })

  it('binds query vars in the residual', async () => {
    const policy = compile({ 'p.rego': parseModule('package x\np := input.a + 1', { file: 'p.rego' }) }, {})
    const r = await partialEvaluate(policy, 'y = data.x.p')
    expect(r.queries.map(text)).toEqual(['plus(input.a, 1, y)'])
  })

  it('evaluates a known ref against an unknown one first, its value written first (OPA biunifyValues)', async () => {
    const r = await pe({
      policy: `package filters
include if input.fruits.colour = input.fav
include if input.fav = input.fruits.name
include if { some x; x = input.fruits.kind; x = input.fav }`,
      input: { fav: 'green' },
    })
    expect(r.queries).toEqual([
      '"green" = input.fruits.colour',
      '"green" = input.fruits.name',
      '"green" = input.fruits.kind',
    ])
  })

  it('keeps the sides of a saved unification in the order written, bound vars plugged (OPA TestTopDownPartialEval)', async () => {
    const policy = compile({ 'p.rego': parseModule('package x\nr if 1 == input.x', { file: 'p.rego' }) }, {})
    const run = async (q: string) =>
      (await partialEvaluate(policy, q, { unknowns: ['input'] })).queries.map(text)
    expect(await run('1 = input.x')).toEqual(['1 = input.x'])
    expect(await run('input.x = 1')).toEqual(['input.x = 1'])
    expect(await run('data.x.r')).toEqual(['1 = input.x'])
    expect(await run('x = 1; y = 2; input.x = x; y = input.y')).toEqual([
      'input.x = 1; 2 = input.y; x = 1; y = 2',
    ])
    // The value of a known rule is written first, as OPA writes it; a base document's is not.
    const known = compile(
      { 'p.rego': parseModule('package t\np = x if { x = "foo" }', { file: 'p.rego' }) },
      { d: { k: 'bar' } },
    )
    const k = await partialEvaluate(known, 'input.x = data.t.p; data.d.k = input.y', { unknowns: ['input'] })
    expect(k.queries.map(text)).toEqual(['"foo" = input.x; input.y = "bar"'])
    // An unbound var on the right stays on the right, in the query and in inlined rule bodies.
    expect(await run('input = x')).toEqual(['input = x'])
    expect(await run('input = x; x = false; x')).toEqual(['input = false; false; x = false'])
    const inlined = compile(
      { 'p.rego': parseModule('package t\np = x if input.x = x', { file: 'p.rego' }) },
      {},
    )
    const r = await partialEvaluate(inlined, 'data.t.p = 1', { unknowns: ['input'] })
    expect(r.queries.map(text)).toEqual(['input.x = 1'])
  })

  it("rewrites the query's == to = after the safety check, as OPA's PrepareForPartial does", async () => {
    // A plain query keeps `==` (undefined here); partial evaluation keeps the ref in the negation.
    const r = await pe({ policy: 'package filters', query: 'not input.x == 1', input: {} })
    expect(r.queries).toEqual([''])
  })
})

describe('failed expressions', () => {
  it('lists the expressions that produced no result, once each, negations left out', async () => {
    const policy = compile(
      {
        'p.rego': parseModule(
          `package filters
include if {
  some x in [1, 2, 3]
  input.fruit.cost < x
}
include if not input.fav
include if input.fruits.colour == input.fav
`,
          { file: 'p.rego' },
        ),
      },
      {},
    )
    const result = await partialEvaluate(policy, 'data.filters.include', {
      input: fromJS({ fav: 'green' }),
      unknowns: ['input.fruits'],
    })
    expect(result.queries.map(text)).toEqual(['"green" = input.fruits.colour'])
    // Once, although the loop ran it three times (as the compiler left it: the ref may be hoisted).
    expect(result.failedExpressions.map(exprToString)).toEqual([expect.stringContaining('input.fruit.cost')])
  })
  it('gives an equality copy propagation puts back no location (OPA builds it anew)', async () => {
    const policy = compile(
      {
        'p.rego': parseModule(
          'package filters\ninclude if {\n  input.fruits.a == 1\n  input.fruits.colour = _\n}\n',
          {
            file: 'p.rego',
          },
        ),
      },
      {},
    )
    const result = await partialEvaluate(policy, 'data.filters.include', { unknowns: ['input.fruits'] })
    const body = result.queries[0] ?? []
    expect(body.map(exprToString)).toEqual(['input.fruits.a = 1', '$01 = input.fruits.colour'])
    expect(body.map((e) => (e.location ? [e.location.row, e.location.col] : undefined))).toEqual([
      [3, 3],
      undefined,
    ])
  })
})

// Residuals that used to claim more than the policy says (always true, never true) or failed.
describe('partial evaluation: residuals that keep their conditions', () => {
  it('saves an `every` whose body reads an unknown instead of calling it always true', async () => {
    const r = await pe({
      policy: 'package filters\ninclude if {\n  every x in [1, 2] { x > input.fruits.n }\n}\n',
    })
    expect(r.queries).toEqual([
      'every __local0__1, __local1__1 in [1, 2] { __local3__1 = input.fruits.n; gt(__local1__1, __local3__1) }',
    ])
  })

  it('plugs a var bound outside an `every` body into it (a function argument closed over)', async () => {
    const r = await pe({
      policy:
        'package filters\ninclude if f(input.fruits)\nf(x) if {\n  every y in [1] { a = x; y == 1 }\n}\n',
    })
    // The call needed input.fruits defined, which an `every` over an empty domain would not check:
    // that condition stays (OPA drops it).
    expect(r.queries).toEqual([
      'every __local1__2, __local2__2 in [1] { a2 = input.fruits; __local2__2 = 1 }; __localcp0__ = input.fruits',
    ])
  })

  it('saves a set unification with an unknown member instead of failing it', async () => {
    const r = await pe({ policy: 'package filters\ninclude if {\n  x = input.fruits\n  {x} = {1}\n}\n' })
    expect(r.queries).toEqual(['{input.fruits} = {1}'])
  })

  it('marks the outputs of a `with` saved for its unknown value unknown', async () => {
    const r = await pe({
      query: 'data.filters.p = z',
      policy: `package filters
q = 1 if { input.fruits.a = 1 }
p = y if { x = q with data.bar as input.fruits.b; plus(x, 1, y) }
`,
    })
    expect(r.queries).toEqual(['x1 = data.filters.q with data.bar as input.fruits.b; plus(x1, 1, z)'])
  })

  it('saves a read of a base document whose inlining is disabled, even one not loaded', async () => {
    const policy = `package filters
include if { k = "foo"; m = "bar"; data.base[k][x][m] = 1 }
`
    const r = await pe({ policy, disableInlining: ['data.base'] })
    expect(r.queries).toEqual(['data.base.foo[x1].bar = 1'])
    const loaded = await pe({ policy, disableInlining: ['data.base'], data: { base: { foo: [{ bar: 2 }] } } })
    expect(loaded.queries).toEqual(['data.base.foo[x1].bar = 1'])
  })

  it('inlines a rule on the other side of a saved ref, not leaving it in the residual', async () => {
    const r = await pe({
      policy: `package filters
include if { a = 1; b = 2; q[a] = r[b] }
q = a if { a = input.fruits.a }
r = b if { b = input.fruits.b }
`,
    })
    expect(r.queries).toEqual(['input.fruits.a[1] = input.fruits.b[2]'])
  })

  it('saves a `with` whose replacement function reads unknowns, naming the replacement', async () => {
    const r = await pe({
      query: 'data.filters.p = a',
      policy: `package filters
mock_concat(x, _) = concat(x, input.fruits)
p if { q with concat as mock_concat }
q if { concat("/", ["a", "b"], "foo/bar") }
`,
    })
    expect(r.queries).toEqual(['data.filters.q with concat as data.filters.mock_concat; a = true'])
  })
})
