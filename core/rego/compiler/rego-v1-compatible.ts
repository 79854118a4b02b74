/**
 * Whether a module must meet Rego v1's compile-time rules: it was parsed as v1, or it is a v0
 * module that imports `rego.v1` (or `rego.v2`, which implies it). OPA marks the latter
 * RegoV0CompatV1 and runs the same checks on both (duplicate imports, `input`/`data` shadowing,
 * deprecated built-ins), not only in strict mode.
 */
import type { Module } from '../syntax/ast.js'

/** True for v1 modules and for v0 modules with a `rego.v1`/`rego.v2` import. */
export function isRegoV1Compatible(mod: Module): boolean {
  return mod.regoVersion === 'v1' || mod.imports.some(isRegoVersionImport)
}

function isRegoVersionImport(imp: Module['imports'][number]): boolean {
  const [root, version] = imp.path.value
  return (
    imp.path.value.length === 2 &&
    root?.type === 'var' &&
    root.value === 'rego' &&
    version?.type === 'string' &&
    (version.value === 'v1' || version.value === 'v2')
  )
}
