/**
 * The plan differential over OPA's compliance cases (`../shared/conformance/rego/`, read in
 * place): for every case that compiles, every rule set reachable by a slash path is planned as
 * an entrypoint; refusals (constructs outside the subset) are counted, and every plan that is
 * written must decide as the engine does for the case's input and data. A ratchet: at least
 * MIN_MATCHES agreements, and no disagreement at all (docs/plan.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { indexBuiltins } from '../../../../core/rego/builtins/registry.js'
import { ruleRef } from '../../../../core/rego/compiler/rule-tree.js'
import { groundPrefix } from '../../../../core/rego/compiler/terms.js'
import { compilePolicy, type Policy } from '../../../../core/rego/eval/policy.js'
import { PlanEntrypointError, PlanError } from '../../../../core/rego/plan/errors.js'
import { planPolicy } from '../../../../core/rego/plan/planner.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import { fromJS, toJSONText, type Value } from '../../../../core/rego/values/index.js'
import { DEFAULT_FOLDER } from '../../../conformance/runner.js'
import { IrConflictError, runPlan } from './ir-interpreter.js'

const folder = process.env.REGENT_CONFORMANCE_DIR ?? DEFAULT_FOLDER
const present = existsSync(folder)
if (!present) console.warn(`plan conformance: ${folder} not found; skipping the plan differential over it`)

const BUILTINS = indexBuiltins()
/** Agreements measured when this test was written (3123); the ratchet only goes up. */
const MIN_MATCHES = 3100

interface Case {
  note: string
  modules?: string[]
  data?: unknown
  input?: unknown
  v0_compatible?: boolean
}

function compileCase(c: Case): Policy | undefined {
  try {
    const modules = Object.fromEntries(
      (c.modules ?? []).map((text, i) => [
        `m${i}.rego`,
        parseModule(text, { file: `m${i}.rego`, ...(c.v0_compatible ? { regoVersion: 'v0' as const } : {}) }),
      ]),
    )
    return compilePolicy(modules, c.data ?? {})
  } catch {
    return undefined // cases about compile errors: nothing to plan
  }
}

/** Slash paths of the rule sets (not functions) whose ground paths are all strings. */
function rulePaths(policy: Policy): string[] {
  const paths = new Set<string>()
  policy.compiler.ruleTree.depthFirst((node) => {
    for (const entry of node.rules) {
      const ref = groundPrefix(ruleRef(entry)).slice(1)
      if (entry.rule.head.args || ref.length < 2 || ref.some((t) => t.type !== 'string')) continue
      paths.add(ref.map((t) => String(t.value)).join('/'))
    }
    return false
  })
  return [...paths]
}

function engineOutcome(policy: Policy, path: string, input: Value | undefined): string | undefined {
  const query = `data${path
    .split('/')
    .map((s) => `[${JSON.stringify(s)}]`)
    .join('')}`
  try {
    const run = policy.query(query).evalSync(input === undefined ? {} : { input })
    return JSON.stringify(run.results.map((r) => toJSONText(r.expressions[0]?.value as Value)))
  } catch (err) {
    if ((err as { code?: string }).code === 'eval_conflict_error') return 'conflict'
    return undefined // other evaluation errors: not compared
  }
}

function planOutcome(
  plan: ReturnType<typeof planPolicy>,
  path: string,
  input: Value | undefined,
  data: Value,
) {
  try {
    const rows = runPlan(plan, path, input, data, BUILTINS)
    return JSON.stringify(rows.map((r) => toJSONText((r as { get(k: Value): Value }).get('result'))))
  } catch (err) {
    if (err instanceof IrConflictError) return 'conflict'
    throw err
  }
}

describe.skipIf(!present)('plans of OPA compliance policies decide as the engine does', () => {
  it(`agree at least ${MIN_MATCHES} times and never disagree`, { timeout: 300_000 }, () => {
    let matches = 0
    let refused = 0
    const mismatches: string[] = []
    for (const file of readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const { cases } = JSON.parse(readFileSync(join(folder, file), 'utf8')) as { cases: Case[] }
      for (const c of cases) {
        const policy = compileCase(c)
        if (!policy) continue
        const input = c.input === undefined ? undefined : fromJS(c.input)
        const data = fromJS(c.data ?? {})
        for (const path of rulePaths(policy)) {
          let plan: ReturnType<typeof planPolicy>
          try {
            plan = planPolicy(policy.compiler, { required: [path] }, BUILTINS)
          } catch (err) {
            if (!(err instanceof PlanError || err instanceof PlanEntrypointError)) throw err
            refused++
            continue
          }
          const want = engineOutcome(policy, path, input)
          if (want === undefined) continue
          const got = planOutcome(plan, path, input, data)
          if (got === want) matches++
          else mismatches.push(`${c.note} (${path}): want ${want} got ${got}`)
        }
      }
    }
    console.log(`plan conformance: ${matches} agreements, ${refused} refusals`)
    expect(mismatches).toEqual([])
    expect(matches).toBeGreaterThanOrEqual(MIN_MATCHES)
  })
})
