/**
 * Differential property test of partial evaluation: for generated policies (comparisons, `in`,
 * iteration, `not`, helper rules, defaults, functions, several bodies) and generated inputs,
 * evaluating `data.p.allow` with the input must agree with evaluating the residual of partially
 * evaluating it with all of `input` unknown: the residual queries and support modules are printed as
 * Rego, parsed and compiled again, and evaluated with the same input. Run counts are bounded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { exprToString } from '../../../../compile/print.js'
import { partialEvaluate } from '../../../../core/rego/eval/partial.js'
import { compile, formatModule, parseModule } from '../../../../core/rego/index.js'
import { fromJS } from '../../../../core/rego/values/index.js'

const small = fc.integer({ min: 0, max: 4 })
const word = fc.constantFrom('a', 'ab', 'b', '')

/** One condition over the input (or a helper), as Rego text. */
const condition = fc.oneof(
  fc.tuple(fc.constantFrom('>', '>=', '<', '==', '!='), small).map(([op, n]) => `input.x ${op} ${n}`),
  word.map((w) => `input.s == ${JSON.stringify(w)}`),
  word.map((w) => `startswith(input.s, ${JSON.stringify(w)})`),
  small.map((n) => `${n} in input.xs`),
  small.map((n) => `some v in input.xs; v > ${n}`),
  small.map((n) => `count(input.xs) > ${n}`),
  fc.constant('not input.flag'),
  fc.constant('input.flag'),
  fc.constant('input.obj.k == input.s'),
  fc.constant('helper'),
  fc.constant('not helper'),
  fc.constant('level == "high"'),
  small.map((n) => `f(input.x) > ${n}`),
  fc.constant('every v in input.xs { v < 4 }'),
  small.map((n) => `input.x + 1 > ${n}`),
  small.map((n) => `count([v | some v in input.xs; v > ${n}]) > 0`),
  word.map((w) => `${JSON.stringify(w)} in names`),
  fc.constant('input.obj[input.s] == "a"'),
  fc.constant('grade == "top"'),
  fc.constant('input.s == input.obj.k'),
)

// Each condition gets its own iteration variable, so a body never declares one twice.
const body = fc
  .array(condition, { minLength: 1, maxLength: 3 })
  .map((cs) => cs.map((c, i) => c.replace(/\bv\b/g, `v${i}`)).join('\n  '))

const policy = fc
  .record({
    allow: fc.array(body, { minLength: 1, maxLength: 3 }),
    // helper may not use level, which may use helper: no recursion.
    helper: fc.array(
      body.filter((b) => !b.includes('helper') && !b.includes('level')),
      { minLength: 1, maxLength: 2 },
    ),
    level: body.filter((b) => !b.includes('level')),
  })
  .map(
    ({ allow, helper, level }) => `package p

${allow.map((b) => `allow if {\n  ${b}\n}`).join('\n\n')}

${helper.map((b) => `helper if {\n  ${b}\n}`).join('\n\n')}

default level := "low"

level := "high" if {
  ${level}
}

f(v) := v * 2 if v > 1
f(v) := 0 if v <= 1

names contains n if {
  some n in ["a", "ab"]
  startswith(input.s, n)
}

names contains input.obj.k if input.flag

grade := "top" if {
  input.x > 2
} else := "mid" if {
  input.x > 0
}
`,
  )

const input = fc.record(
  {
    x: small,
    s: word,
    xs: fc.array(small, { maxLength: 3 }),
    flag: fc.boolean(),
    obj: fc.record({ k: word }, { requiredKeys: [] }),
  },
  { requiredKeys: ['x', 's', 'xs'] },
)

async function allowed(modules: Record<string, string>, query: string, value: unknown): Promise<boolean> {
  const parsed = Object.fromEntries(
    Object.entries(modules).map(([file, text]) => [file, parseModule(text, { file })] as const),
  )
  const run = await compile(parsed, {})
    .prepare(query)
    .eval({ input: fromJS(value) })
  return run.results.length > 0 && run.results[0]?.expressions[0]?.value === true
}

/**
 * The residual as Rego modules: one `r` rule per residual query, the support modules, and the policy
 * itself, which a residual may still refer to where partial evaluation keeps a rule by reference
 * (rules with `else`, as OPA does).
 */
function residualModules(policy: string, queries: string[][], support: string[]): Record<string, string> {
  const rules = queries.map((q) => (q.length === 0 ? 'r := true' : `r := true if {\n  ${q.join('\n  ')}\n}`))
  const modules: Record<string, string> = {
    'residual.rego': `package residual\n\n${rules.join('\n\n')}\n`,
    'p.rego': policy,
  }
  support.forEach((text, i) => {
    modules[`support${i}.rego`] = text
  })
  return modules
}

const MODES = [
  { name: 'all of input unknown', unknowns: ['input'], known: false, shallow: false },
  { name: 'all of input unknown, shallow inlining', unknowns: ['input'], known: false, shallow: true },
  {
    name: 'input.x and input.xs unknown, the rest given',
    unknowns: ['input.x', 'input.xs'],
    known: true,
    shallow: false,
  },
]

describe('partial evaluation agrees with evaluation', () => {
  for (const mode of MODES) {
    it(`on generated policies and inputs: ${mode.name}`, async () => {
      let defined = 0
      await fc.assert(
        fc.asyncProperty(policy, input, async (text, value) => {
          const compiled = compile({ 'p.rego': parseModule(text, { file: 'p.rego' }) }, {})
          // With some of the input given, partial evaluation sees all of it but the unknown refs.
          const given = mode.known ? { ...value, x: undefined, xs: undefined } : undefined
          const partial = await partialEvaluate(compiled, 'data.p.allow', {
            unknowns: mode.unknowns,
            shallowInlining: mode.shallow,
            ...(given ? { input: fromJS(JSON.parse(JSON.stringify(given))) } : {}),
          })
          const residual = residualModules(
            text,
            partial.queries.map((q) => q.map(exprToString)),
            partial.support.map((m) => formatModule(m)),
          )
          const direct = await allowed({ 'p.rego': text }, 'data.p.allow', value)
          const viaResidual = await allowed(residual, 'data.residual.r', value)
          if (direct) defined++
          expect(
            viaResidual,
            `${text}\ninput ${JSON.stringify(value)}\nresidual ${JSON.stringify(residual)}`,
          ).toBe(direct)
        }),
        { numRuns: 200, seed: 20261122 },
      )
      expect(defined).toBeGreaterThan(20)
    })
  }
})
