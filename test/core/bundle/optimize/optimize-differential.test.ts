/**
 * Differential test of `regent build -O`: every policy of policies.ts is optimized at levels 1 and
 * 2, and the original and the optimized bundle must give the same decision (value, undefined, or
 * error code) for every entrypoint and every generated input.
 */
import { describe, expect, it } from 'vitest'
import { bundleModuleVersion } from '../../../../core/bundle/bundle-compile.js'
import { type Bundle, bundleFromParts } from '../../../../core/bundle/index.js'
import { optimizeBundle } from '../../../../core/bundle/optimize/optimize.js'
import {
  compile,
  evaluate,
  type Module,
  type Policy,
  parseModule,
  toJSONText,
} from '../../../../core/rego/index.js'
import { differentialInputs } from './inputs.js'
import { POLICIES } from './policies.js'

const INPUTS = differentialInputs(300)

function policyOf(bundle: Bundle): Policy {
  const modules = new Map<string, Module>()
  for (const m of bundle.modules)
    modules.set(
      m.path,
      parseModule(m.source, { file: m.path, regoVersion: bundleModuleVersion(bundle.manifest, m.path) }),
    )
  return compile(modules, bundle.data)
}

/** The decision as comparable text: sorted values, `undefined`, or the error's code. */
async function decide(policy: Policy, path: string, input: unknown): Promise<string> {
  const ref = `data${path
    .split('/')
    .map((p) => `[${JSON.stringify(p)}]`)
    .join('')}`
  try {
    const run = await evaluate(`x = ${ref}`, input, { policy })
    const values = run.results.map((r) => {
      const v = r.bindings.get('x')
      return v === undefined ? 'undefined' : toJSONText(v)
    })
    return values.length === 0 ? 'undefined' : values.sort().join(' | ')
  } catch (err) {
    return `error ${(err as { code?: string }).code ?? 'unknown'}`
  }
}

describe('build -O: the optimized bundle decides exactly as the original', () => {
  for (const policy of POLICIES) {
    for (const level of [1, 2] as const) {
      it(`${policy.name}, -O ${level}`, async () => {
        const original = bundleFromParts({ modules: policy.modules, data: policy.data })
        const { bundle, outcomes } = await optimizeBundle(original, {
          entrypoints: policy.entrypoints,
          level,
        })
        const kept = new Set(policy.keptAsWritten ?? [])
        for (const o of outcomes) {
          expect({
            entrypoint: o.entrypoint,
            optimized: o.optimized,
            reason: o.reason,
          }).toEqual({
            entrypoint: o.entrypoint,
            optimized: !kept.has(o.entrypoint),
            reason: kept.has(o.entrypoint) ? expect.any(String) : undefined,
          })
        }
        if (outcomes.some((o) => o.optimized))
          expect(bundle.modules.some((m) => m.path.startsWith('optimized/'))).toBe(true)
        const before = policyOf(original)
        const after = policyOf(bundle)
        let decided = 0
        for (const entrypoint of policy.entrypoints) {
          for (const input of INPUTS) {
            const [want, got] = await Promise.all([
              decide(before, entrypoint, input),
              decide(after, entrypoint, input),
            ])
            if (got !== want) {
              const modules = bundle.modules.map((m) => `# ${m.path}\n${m.source}`).join('\n')
              expect.fail(
                `${entrypoint} with input ${JSON.stringify(input)}: ${got} instead of ${want}\n${modules}`,
              )
            }
            if (want !== 'undefined' && !want.startsWith('error')) decided++
          }
        }
        // The inputs must reach defined decisions too, or the comparison proves little.
        expect(decided).toBeGreaterThan(0)
      })
    }
  }
})
