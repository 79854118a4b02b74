/**
 * The `filtering` category: Rego that the compile endpoint (`/v1/compile`) would refuse, found
 * before a request fails. Filter rules are those the endpoint itself would find unknowns for in
 * their `# METADATA` `compile:` annotations (rule, document, package or subpackages scope). Each is
 * compiled exactly as a request to `/v1/compile/<rule path>` would be, by the endpoint's own code
 * (compile/: partial evaluation, then the fragment checks), so every message (unknown on the
 * right-hand side, unsupported built-ins, `default` rules, `every`, `not` on rule refs, …) is the
 * one the endpoint answers with, at the location it gives.
 *
 * Lives in cli/ because core/ may not import compile/ (layout table in DESIGN.md).
 *
 * Option `targets` (list, default `[sql+postgresql]`): the `targetDialects` to check against, as a
 * multitarget request names them (`sql+mysql`, `ucast+prisma`, …); a construct must be allowed by
 * every listed target.
 */

import { EngineBackend } from '../../compile/backend.js'
import { CompileFailure, CompileService, unknownsFromAnnotations } from '../../compile/index.js'
import type { Finding, LintFile, LintRule } from '../../core/lint/types.js'
import type { Module, RefTerm, Term } from '../../core/rego/syntax/ast.js'

const DEFAULT_TARGETS = ['sql+postgresql']
const MULTITARGET = 'application/vnd.opa.multitarget+json'

interface FilterError {
  file: string
  row: number
  col: number
  message: string
}

// One compile run per lint run and target list: every file's check reads from it.
const runs = new WeakMap<readonly LintFile[], Map<string, Promise<FilterError[]>>>()

/** The check of `filter-fragment` (declared in filtering-rules.ts, which loads this file on demand). */
export const filterFragmentCheck: LintRule['check'] = async ({ file, all, options }) => {
  const targets = Array.isArray(options.targets)
    ? options.targets.filter((t): t is string => typeof t === 'string')
    : DEFAULT_TARGETS
  let byTargets = runs.get(all)
  if (!byTargets) {
    byTargets = new Map()
    runs.set(all, byTargets)
  }
  const key = targets.join(',')
  let run = byTargets.get(key)
  if (!run) {
    run = filterErrors(all, targets)
    byTargets.set(key, run)
  }
  const errors = await run
  return errors
    .filter((e) => e.file === file.file)
    .map((e): Finding => ({ location: { row: e.row, col: e.col }, message: e.message }))
}

/** Every filter rule of `files`, compiled as the endpoint compiles it; the errors it would answer. */
async function filterErrors(files: readonly LintFile[], targets: readonly string[]): Promise<FilterError[]> {
  const modules = new Map<string, Module>(files.map((f) => [f.file, f.module]))
  const list = [...modules.values()]
  const refs = filterRuleRefs(files, list)
  if (refs.length === 0) return []
  const service = new CompileService(new EngineBackend({ modules }))
  const out: FilterError[] = []
  const seen = new Set<string>()
  const add = (e: FilterError) => {
    const k = `${e.file}:${e.row}:${e.col}:${e.message}`
    if (!seen.has(k)) out.push(e)
    seen.add(k)
  }
  for (const { ref, file, row, col } of refs) {
    try {
      await service.compile({
        path: ref.value
          .slice(1)
          .map((t) => encodeURIComponent(t.type === 'string' ? t.value : ''))
          .join('/'),
        accept: MULTITARGET,
        contentType: 'application/json',
        bodyText: JSON.stringify({ options: { targetDialects: targets } }),
        metrics: false,
      })
    } catch (err) {
      if (!(err instanceof CompileFailure)) throw err
      const errors = err.errors ?? []
      if (errors.length === 0) add({ file, row, col, message: err.message })
      for (const e of errors) {
        const at = e.location && modules.has(e.location.file) ? e.location : { file, row, col }
        add({ file: at.file, row: at.row, col: at.col, message: e.message })
      }
    }
  }
  return out
}

/** Refs (`data.<package>.<rule>`) of the rules whose annotations give the endpoint unknowns. */
function filterRuleRefs(
  files: readonly LintFile[],
  modules: readonly Module[],
): Array<{ ref: RefTerm; file: string; row: number; col: number }> {
  // Cheap pre-check: without any annotation there is no filter rule.
  if (
    !modules.some((m) => m.annotations.length > 0 || m.rules.some((r) => (r.annotations?.length ?? 0) > 0))
  ) {
    return []
  }
  const out: Array<{ ref: RefTerm; file: string; row: number; col: number }> = []
  const seen = new Set<string>()
  for (const f of files) {
    for (const rule of f.module.rules) {
      if (rule.head.args || rule.default) continue
      if (!rule.head.ref.every((t, i) => (i === 0 ? t.type === 'var' : t.type === 'string'))) continue
      const parts: Term[] = [
        ...f.module.package.path,
        ...rule.head.ref.map((t): Term => (t.type === 'var' ? { type: 'string', value: t.value } : t)),
      ]
      const ref: RefTerm = { type: 'ref', value: parts }
      const key = parts.map((t) => (t.type === 'string' || t.type === 'var' ? t.value : '')).join('.')
      if (seen.has(key)) continue
      seen.add(key)
      // A filter rule is one the endpoint finds unknowns for (in `compile:` or, as older
      // policies write them, `custom:`); bad unknowns are reported as the endpoint reports them.
      const found = unknownsFromAnnotations(modules, ref)
      if ('unknowns' in found && found.unknowns.length === 0) continue
      out.push({ ref, file: f.file, row: rule.location?.row ?? 1, col: rule.location?.col ?? 1 })
    }
  }
  return out
}
