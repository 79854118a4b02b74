/**
 * `imports`: imports that do nothing, or that make names mean something unexpected.
 */
import type { Import } from '../../rego/syntax/ast.js'
import { walk } from '../../rego/syntax/walk.js'
import type { Finding, LintRule } from '../types.js'

/** The name an import binds (`z` for `as z`, else its last segment). */
export function importName(imp: Import): string | undefined {
  if (imp.alias) return imp.alias
  const last = imp.path.value.at(-1)
  return last?.type === 'string' || last?.type === 'var' ? last.value : undefined
}

function importRoot(imp: Import): string | undefined {
  const head = imp.path.value[0]
  return head?.type === 'var' ? head.value : undefined
}

/** `rego.v1` and `future.keywords…`: imports that switch syntax, not bind a name. */
function isKeywordImport(imp: Import): boolean {
  const root = importRoot(imp)
  return root === 'rego' || root === 'future'
}

/**
 * unused-import: an import nobody references is noise at best and, at worst, suggests a
 * dependency the policy does not have (and keeps a renamed package "in use" for readers).
 */
export const unusedImport: LintRule = {
  name: 'unused-import',
  category: 'imports',
  description: 'Unused import',
  check({ file }) {
    const used = new Set<string>()
    for (const rule of file.module.rules) {
      walk(rule, (n) => {
        if (n.type === 'var') used.add(n.value)
      })
    }
    return file.module.imports
      .filter((imp) => !isKeywordImport(imp) && !used.has(importName(imp) ?? ''))
      .map((imp) => ({ location: imp.location, message: `Unused import ${importName(imp)}` }))
  },
}

/**
 * redundant-rego-v1-import: in a Rego v1 file `import rego.v1` changes nothing; it was only ever
 * there to make v0 files parse as v1.
 */
export const redundantRegoV1Import: LintRule = {
  name: 'redundant-rego-v1-import',
  category: 'imports',
  description: 'Redundant `import rego.v1` in a Rego v1 file',
  check({ file }) {
    if (file.module.regoVersion !== 'v1') return []
    return file.module.imports
      .filter((imp) => importRoot(imp) === 'rego' && imp.path.value.length === 2)
      .map((imp) => ({ location: imp.location }))
  },
}

/**
 * import-shadows-import: two imports binding the same name; only one of them can be meant.
 */
export const importShadowsImport: LintRule = {
  name: 'import-shadows-import',
  category: 'imports',
  description: 'Import shadows another import',
  check({ file }) {
    const seen = new Set<string>()
    const found: Finding[] = []
    for (const imp of file.module.imports) {
      if (isKeywordImport(imp)) continue
      const name = importName(imp) ?? ''
      if (seen.has(name)) found.push({ location: imp.location })
      seen.add(name)
    }
    return found
  },
}

/**
 * avoid-importing-input: `import input` or `import input.x` hides where a value comes from;
 * `input.x` in the body is as short and says it.
 */
export const avoidImportingInput: LintRule = {
  name: 'avoid-importing-input',
  category: 'imports',
  description: 'Avoid importing input',
  check({ file }) {
    return file.module.imports
      .filter((imp) => importRoot(imp) === 'input')
      .map((imp) => ({ location: imp.location }))
  },
}

export const IMPORT_RULES: readonly LintRule[] = [
  unusedImport,
  redundantRegoV1Import,
  importShadowsImport,
  avoidImportingInput,
]
