import { describe, expect, it } from 'vitest'
import { defineBuiltin } from '../../../../core/rego/builtins/define.js'
import { DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { BufferTracer } from '../../../../core/rego/eval/trace.js'
import { compile, evaluate, type Policy, parseModule } from '../../../../core/rego/index.js'
import { t } from '../../../../core/rego/types/index.js'
import { fromJS, toJS } from '../../../../core/rego/values/index.js'

function policyOf(src: string, data: unknown = {}, options: Parameters<typeof compile>[2] = {}): Policy {
  return compile({ 'p.rego': parseModule(src, { file: 'p.rego' }) }, data, options)
}

function values(p: Policy, query: string, input?: unknown, opts: Record<string, unknown> = {}): unknown[] {
  const run = p.prepare(query).evalSync({ ...(input !== undefined ? { input: fromJS(input) } : {}), ...opts })
  return run.results.map((r) => Object.fromEntries([...r.bindings].map(([k, v]) => [k, toJS(v)])))
}

describe('evaluation', () => {
  it('reads a zero-argument head as a complete rule (OPA: f() = 1 is the rule f)', () => {
    const v0 = compile(
      {
        'p.rego': parseModule('package a\nf() = 1 { true }\ng() { true }\nt { f == 1; g }\n', {
          regoVersion: 'v0',
        }),
      },
      {},
    )
    expect(values(v0, 'x := data.a')).toEqual([{ x: { f: 1, g: true, t: true } }])
    const v1 = policyOf('package a\nf() := 1 if true\nt if f == 1\n')
    expect(values(v1, 'x := data.a')).toEqual([{ x: { f: 1, t: true } }])
  })

  it('reports expression values and user variable names', () => {
    const p = policyOf('package a\np := 1')
    const run = p.prepare('1 > 2').evalSync()
    expect(run.results).toHaveLength(1)
    expect(run.results[0]?.expressions[0]?.value).toBe(false)
    expect(values(p, 'x := data.a.p; y := x + 1')).toEqual([{ x: 1, y: 2 }])
  })

  it('enumerates base and virtual documents under a var', () => {
    const p = policyOf('package a\nv := 1', { a: { b: 2 }, c: 3 })
    expect(values(p, 'data.a[k] = x')).toEqual([
      { k: 'b', x: 2 },
      { k: 'v', x: 1 },
    ])
  })

  it('builds whole packages with empty sub-packages as objects', () => {
    const p = compile(
      {
        'a.rego': parseModule('package a\np := 1\nq if false', { file: 'a.rego' }),
        'b.rego': parseModule('package a.b\nr if false', { file: 'b.rego' }),
      },
      {},
    )
    expect(values(p, 'x := data.a')).toEqual([{ x: { b: {}, p: 1 } }])
  })

  it('gives the same answers with and without indexing and early exit', () => {
    const src = `package a
allow if input.role == "admin"
allow if input.role == "owner"
allow if { some g in input.groups; g == "ops" }
n := count([r | some r in input.groups])`
    const p = policyOf(src)
    for (const input of [
      { role: 'admin', groups: [] },
      { role: 'x', groups: ['dev', 'ops'] },
      { role: 'x', groups: [] },
    ]) {
      const plain = values(p, 'a := data.a.allow; n := data.a.n', input)
      const slow = values(p, 'a := data.a.allow; n := data.a.n', input, { indexing: false, earlyExit: false })
      expect(slow).toEqual(plain)
    }
  })

  it('gives the same answers with tracing (no hoisting) as without', () => {
    const src = `package a
allow if {
  some role in data.roles[input.user]
  some perm in data.perms[role]
  perm.action == input.action
}`
    const data = {
      roles: { u: ['r1', 'r2'] },
      perms: { r1: [{ action: 'read' }], r2: [{ action: 'write' }] },
    }
    const p = policyOf(src, data)
    const input = { user: 'u', action: 'write' }
    const tracer = new BufferTracer()
    expect(values(p, 'x := data.a.allow', input, { tracer })).toEqual(values(p, 'x := data.a.allow', input))
    expect(tracer.events.some((e) => e.op === 'Fail')).toBe(true)
  })

  it('swallows built-in errors unless strict', () => {
    const p = policyOf('package a\np := 1 / 0')
    const run = p.prepare('x := data.a.p').evalSync()
    expect(run.results).toEqual([])
    expect(run.builtinErrors[0]?.message).toBe('div: divide by zero')
    expect(() => p.prepare('x := data.a.p').evalSync({ strictBuiltinErrors: true })).toThrow(
      /div: divide by zero/,
    )
  })

  it('stops at the instruction limit and the deadline', () => {
    const p = policyOf('package a\nn := count([x | some x in numbers.range(1, 200000)])')
    expect(() => p.prepare('x := data.a.n').evalSync({ instructionLimit: 5000 })).toThrow(
      /instructions limit exceeded/,
    )
    expect(() => p.prepare('x := data.a.n').evalSync({ deadline: Date.now() - 1 })).toThrow(/timed out/)
  })

  it('awaits asynchronous built-ins by evaluating again, printing once', async () => {
    let calls = 0
    const slow = defineBuiltin({
      name: 'test.slow_double',
      category: 'test',
      description: 'doubles, asynchronously',
      args: [t.named('x', t.number)],
      result: t.named('y', t.number),
      async: true,
      impl: async (_ctx, [x]) => {
        calls++
        return (x as number) * 2
      },
    })
    const p = policyOf(
      'package a\np := y if {\n  print("before")\n  y := test.slow_double(21)\n}',
      {},
      {
        builtins: [...DEFAULT_BUILTINS, slow],
      },
    )
    const printed: string[] = []
    const { createBuiltinContext } = await import('../../../../core/rego/builtins/context.js')
    const run = await p
      .prepare('x := data.a.p')
      .eval({ ctx: createBuiltinContext({ print: (m) => printed.push(m) }) })
    expect(toJS(run.results[0]?.bindings.get('x') ?? null)).toBe(42)
    expect(calls).toBe(1)
    expect(printed).toEqual(['before'])
  })

  it('evaluates through the public API', async () => {
    const p = policyOf('package a\nallow if input.user == "alice"')
    const run = await evaluate('data.a.allow', { user: 'alice' }, { policy: p })
    expect(run.results[0]?.expressions[0]?.value).toBe(true)
  })
})
