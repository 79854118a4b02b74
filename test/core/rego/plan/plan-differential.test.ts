/**
 * Differential test of the plan target: every policy of policies.ts is planned, the plan JSON is
 * run by a small IR interpreter (ir-interpreter.ts) and its result set is compared with the
 * engine's evaluation of `data.<entrypoint>` for many generated inputs, conflicts included.
 */
import { describe, expect, it } from 'vitest'
import { indexBuiltins } from '../../../../core/rego/builtins/registry.js'
import { compilePolicy } from '../../../../core/rego/eval/policy.js'
import type { Policy as IrPolicy } from '../../../../core/rego/plan/ir.js'
import { planPolicy } from '../../../../core/rego/plan/planner.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import { fromJS, toJSONText, type Value } from '../../../../core/rego/values/index.js'
import { IrConflictError, runPlan } from './ir-interpreter.js'
import { MORE_PLAN_CASES, PLAN_CASES, type PlanCase, type Rand } from './policies.js'

const BUILTINS = indexBuiltins()
const INPUTS_PER_CASE = 150

function seeded(seed: number): Rand {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function compileCase(c: PlanCase) {
  const modules = Object.fromEntries(
    Object.entries(c.modules).map(([file, text]) => [
      file,
      parseModule(text, { file, ...(file.startsWith('v0') ? { regoVersion: 'v0' as const } : {}) }),
    ]),
  )
  const policy = compilePolicy(modules, c.data ?? {})
  // Through JSON text, as a runtime would read /plan.json.
  const plan = JSON.parse(
    JSON.stringify(planPolicy(policy.compiler, { required: c.entrypoints }, BUILTINS)),
  ) as IrPolicy
  return { policy, plan }
}

type Outcome = { kind: 'values'; values: string[] } | { kind: 'conflict' }

function engineOutcome(
  policy: ReturnType<typeof compileCase>['policy'],
  path: string,
  input: Value,
): Outcome {
  try {
    const run = policy.query(`data.${path.split('/').join('.')}`).evalSync({ input })
    return { kind: 'values', values: run.results.map((r) => toJSONText(r.expressions[0]?.value as Value)) }
  } catch (err) {
    if ((err as { code?: string }).code === 'eval_conflict_error') return { kind: 'conflict' }
    throw err
  }
}

function planOutcome(plan: IrPolicy, path: string, input: Value, data: Value): Outcome {
  try {
    const rows = runPlan(plan, path, input, data, BUILTINS)
    return {
      kind: 'values',
      values: rows.map((row) => {
        const result = (row as { get(k: Value): Value | undefined }).get('result')
        return toJSONText(result as Value)
      }),
    }
  } catch (err) {
    if (err instanceof IrConflictError) return { kind: 'conflict' }
    throw err
  }
}

describe('build -t plan: the plan decides as the engine does', () => {
  for (const c of [...PLAN_CASES, ...MORE_PLAN_CASES]) {
    it(c.name, () => {
      const { policy, plan } = compileCase(c)
      const data = fromJS(c.data ?? {})
      const rand = seeded(c.name.length * 7919)
      const seen = new Map<string, Set<string>>()
      for (let i = 0; i < INPUTS_PER_CASE; i++) {
        const raw = c.input(rand)
        const input = fromJS(raw)
        for (const path of c.entrypoints) {
          const want = engineOutcome(policy, path, input)
          const got = planOutcome(plan, path, input, data)
          expect(got, `${path} for input ${JSON.stringify(raw)}`).toEqual(want)
          const outcomes = seen.get(path) ?? new Set<string>()
          outcomes.add(JSON.stringify(want))
          seen.set(path, outcomes)
        }
      }
      // The inputs must reach more than one outcome per entrypoint, or the comparison proves little.
      for (const path of c.entrypoints) {
        if (c.constants?.includes(path)) continue
        expect(seen.get(path)?.size ?? 0, path).toBeGreaterThan(1)
      }
    })
  }
})
