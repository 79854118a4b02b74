/**
 * Policies shaped unlike hand-written ones: very long rule bodies, long chains of rules that read
 * each other, long recursive cycles. Each once overflowed the stack or took minutes to compile
 * (cubic safety reordering, a recursive cycle search, rule types resolved one link at a time); the
 * figures are in `npm run bench -- compile-policy`. These tests check the answers. Evaluation
 * recurses per expression and per rule, so it is tested on shorter bodies and chains, and past its
 * depth it fails with a plain error (docs/evaluator.md).
 */
import { describe, expect, it } from 'vitest'
import {
  compile,
  type Policy,
  parseModule,
  partialEvaluateSync,
  RegoErrors,
} from '../../../../core/rego/index.js'
import { fromJS, toJS } from '../../../../core/rego/values/index.js'

function policyOf(src: string): Policy {
  return compile({ 'p.rego': parseModule(src, { file: 'p.rego' }) }, {})
}

function errorsOf(src: string): string[] {
  try {
    policyOf(src)
    return []
  } catch (err) {
    if (!(err instanceof RegoErrors)) throw err
    return err.errors.map((e) => `${e.code}: ${e.message}`)
  }
}

function resultOf(p: Policy, query: string, input?: unknown): unknown {
  const run = p.prepare(`x := ${query}`).evalSync(input === undefined ? {} : { input: fromJS(input) })
  const x = run.results[0]?.bindings.get('x')
  return x === undefined ? undefined : toJS(x)
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

describe('large policies', () => {
  it('compiles a rule body of 2,000 expressions, and evaluates one of 200', () => {
    const body = (n: number) =>
      `package long\n\nlast := x${n} if {\n\tx0 := 0\n${range(n)
        .map((i) => `\tx${i + 1} := x${i} + input.step`)
        .join('\n')}\n}`
    expect(errorsOf(body(2000))).toEqual([])
    expect(resultOf(policyOf(body(200)), 'data.long.last', { step: 3 })).toBe(600)
  })

  it('reorders a long body written last expression first', () => {
    const body = (n: number) =>
      `package long\n\nlast := x${n} if {\n${range(n)
        .map((i) => `\tx${n - i} = x${n - i - 1} * 2`)
        .join('\n')}\n\tx0 = input.one\n}`
    expect(errorsOf(body(2000))).toEqual([])
    expect(resultOf(policyOf(body(100)), 'data.long.last', { one: 1 })).toBe(2 ** 100)
  })

  it('hoists invariant lookups of a long body with closures, and only those', () => {
    const body = (n: number) =>
      `package long\n\nsum := s if {\n\tsome z in input.zs\n${range(n)
        .map((i) => `\tc${i} := count([y | some y in input.xs; y > ${i} + z])`)
        .join('\n')}\n\tk = input.k\n\ts := c0 + c${n - 1} + k\n}`
    expect(errorsOf(body(2000))).toEqual([])
    expect(resultOf(policyOf(body(100)), 'data.long.sum', { zs: [0], xs: [0, 1, 50, 600], k: 10 })).toBe(
      3 + 1 + 10,
    )
  })

  it('says plainly when evaluation nests deeper than the JavaScript stack', () => {
    const lines = range(3000).map((i) => `\tx${i + 1} := x${i} + 1`)
    const p = policyOf(`package long\n\nlast := x3000 if {\n\tx0 := 0\n${lines.join('\n')}\n}`)
    expect(() => resultOf(p, 'data.long.last')).toThrow(
      expect.objectContaining({
        code: 'eval_internal_error',
        message: expect.stringMatching(/nested too deeply/),
      }),
    )
  })

  it('says so too when partial evaluation nests deeper than the stack', () => {
    const body = (n: number) =>
      `package filters\n\nallow if {\n\tx0 := 0\n${range(n)
        .map((i) => `\tx${i + 1} := x${i} + 1`)
        .join('\n')}\n\tinput.tickets.cost > x${n}\n}`
    const residual = partialEvaluateSync(policyOf(body(100)), 'data.filters.allow == true', {
      unknowns: ['input.tickets'],
    })
    expect(residual.queries.map((q) => q.length)).toEqual([1])
    expect(() =>
      partialEvaluateSync(policyOf(body(3000)), 'data.filters.allow == true', {
        unknowns: ['input.tickets'],
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'eval_internal_error',
        message: expect.stringMatching(/nested too deeply/),
      }),
    )
  })

  it('compiles a chain of 10,000 rules that read each other, and evaluates a short one', () => {
    const chain = (n: number) =>
      `package chain\n${range(n)
        .map((i) => `r${i} := data.chain.r${i + 1} + 1`)
        .join('\n')}\nr${n} := 0`
    expect(errorsOf(chain(10_000))).toEqual([])
    expect(resultOf(policyOf(chain(150)), 'data.chain.r0')).toBe(150)
  })

  it('finds a type error through a chain of 1,000 rules and 1,000 functions', () => {
    const rules = range(1000).map((i) => `r${i} := data.chain.r${i + 1}`)
    const funcs = range(1000).map((i) => `f${i}(x) := f${i + 1}(x)`)
    const src = `package chain\n${rules.join('\n')}\nr1000 := "text"\n${funcs.join('\n')}\nf1000(x) := "text"\n`
    expect(errorsOf(`${src}p if data.chain.r0 + 1 > 0`)).toEqual([
      'rego_type_error: plus: invalid argument(s)',
    ])
    expect(errorsOf(`${src}p if f0(1) + 1 > 0`)).toEqual(['rego_type_error: plus: invalid argument(s)'])
  })

  it('reports a recursive cycle of 2,000 rules with its whole path', () => {
    const rules = range(2000).map((i) => `r${i} := data.cycle.r${(i + 1) % 2000}`)
    const errors = errorsOf(`package cycle\n${rules.join('\n')}`)
    expect(errors).toHaveLength(11) // ten errors, then "error limit reached"
    const path = [...range(2000).map((i) => `r${i}`), 'r0'].join(' -> ')
    expect(errors[0]).toBe(`rego_recursion_error: rule r0 is recursive: ${path}`)
  })
})
