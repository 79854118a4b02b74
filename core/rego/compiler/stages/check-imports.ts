/**
 * CheckDuplicateImports (v1 and rego.v1-importing modules, and strict mode): two imports of a module must not bind the
 * same name.
 */
import { compileError } from '../../errors.js'
import type { Import } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { isRegoV1Compatible } from '../rego-v1-compatible.js'
import { importName } from './resolve-refs.js'

/** The stage. */
export function checkImports(c: Compiler): void {
  for (const name of c.sorted) {
    const mod = c.modules.get(name)
    if (!mod || !(c.options.strict || isRegoV1Compatible(mod))) continue
    const seen = new Map<string, Import>()
    for (const imp of c.imports.get(name) ?? mod.imports) {
      const n = importName(imp)
      const prev = seen.get(n)
      if (prev) {
        if (!c.err(compileError(imp.location, `import must not shadow ${importText(prev)}`))) return
      } else {
        seen.set(n, imp)
      }
    }
  }
}

function importText(imp: Import): string {
  const path = imp.path.value
    .map((t, i) => (i === 0 && t.type === 'var' ? t.value : t.type === 'string' ? `.${t.value}` : ''))
    .join('')
  return imp.alias ? `import ${path} as ${imp.alias}` : `import ${path}`
}
