/**
 * The built-ins of `regent test` and `regent eval`: OPA's, plus EOPA's test built-ins for filter
 * policies, `rego.compile` (compile/rego-compile-builtin.ts) and the helper behind `filter.helper`
 * (compile/filter-helper-builtin.ts), whose library module is added to the policies that refer to
 * it. Never offered where policies are served (relay, `regent run`, bundles checked against
 * capabilities): they exist to test filter policies.
 */
import { FILTER_LIBRARY, FILTER_LIBRARY_PACKAGE, filterHelper } from '../compile/filter-helper-builtin.js'
import { refToString } from '../compile/print.js'
import { regoCompile } from '../compile/rego-compile-builtin.js'
import type { Builtin } from '../core/rego/builtins/define.js'
import { DEFAULT_BUILTINS } from '../core/rego/builtins/registry.js'
import { parseModule } from '../core/rego/index.js'
import type { Module } from '../core/rego/syntax/ast.js'

/**
 * `builtins` (OPA's, or those of a `--capabilities` file) with the test built-ins added, unless a
 * built-in of the same name is there already.
 */
export function withTestBuiltins(builtins: readonly Builtin[]): readonly Builtin[] {
  const names = new Set(builtins.map((b) => b.name))
  return [...builtins, ...[regoCompile, filterHelper].filter((b) => !names.has(b.name))]
}

export const TEST_BUILTINS = withTestBuiltins(DEFAULT_BUILTINS)

const LIBRARY_REF = `data.${FILTER_LIBRARY_PACKAGE}`
/** The library module's file name (what errors and coverage name it). */
export const FILTER_LIBRARY_FILE = 'regent/filter-helper.rego'

/**
 * `modules` with EOPA's filter test library added when a module imports it or `query` names it,
 * unless a module already defines its package.
 */
export function withTestLibraries(modules: Map<string, Module>, query = ''): Map<string, Module> {
  const defines = [...modules.values()].some((m) => refToString(m.package.path) === LIBRARY_REF)
  if (defines) return modules
  const imported = [...modules.values()].some((m) =>
    m.imports.some((i) => refToString(i.path.value).startsWith(LIBRARY_REF)),
  )
  if (!imported && !query.includes(LIBRARY_REF)) return modules
  const out = new Map(modules)
  out.set(FILTER_LIBRARY_FILE, parseModule(FILTER_LIBRARY, { file: FILTER_LIBRARY_FILE }))
  return out
}
