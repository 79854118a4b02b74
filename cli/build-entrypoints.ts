/**
 * The entrypoints of `regent build -O N` (spec 002_, behaviour 2): those given with `-e` and those
 * marked `entrypoint: true` in `# METADATA` blocks (on a rule, or on a package), and, unless
 * `--prune-unused`, every rule that refers to one of them directly or through other rules (OPA's
 * optimizer keeps such rules as entrypoints so that they stay queryable). Entrypoints are slash
 * paths (`authz/allow`) below `data`; a given one must name a rule or a package of the bundle.
 */
import { bundleModuleVersion } from '../core/bundle/bundle-compile.js'
import type { Bundle } from '../core/bundle/index.js'
import type { Builtin } from '../core/rego/builtins/define.js'
import { ruleRef } from '../core/rego/compiler/rule-tree.js'
import { groundPrefix } from '../core/rego/compiler/terms.js'
import { compilePolicy } from '../core/rego/eval/policy.js'
import type { Module, Rule, Term } from '../core/rego/syntax/ast.js'
import { parseModule } from '../core/rego/syntax/module-parser.js'

/** The entrypoints of a build, by where they come from (each list sorted, no duplicates). */
export interface BuildEntrypoints {
  given: string[]
  annotated: string[]
  /** Rules that refer to an entrypoint (empty with --prune-unused). */
  dependents: string[]
  /** All of the above. */
  all: string[]
}

/** An entrypoint that does not name anything in the bundle, or is not a path. */
export class EntrypointError extends Error {}

const SLASH_PATH = /^\/?[A-Za-z_][\w-]*(\/[\w-]+)*$/

function pathOf(ref: readonly Term[]): string {
  return ref
    .slice(1)
    .map((t) => (t.type === 'string' ? t.value : JSON.stringify(t.value)))
    .join('/')
}

/**
 * The entrypoints of `bundle` (which must compile: `regent build` checks it first).
 * @throws EntrypointError for a `-e` value that is not a slash path or names no rule or package.
 */
export function buildEntrypoints(
  bundle: Bundle,
  options: { entrypoints: readonly string[]; pruneUnused: boolean; builtins?: readonly Builtin[] },
): BuildEntrypoints {
  const parsed = new Map<string, Module>()
  for (const m of bundle.modules)
    parsed.set(
      m.path,
      parseModule(m.source, { file: m.path, regoVersion: bundleModuleVersion(bundle.manifest, m.path) }),
    )
  const { compiler } = compilePolicy(parsed, {}, options.builtins ? { builtins: options.builtins } : {})
  const rulePaths = new Map<Rule, string>()
  compiler.ruleTree.depthFirst((node) => {
    for (const entry of node.rules) rulePaths.set(entry.rule, pathOf(groundPrefix(ruleRef(entry))))
    return false
  })
  const packages = new Set(compiler.sortedModules().map((m) => pathOf(m.package.path)))
  const given = options.entrypoints.map((e) => {
    if (!SLASH_PATH.test(e))
      throw new EntrypointError(`-e ${e}: expected a slash-separated path such as authz/allow`)
    const path = e.replace(/^\//, '')
    const known =
      [...rulePaths.values()].some((p) => p === path || p.startsWith(`${path}/`)) || packages.has(path)
    if (!known) throw new EntrypointError(`-e ${e}: no rule or package of the bundle has this path`)
    return path
  })
  const annotated: string[] = []
  for (const module of compiler.sortedModules()) {
    if (module.annotations.some((a) => a.entrypoint && a.target === 'package'))
      annotated.push(pathOf(module.package.path))
    for (const rule of module.rules)
      if (rule.annotations?.some((a) => a.entrypoint)) annotated.push(rulePaths.get(rule) ?? '')
  }
  const chosen = new Set([...given, ...annotated])
  const isEntry = (path: string) => [...chosen].some((e) => path === e || path.startsWith(`${e}/`))
  const dependents = new Set<string>()
  if (!options.pruneUnused) {
    // Fixpoint over the rule graph: a rule reaching an entrypoint rule becomes one itself.
    const reaches = new Set<Rule>([...rulePaths].filter(([, p]) => isEntry(p)).map(([r]) => r))
    let grew = true
    while (grew) {
      grew = false
      for (const [rule, deps] of compiler.graph) {
        if (reaches.has(rule) || ![...deps].some((d) => reaches.has(d))) continue
        reaches.add(rule)
        grew = true
        const path = rulePaths.get(rule)
        if (path !== undefined && !isEntry(path)) dependents.add(path)
      }
    }
  }
  const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort()
  return {
    given: sorted(given),
    annotated: sorted(annotated),
    dependents: sorted(dependents),
    all: sorted([...chosen, ...dependents]),
  }
}
