/**
 * The evaluation budget (core/rego/eval/budget.ts): every form of runaway query stops with
 * `eval_instruction_limit_error` (work) or `eval_cancel_error` (deadline), built-ins that would
 * allocate past the budget are refused before they allocate, budget errors are never swallowed
 * as built-in errors, and partial evaluation honours the same budget.
 */
import { describe, expect, it } from 'vitest'
import { EngineBackend } from '../../../../compile/backend.js'
import {
  compile,
  DEFAULT_EVALUATION_BUDGET,
  type EvaluationBudget,
  type Policy,
  parseModule,
  partialEvaluate,
  resolveBudget,
} from '../../../../core/rego/index.js'
import { fromJS } from '../../../../core/rego/values/index.js'

const MODULE = `package p
import rego.v1

big := numbers.range(1, 3000)

every_loop if { every a in big { every b in big { a != -b } } }

nested_count := count([1 | some a in big; some b in big])

walked := count([p | walk(big, [p, _]); walk(big, _)])

doubled := d if {
  a0 := numbers.range(1, 1000)
  a1 := array.concat(a0, a0)
  a2 := array.concat(a1, a1)
  a3 := array.concat(a2, a2)
  a4 := array.concat(a3, a3)
  a5 := array.concat(a4, a4)
  a6 := array.concat(a5, a5)
  a7 := array.concat(a6, a6)
  a8 := array.concat(a7, a7)
  a9 := array.concat(a8, a8)
  a10 := array.concat(a9, a9)
  a11 := array.concat(a10, a10)
  a12 := array.concat(a11, a11)
  a13 := array.concat(a12, a12)
  d := count(a13)
}

f(x) := x + 1

recursive_calls := count([y | some a in big; some b in big; y := f(a + b)])

residual if { some a in big; some b in big; input.x == a + b }
`

function policy(): Policy {
  return compile({ 'p.rego': parseModule(MODULE, { file: 'p.rego' }) }, {})
}

async function errorOf(p: Policy, query: string, budget: EvaluationBudget): Promise<{ code?: string }> {
  try {
    await p.query(query).eval({ budget })
  } catch (err) {
    return err as { code?: string }
  }
  throw new Error(`${query} finished within ${JSON.stringify(budget)}`)
}

const WORK_ONLY = resolveBudget({ timeoutMs: 0 })
const TIME_ONLY = resolveBudget({ timeoutMs: 300, instructionLimit: 0 })

describe('evaluation budget', () => {
  const p = policy()

  it('has documented defaults, and refuses a negative or fractional part naming it', () => {
    expect(DEFAULT_EVALUATION_BUDGET).toEqual({ timeoutMs: 10_000, instructionLimit: 5_000_000 })
    expect(resolveBudget({ instructionLimit: 7 })).toEqual({ timeoutMs: 10_000, instructionLimit: 7 })
    expect(() => resolveBudget({ timeoutMs: -1 })).toThrow('timeoutMs must be a whole number')
    expect(() => resolveBudget({ instructionLimit: 1.5 })).toThrow('instructionLimit must be')
  })

  it.each([
    [
      'the issue’s nested comprehension',
      'input.x == count([1 | some a in numbers.range(1,10000); some b in numbers.range(1,10000)])',
    ],
    ['nested iteration', 'data.p.nested_count'],
    ['every inside every', 'data.p.every_loop'],
    ['walk over a walk', 'data.p.walked'],
    ['function calls in a loop', 'data.p.recursive_calls'],
  ])(
    'stops %s with eval_instruction_limit_error (work) or eval_cancel_error (deadline)',
    async (_, query) => {
      expect((await errorOf(p, query, WORK_ONLY)).code).toBe('eval_instruction_limit_error')
      expect((await errorOf(p, query, TIME_ONLY)).code).toBe('eval_cancel_error')
    },
  )

  it('stops arrays doubled by array.concat (output charged after each call)', async () => {
    expect((await errorOf(p, 'data.p.doubled', WORK_ONLY)).code).toBe('eval_instruction_limit_error')
  })

  it('refuses numbers.range(1, 1e7) before allocating, without swallowing the error', async () => {
    const before = process.memoryUsage().heapUsed
    for (const query of [
      'x := numbers.range(1, 1e7)',
      'x := numbers.range_step(0, 1e12, 3)',
      // Not strict: a built-in error would make the call undefined; the budget's stops the query.
      'x := [y | y := numbers.range(1, 1e7)[_]]',
    ]) {
      expect((await errorOf(p, query, DEFAULT_EVALUATION_BUDGET)).code).toBe('eval_instruction_limit_error')
    }
    // Without the budget the first call alone takes some 200 MB of heap.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024)
  })

  it('charges sprintf padding before building it', async () => {
    expect((await errorOf(p, 'x := sprintf("%0199999999d", [1])', DEFAULT_EVALUATION_BUDGET)).code).toBe(
      'eval_instruction_limit_error',
    )
  })

  it('lets what fits run, counting built-in output as work', async () => {
    const run = await p
      .query('x := count(numbers.range(1, 100000))')
      .eval({ budget: DEFAULT_EVALUATION_BUDGET })
    expect(run.results[0]?.bindings.get('x')).toBe(100000)
    expect(run.instructions).toBeGreaterThanOrEqual(100000)
    const small = resolveBudget({ instructionLimit: 50_000 })
    expect((await errorOf(p, 'x := count(numbers.range(1, 100000))', small)).code).toBe(
      'eval_instruction_limit_error',
    )
  })

  it('stops partial evaluation under the same budget', async () => {
    for (const [budget, code] of [
      [WORK_ONLY, 'eval_instruction_limit_error'],
      [TIME_ONLY, 'eval_cancel_error'],
    ] as const) {
      await expect(
        partialEvaluate(p, 'data.p.residual', { input: fromJS({}), unknowns: ['input.x'], budget }),
      ).rejects.toMatchObject({ code })
    }
  })

  it('is the compile backend’s default, and a per-call budget overrides it', async () => {
    const backend = new EngineBackend({ modules: { 'p.rego': parseModule(MODULE, { file: 'p.rego' }) } })
    const request = {
      query: 'data.p.residual',
      input: {},
      unknowns: [],
      disableInlining: [],
      nondeterministicBuiltins: false,
    }
    await expect(
      backend.partialEvaluate({ ...request, query: 'input.x == count(numbers.range(1, 1e7))' }),
    ).rejects.toMatchObject({ code: 'eval_instruction_limit_error' })
    await expect(
      backend.evaluate({ query: 'data.p.nested_count', input: undefined }, { budget: TIME_ONLY }),
    ).rejects.toMatchObject({ code: 'eval_cancel_error' })
  })
})
