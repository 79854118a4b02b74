import { describe, expect, it } from 'vitest'
import { bodyToString } from '../../../../compile/print.js'
import { compile, parseModule, partialEvaluate } from '../../../../core/rego/index.js'
import type { Expr, Term } from '../../../../core/rego/syntax/ast.js'
import { fromJS } from '../../../../core/rego/values/index.js'

// Rules of package `filters`, and the residual of `data.filters.include` with `input.t` unknown and
// `input.x` = "y". The expectations were taken before residuals of this shape were built straight
// in copy-propagated form (residual-locals.ts), from plugging then copy propagation; the last rows
// leave the shape and take that path.
const CASES: [string, string][] = [
  ['include if { input.t.a == 1; input.t.b != input.x }', 'input.t.a = 1; neq(input.t.b, "y")'],
  [
    'include if { input.t.b != input.x; input.t.c > 2 }\ninclude if { input.t.b == input.t.c }',
    'neq(input.t.b, "y"); gt(input.t.c, 2) | input.t.b = input.t.c',
  ],
  ['include if { x := input.t.b; x != "z"; x != "w" }', 'neq(input.t.b, "z"); neq(input.t.b, "w")'],
  ['include if { x := input.t.b; y := input.t.b; x != y }', 'neq(input.t.b, input.t.b)'],
  ['include if { x := input.t.b; startswith(x, "a") }', 'startswith(input.t.b, "a")'],
  ['include if { input.t.b == input.x }', '"y" = input.t.b'],
  ['include if { x := input.t.b; x == 1 }', '1 = input.t.b'],
  ['include if { input.t.b }', 'input.t.b'],
  ['include if { x := input.t.b; count(x) > 1 }', 'gt(count(input.t.b), 1)'],
  ['include if { not input.t.b == 1 }', 'not input.t.b = 1'],
  ['include if { input.t.b = y; y > 1 }', 'gt(input.t.b, 1)'],
  ['include if { input.t[i] == 1 }', 'input.t[i1] = 1'],
]

async function residual(rules: string) {
  const policy = compile({ 'f.rego': parseModule(`package filters\n${rules}\n`, { file: 'f.rego' }) })
  const { queries } = await partialEvaluate(policy, 'data.filters.include', {
    input: fromJS({ x: 'y' }),
    unknowns: ['input.t'],
  })
  return queries
}

describe('residuals built in copy-propagated form', () => {
  for (const [rules, want] of CASES) {
    it(rules, async () => {
      expect((await residual(rules)).map((q) => bodyToString(q)).join(' | ')).toBe(want)
    })
  }

  it('gives a substituted ref the location it has in the policy', async () => {
    const [query] = await residual('include if { input.t.a == 1; input.t.b != input.x }')
    const neq = query?.[1] as Expr
    expect(neq.index).toBe(1)
    const ref = (neq.terms as Term[])[1] as Term
    expect([neq.location?.row, neq.location?.col]).toEqual([2, 30])
    expect([ref.location?.row, ref.location?.col]).toEqual([2, 30])
  })
})
