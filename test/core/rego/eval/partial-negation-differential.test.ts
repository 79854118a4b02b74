/**
 * Differential test of partial evaluation for `not` over values read from the input: a copy such as
 * `u := input.user` makes the body fail when `input.user` is undefined, and the residual must keep
 * that when copy propagation folds `u` into a negation (`not input.user = "alice"` alone holds
 * without `input.user`). For each policy and input, evaluating `data.p.allow` must agree with
 * evaluating the residual (queries as rules of a `residual` package, plus the support modules), as
 * OPA's users do; the inputs include ones missing the fields read.
 */
import { describe, expect, it } from 'vitest'
import { exprToString } from '../../../../compile/print.js'
import { partialEvaluate } from '../../../../core/rego/eval/partial.js'
import { compile, formatModule, parseModule } from '../../../../core/rego/index.js'
import { fromJS } from '../../../../core/rego/values/index.js'

const DATA = `package q

listed := {"alice": true}

roles := {"alice": "admin", "bob": "dev"}
`

const HELPERS = `
is_alice(x) if x == "alice"

deny(x) if data.q.listed[x]

blocked if {
  u := input.user
  data.q.listed[u]
}
`

/** Bodies of `allow`: each reads the input under a `not`, most through a copy. */
const BODIES = [
  'u := input.user; not data.q.listed[u]',
  'u := input.user; not u == "alice"',
  'u := input.a.b; not data.q.listed[u]',
  'not data.q.listed[input.user]',
  'some u in input.users; not data.q.listed[u]',
  'not input.x > 2',
  'x := input.x; not x > 2',
  'not input.user == "alice"',
  'u := input.user; not u.name == "alice"',
  'r := input.role; not r in {"admin", "root"}',
  'u := input.user; not startswith(u, "a")',
  'u := input.user; not is_alice(u)',
  'u := input.user; not deny(u)',
  'u := input.user; not data.q.listed[u]; u != "bob"',
  '[a, b] := [input.a, input.b]; not a == b',
  'u := input.user; not [u] == ["alice"]',
  'u := input.user; not data.q.roles[u] == "admin"',
  'not input.user; input.x == 1',
  'x := input.x; not x',
  'count(input.xs) > 0; not input.xs[0] == 1',
  'not blocked',
  'u := input.user; v := u; not v == "alice"',
  'u := input.user; not u == input.x',
]

const INPUTS: unknown[] = [
  {},
  { user: 'alice' },
  { user: 'bob' },
  { user: 1 },
  { user: { name: 'alice' } },
  { user: { name: 'bob' } },
  { a: { b: 'alice' } },
  { a: { b: 'carol' } },
  { a: {} },
  { a: 1 },
  { a: 1, b: 1 },
  { a: 1, b: 2 },
  { users: ['alice', 'bob'] },
  { users: ['alice'] },
  { users: [] },
  { x: 1 },
  { x: 3 },
  { x: false },
  { x: true },
  { role: 'admin' },
  { role: 'dev' },
  { xs: [1] },
  { xs: [2] },
  { user: 'alice', x: 1 },
  { user: 'bob', x: 'bob' },
  { user: 'bob', x: 1 },
]

const MODES = [
  { name: 'full inlining', unknowns: ['input'], shallow: false },
  { name: 'shallow inlining', unknowns: ['input'], shallow: true },
]

function policyText(body: string): string {
  return `package p\n\nallow if {\n  ${body.split('; ').join('\n  ')}\n}\n${HELPERS}`
}

async function allowed(modules: Record<string, string>, query: string, value: unknown): Promise<boolean> {
  const parsed = Object.fromEntries(
    Object.entries(modules).map(([file, text]) => [file, parseModule(text, { file })] as const),
  )
  const run = await compile(parsed, {})
    .prepare(query)
    .eval({ input: fromJS(value) })
  return run.results.length > 0 && run.results[0]?.expressions[0]?.value === true
}

describe('partial evaluation of `not` over input values agrees with evaluation', () => {
  for (const mode of MODES) {
    for (const body of BODIES) {
      it(`${mode.name}: ${body}`, async () => {
        const text = policyText(body)
        const modules = { 'p.rego': text, 'q.rego': DATA }
        const compiled = compile(
          Object.fromEntries(Object.entries(modules).map(([f, t]) => [f, parseModule(t, { file: f })])),
          {},
        )
        const partial = await partialEvaluate(compiled, 'data.p.allow', {
          unknowns: mode.unknowns,
          shallowInlining: mode.shallow,
        })
        const rules = partial.queries.map((q) =>
          q.length === 0 ? 'r := true' : `r := true if {\n  ${q.map(exprToString).join('\n  ')}\n}`,
        )
        const residual: Record<string, string> = {
          'residual.rego': `package residual\n\n${rules.join('\n\n')}\n`,
          ...modules,
        }
        partial.support.forEach((m, i) => {
          residual[`support${i}.rego`] = formatModule(m)
        })
        let defined = 0
        for (const value of INPUTS) {
          const direct = await allowed(modules, 'data.p.allow', value)
          const viaResidual = await allowed(residual, 'data.residual.r', value)
          if (direct) defined++
          expect(viaResidual, `input ${JSON.stringify(value)}\nresidual ${residual['residual.rego']}`).toBe(
            direct,
          )
        }
        // Each policy allows some input and refuses another, so agreement is not vacuous.
        expect(defined).toBeGreaterThan(0)
        expect(defined).toBeLessThan(INPUTS.length)
      })
    }
  }
})
