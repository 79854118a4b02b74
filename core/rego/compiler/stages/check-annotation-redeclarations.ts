/**
 * SetAnnotationSet: OPA builds the annotation set here (v1/ast/annotations.go, BuildAnnotationSet)
 * and reports a block whose scope already has one for the same target: a second `package` block
 * for a package path (across files, since package annotations carry across modules, OPA #5627),
 * a second `document` block for a rule path, a second `subpackages` block for a package path.
 * `document` and `subpackages` blocks share one path tree, so they collide with each other too.
 * Rule-scoped blocks never collide. regent keeps no set (rego.metadata.* reads the blocks the
 * parser attached, eval/metadata.ts); this stage only raises OPA's errors.
 */
import { typeError } from '../../errors.js'
import type { Annotations, Location, Module, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { groundPrefix } from '../terms.js'

/** The stage. */
export function checkAnnotationRedeclarations(c: Compiler): void {
  const packages = new Map<string, Annotations>()
  const paths = new Map<string, Annotations>()
  for (const mod of c.sortedModules()) {
    const documentTargets = documentBlockPaths(mod)
    const pkg = pathKey(mod.package.path.slice(1))
    for (const a of mod.annotations) {
      let seen: Map<string, Annotations> | undefined
      let key: string | undefined
      if (a.scope === 'package' && a.target === 'package') [seen, key] = [packages, pkg]
      else if (a.scope === 'subpackages' && a.target === 'package') [seen, key] = [paths, pkg]
      else if (a.scope === 'document') [seen, key] = [paths, documentTargets.get(a)]
      if (!seen || key === undefined) continue
      const other = seen.get(key)
      if (!other) {
        seen.set(key, a)
        continue
      }
      const message = `${a.scope} annotation redeclared: ${locationString(other.location)}`
      if (!c.err(typeError(a.location, message))) return
    }
  }
}

/** The rule path each `document` block of a module stands before (data. left out). */
function documentBlockPaths(mod: Module): Map<Annotations, string> {
  const out = new Map<Annotations, string>()
  const visit = (rule: Rule) => {
    for (const a of rule.annotations ?? []) {
      if (a.scope === 'document' && !out.has(a)) {
        out.set(a, pathKey([...mod.package.path.slice(1), ...groundPrefix(rule.head.ref)]))
      }
    }
  }
  for (const rule of mod.rules) visit(rule)
  return out
}

function pathKey(terms: Term[]): string {
  return JSON.stringify(terms.map((t) => (t.type === 'var' || t.type === 'string' ? t.value : t.type)))
}

/** OPA's Location.String(): `file:row`, or `row:col` without a file. */
function locationString(loc: Location | undefined): string {
  if (!loc) return ''
  return loc.file ? `${loc.file}:${loc.row}` : `${loc.row}:${loc.col}`
}
