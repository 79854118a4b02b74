/**
 * Compiling for `regent test` (`tests: true`), OPA's tester stages: RewriteDuplicateTestNames
 * (each definition of a test name is its own rule, `name#01`, ...) and InjectTestCaseFunc (each
 * case of a parameterized test is reported through `internal.test_case`, even when its body fails
 * later). Without `tests`, neither stage runs.
 */
import { describe, expect, it } from 'vitest'
import { createBuiltinContext } from '../../../../../core/rego/builtins/context.js'
import { bodyString, refString } from '../../../../../core/rego/compiler/text.js'
import { compilePolicy, type Policy } from '../../../../../core/rego/eval/policy.js'
import { parseModule } from '../../../../../core/rego/index.js'
import { toJS, type Value } from '../../../../../core/rego/values/index.js'

function compile(src: string, tests = true): Policy {
  return compilePolicy({ 'a_test.rego': parseModule(src, { file: 'a_test.rego' }) }, {}, { tests })
}

async function evaluate(policy: Policy, query: string): Promise<{ value: unknown; cases: unknown[] }> {
  const cases: Value[] = []
  const ctx = createBuiltinContext({ print: () => {}, testCase: (c) => cases.push(c) })
  const run = await policy.prepare(query).eval({ ctx })
  const value = run.results[0]?.expressions[0]?.value
  return { value: value === undefined ? undefined : toJS(value), cases: cases.map((c) => toJS(c)) }
}

function heads(policy: Policy): string[] {
  return policy.compiler.sortedModules().flatMap((m) => m.rules.map((r) => refString(r.head.ref)))
}

describe('RewriteDuplicateTestNames', () => {
  const src = [
    'package p',
    'test_x if true',
    'test_x if false',
    'test_x if 1 == 1',
    'helper if true',
    'helper if false',
    'a.test_y if false',
    'a.test_y if true',
  ].join('\n')

  it('numbers each further definition of a test in its package, and only tests', async () => {
    const policy = compile(src)
    expect(heads(policy)).toEqual([
      'test_x',
      'test_x#01',
      'test_x#02',
      'helper',
      'helper',
      'a.test_y',
      'a["test_y#01"]',
    ])
    expect((await evaluate(policy, 'data.p.test_x')).value).toBe(true)
    expect((await evaluate(policy, 'data.p["test_x#01"]')).value).toBeUndefined()
    expect((await evaluate(policy, 'data.p["test_x#02"]')).value).toBe(true)
    expect((await evaluate(policy, 'data.p.a["test_y#01"]')).value).toBe(true)
  })

  it('leaves the rules merged when not compiling for tests', async () => {
    const policy = compile(src, false)
    expect(heads(policy).filter((h) => h.startsWith('test_x'))).toEqual(['test_x', 'test_x', 'test_x'])
    expect((await evaluate(policy, 'data.p.test_x')).value).toBe(true)
  })
})

describe('InjectTestCaseFunc', () => {
  const src = [
    'package p',
    'test_concat[tc.note] if {',
    '  some tc in [{"note": "ok", "a": 1, "exp": 1}, {"note": "bad", "a": 2, "exp": 3}]',
    '  got := tc.a',
    '  got == tc.exp',
    '}',
  ].join('\n')

  it('reports every case reached, including one whose assertions then fail', async () => {
    const { value, cases } = await evaluate(compile(src), 'data.p.test_concat')
    expect(value).toEqual({ ok: true })
    expect(cases).toEqual([['ok'], ['bad']])
  })

  it('moves the compiler-made head assignment up to just below what it reads, and calls right after', () => {
    const rule = compile(src).compiler.sortedModules()[0]?.rules[0]
    const body = bodyString(rule?.body ?? [])
    const assignAt = body.search(/= __local\d+__\.note/)
    const callAt = body.indexOf('internal.test_case(')
    // `some tc in [...]` binds tc (renamed, as OPA renames every declared var) from the array.
    const bindAt = body.search(/__local\d+__ = __local\d+__\[__local\d+__\]/)
    expect(bindAt).toBeGreaterThanOrEqual(0)
    expect(bindAt).toBeLessThan(assignAt)
    expect(assignAt).toBeLessThan(callAt)
    // The assertion `got == tc.exp` (a unification once RewriteEquals ran) stays after the call.
    expect(callAt).toBeLessThan(body.search(/__local\d+__\.exp/))
  })

  it('calls right after the first expression naming a case var bound elsewhere than a head assignment', async () => {
    // `some name, tc in {...}` binds the head var `name` as the key of the domain, not through an
    // assignment of its own: OPA injects below the first expression that mentions it, so the
    // failing case "two" is still reported (and fails the test).
    const keyed = [
      'package p',
      'test_cases[name] if {',
      '  some name, tc in {"one": 1, "two": 2}',
      '  tc == 1',
      '}',
    ].join('\n')
    const policy = compile(keyed)
    const { value, cases } = await evaluate(policy, 'data.p.test_cases')
    expect(value).toEqual({ one: true })
    expect(cases).toEqual([['one'], ['two']])
    const body = bodyString(policy.compiler.sortedModules()[0]?.rules[0]?.body ?? [])
    expect(body.indexOf('internal.test_case(')).toBeLessThan(body.search(/__local\d+__ = 1/))
  })

  it('moves a head assignment up only past what binds the renamed locals it reads, as OPA', async () => {
    // `x` is unified, not declared: OPA does not rename it, so the head assignment `__local0__ =
    // x.note` reads no local and goes to the top; safety then runs it, and the call, after the
    // assertion, and the failing case "b" is not reported.
    const unified = [
      'package p',
      'test_x[x.note] := true if {',
      '  x = [{"note": "a", "v": 1}, {"note": "b", "v": 2}][_]',
      '  x.v == 1',
      '}',
    ].join('\n')
    const { value, cases } = await evaluate(compile(unified), 'data.p.test_x')
    expect(value).toEqual({ a: true })
    expect(cases).toEqual([['a']])
  })

  it('is not injected into plain tests or outside test compiles', () => {
    const plain = compile('package p\ntest_a if true')
    expect(bodyString(plain.compiler.sortedModules()[0]?.rules[0]?.body ?? [])).toBe('true')
    const off = compile(src, false)
    expect(bodyString(off.compiler.sortedModules()[0]?.rules[0]?.body ?? [])).not.toContain(
      'internal.test_case',
    )
  })
})
