/**
 * Differential fuzzer of evaluation. For generated modules (complete rules with `default` and
 * `else`, partial sets and objects, functions, comparisons, `not`, `some ... in`, comprehensions)
 * and generated inputs, every rule is evaluated
 *  - normally,
 *  - with each optimisation of the evaluator switched off in turn, and with all of them off
 *    (rule indexing, early exit, the fast paths of fast.ts, the rule and function cache),
 *  - through partial evaluation (all of `input` unknown, and nothing unknown with the input given)
 *    followed by evaluation of the residual, printed as Rego and compiled again;
 * and every answer must be the same. The CI budget is small; set REGENT_FUZZ_RUNS for a long run
 * (REGENT_FUZZ_SEED picks another seed). See docs/evaluator.md.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { exprToString } from '../../../../compile/print.js'
import { partialEvaluate } from '../../../../core/rego/eval/partial.js'
import type { QueryOptions } from '../../../../core/rego/eval/query.js'
import { compile, formatModule, type Policy, parseModule } from '../../../../core/rego/index.js'
import { fromJS, isSet, toJSONText, type Value } from '../../../../core/rego/values/index.js'

const RUNS = Number(process.env.REGENT_FUZZ_RUNS ?? 20)
const SEED = Number(process.env.REGENT_FUZZ_SEED ?? 20261127)

const small = fc.integer({ min: 0, max: 3 })
const word = fc.constantFrom('a', 'b', '')

/** A condition over the input only: usable in any rule without creating recursion. */
const baseCondition = fc.oneof(
  fc.tuple(fc.constantFrom('>', '>=', '<', '==', '!='), small).map(([op, n]) => `input.x ${op} ${n}`),
  word.map((w) => `input.s == ${JSON.stringify(w)}`),
  word.map((w) => `not input.s == ${JSON.stringify(w)}`),
  small.map((n) => `not input.x > ${n}`),
  small.map((n) => `${n} in input.xs`),
  small.map((n) => `not ${n} in input.xs`),
  small.map((n) => `some v in input.xs; v > ${n}`),
  small.map((n) => `some i, v in input.xs; i < ${n}; v != i`),
  small.map((n) => `count([v | some v in input.xs; v >= ${n}]) > 0`),
  small.map((n) => `count({v | some v in input.xs; v < ${n}}) == 1`),
  fc.constant('input.flag'),
  fc.constant('not input.flag'),
  fc.constant('input.obj.k == input.s'),
  fc.constant('input.obj[input.s] == "a"'),
  small.map((n) => `input.xs[${n}] == input.x`),
  fc.constant('every v in input.xs { v < 3 }'),
)

/**
 * A condition that may also read the generated rules `a`, `s`, `o` and `f`. The object rules of
 * `o` produce disjoint keys: a key conflict is an error only where evaluation reaches it, and rule
 * indexing (in OPA too) legitimately skips bodies that would reach it, so conflicts are not generated.
 */
const condition = fc.oneof(
  { weight: 3, arbitrary: baseCondition },
  { weight: 1, arbitrary: word.map((w) => `a == ${JSON.stringify(w)}`) },
  { weight: 1, arbitrary: fc.constant('not a == "a"') },
  { weight: 1, arbitrary: small.map((n) => `${n} in s`) },
  { weight: 1, arbitrary: small.map((n) => `not ${n} in s`) },
  { weight: 1, arbitrary: small.map((n) => `some k, v in o; k == ${JSON.stringify(String(n))}; v > 0`) },
  { weight: 1, arbitrary: fc.constantFrom('0', '1', 'a0', 'b1').map((w) => `o[${JSON.stringify(w)}] == 1`) },
  { weight: 1, arbitrary: small.map((n) => `f(input.x) > ${n}`) },
  { weight: 1, arbitrary: small.map((n) => `not f(${n}) == 0`) },
  { weight: 1, arbitrary: fc.constant('count([k | o[k]]) > 1') },
)

/** A body of 1–3 conditions; each gets its own iteration variables. */
function bodyOf(cond: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .array(cond, { minLength: 1, maxLength: 3 })
    .map((cs) => cs.map((c, n) => c.replace(/\b([vik])\b/g, `$1${n}`)).join('\n  '))
}

const baseBody = bodyOf(baseCondition)
const body = bodyOf(condition)

