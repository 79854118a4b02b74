/**
 * `regent build -t plan`: the bundle keeps its modules and data and gains `/plan.json`, OPA's
 * intermediate representation of the entrypoints (core/rego/plan, docs/plan.md), as
 * `opa build -t plan` writes it. Entrypoints come from `-e` and `entrypoint: true` annotations
 * (at least one is required, as in OPA); unless `--prune-unused`, rules referring to them are
 * planned too. regent's engine never evaluates the plan: `eval`, `run` and `exec` read the
 * bundle's Rego (spec 002_, build behaviour 3).
 */
import { bundleModuleVersion } from '../core/bundle/bundle-compile.js'
import type { Bundle } from '../core/bundle/index.js'
import type { Builtin } from '../core/rego/builtins/define.js'
import { DEFAULT_BUILTINS, indexBuiltins } from '../core/rego/builtins/registry.js'
import { compilePolicy } from '../core/rego/eval/policy.js'
import { PlanEntrypointError, PlanError } from '../core/rego/plan/errors.js'
import { planPolicy } from '../core/rego/plan/planner.js'
import type { Module } from '../core/rego/syntax/ast.js'
import { parseModule } from '../core/rego/syntax/module-parser.js'
import type { BuildEntrypoints } from './build-entrypoints.js'
import { CommandError } from './commands/sign.js'

/** Where the plan goes in the bundle (OPA's `bundle.PlanFile`). */
export const PLAN_FILE = 'plan.json'

/**
 * The bundle with `plan.json` added for `entrypoints` (which must hold at least one given or
 * annotated path). A construct outside the plan subset fails with exit code 2 and one line.
 */
export function withPlan(
  bundle: Bundle,
  entrypoints: BuildEntrypoints,
  builtins: readonly Builtin[] | undefined,
): Bundle {
  const required = [...entrypoints.given, ...entrypoints.annotated]
  if (required.length === 0)
    throw new CommandError(
      'plan compilation requires at least one entrypoint (-e, or entrypoint: true in a METADATA block)',
    )
  const parsed = new Map<string, Module>()
  for (const m of bundle.modules)
    parsed.set(
      m.path,
      parseModule(m.source, { file: m.path, regoVersion: bundleModuleVersion(bundle.manifest, m.path) }),
    )
  const list = builtins ?? DEFAULT_BUILTINS
  // Print statements are erased as `opa build` does by default, so a leftover print() does not block a plan.
  const { compiler } = compilePolicy(parsed, {}, { builtins: list, enablePrintStatements: false })
  try {
    const policy = planPolicy(compiler, { required, optional: entrypoints.dependents }, indexBuiltins(list))
    const raw = new TextEncoder().encode(JSON.stringify(policy))
    const files = bundle.files.filter((f) => f.path !== PLAN_FILE)
    return { ...bundle, files: [...files, { path: PLAN_FILE, raw }] }
  } catch (err) {
    if (err instanceof PlanError) throw new CommandError(`-t plan: ${err.message}`, 2)
    if (err instanceof PlanEntrypointError) throw new CommandError(err.message)
    throw err
  }
}