const module = fc
  .record({
    a: fc.tuple(baseBody, baseBody, fc.boolean()),
    s: fc.array(baseBody, { minLength: 1, maxLength: 2 }),
    o: fc.array(baseBody, { minLength: 1, maxLength: 2 }),
    f: baseBody,
    t: fc.array(body, { minLength: 1, maxLength: 3 }),
    u: fc.array(body, { minLength: 1, maxLength: 2 }),
  })
  .map(
    ({ a, s, o, f, t, u }) => `package p

${a[2] ? 'default a := "none"\n\n' : ''}a := "a" if {
  ${a[0]}
} else := "b" if {
  ${a[1]}
}

${s.map((b, i) => `s contains v if {\n  some v in input.xs\n  v >= ${i}\n  ${b}\n}`).join('\n\n')}

${o.map((b, i) => `o[k] := ${i + 1} if {\n  some k in [concat("", [input.s, "${i}"]), "${i}"]\n  ${b}\n}`).join('\n\n')}

f(n) := n * 2 if {
  n > 1
  ${f.replace(/input\.x\b/g, 'n')}
}

f(n) := 0 if n <= 1

${t.map((b) => `t if {\n  ${b}\n}`).join('\n\n')}

default u := false

${u.map((b) => `u if {\n  ${b}\n}`).join('\n\n')}

c := [v | some v in s; t]
`,
  )

const input = fc.record(
  {
    x: small,
    s: word,
    xs: fc.array(small, { maxLength: 3 }),
    flag: fc.boolean(),
    obj: fc.record({ k: word, a: word }, { requiredKeys: [] }),
  },
  { requiredKeys: ['x', 's'] },
)

const RULES = ['a', 's', 'o', 't', 'u', 'c']

/** Evaluator modes: every optimisation off in turn, then all of them off. */
const MODES: Array<[string, QueryOptions]> = [
  ['no indexing', { indexing: false }],
  ['no early exit', { earlyExit: false }],
  ['no fast paths', { fastPaths: false }],
  ['no caching', { caching: false }],
  ['all optimisations off', { indexing: false, earlyExit: false, fastPaths: false, caching: false }],
]

function compileText(modules: Record<string, string>): Policy {
  return compile(
    Object.fromEntries(
      Object.entries(modules).map(([file, text]) => [file, parseModule(text, { file })] as const),
    ),
    {},
  )
}

/** The rule's value as JSON text, or "undefined"; an evaluation error as its message. */
async function ruleValue(
  policy: Policy,
  query: string,
  value: unknown,
  options: QueryOptions = {},
): Promise<string> {
  try {
    const run = await policy.prepare(query).eval({ ...options, input: fromJS(value) })
    const values = run.results.map((r) => toJSONText(r.expressions[0]?.value as Value))
    return values.length === 0 ? 'undefined' : values.sort().join(' | ')
  } catch (err) {
    return `error: ${(err as Error).message}`
  }
}

/**
 * The rule's value through partial evaluation: `x = data.p.<rule>` is partially evaluated, each
 * residual query becomes a body of `r contains x`, and `r`'s members are the values the rule takes.
 */
async function residualRuleValue(
  policy: Policy,
  text: string,
  rule: string,
  value: unknown,
  known: boolean,
): Promise<string> {
  try {
    const partial = await partialEvaluate(policy, `x = data.p.${rule}`, {
      unknowns: known ? [] : ['input'],
      ...(known ? { input: fromJS(value) } : {}),
    })
    const bodies = partial.queries.map((q) => q.map(exprToString))
    const rules = bodies.map((q) => `r contains x if {\n  ${['true', ...q].join('\n  ')}\n}`)
    const modules: Record<string, string> = {
      'residual.rego': `package residual\n\n${rules.join('\n\n')}\n`,
      'p.rego': text,
    }
    partial.support.forEach((m, i) => {
      modules[`support${i}.rego`] = formatModule(m)
    })
    const run = await compileText(modules)
      .prepare('data.residual.r = rs')
      .eval({ input: fromJS(value) })
    // No residual query (never defined) leaves `r` with no rule: undefined, as the rule is.
    const rs = run.results[0]?.bindings.get('rs')
    const values = rs !== undefined && isSet(rs) ? [...rs].map((m) => toJSONText(m)) : []
    return values.length === 0 ? 'undefined' : values.sort().join(' | ')
  } catch (err) {
    return `error: ${(err as Error).message}`
  }
}

describe('differential fuzzer: evaluation agrees with itself', () => {
  it(`every mode gives every rule the same value (${RUNS} runs, seed ${SEED})`, async () => {
    let defined = 0
    await fc.assert(
      fc.asyncProperty(module, input, async (text, value) => {
        const policy = compileText({ 'p.rego': text })
        for (const rule of RULES) {
          const query = `data.p.${rule}`
          const expected = await ruleValue(policy, query, value)
          if (expected !== 'undefined' && !expected.startsWith('error')) defined++
          const context = `rule ${rule}\n${text}\ninput ${JSON.stringify(value)}`
          for (const [name, options] of MODES) {
            expect(await ruleValue(policy, query, value, options), `${name}: ${context}`).toBe(expected)
          }
          if (expected.startsWith('error')) continue
          for (const known of [false, true]) {
            const mode = known ? 'partial evaluation, nothing unknown' : 'partial evaluation, input unknown'
            expect(await residualRuleValue(policy, text, rule, value, known), `${mode}: ${context}`).toBe(
              expected,
            )
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
    expect(defined).toBeGreaterThan(0)
  }, 600_000)
})
