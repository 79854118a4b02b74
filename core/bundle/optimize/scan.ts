/**
 * What the optimizer reads from the policy before it partially evaluates an entrypoint: which
 * refs are unknown (as OPA's optimizer: `input`, and `data` outside the bundle's roots, since
 * another bundle provides it at run time) and whether the entrypoint's rules use a construct the
 * rewrite cannot keep exact.
 */
import type { Module, Rule } from '../../rego/syntax/ast.js'
import { walk } from '../../rego/syntax/walk.js'
import { rootsContain } from '../roots.js'

/**
 * The `data` refs of `modules` that fall outside `roots`, as ref text (`data["other"]`), shortest
 * prefixes only.
 */
export function unknownRefs(modules: Iterable<Module>, roots: readonly string[]): string[] {
  const found = new Set<string>()
  for (const module of modules) {
    walk(module, (n) => {
      if (n.type !== 'ref') return true
      const [head, ...rest] = n.value
      if (head?.type !== 'var' || head.value !== 'data') return true
      const prefix: string[] = []
      for (const t of rest) {
        if (t.type !== 'string') break
        prefix.push(t.value)
      }
      // As OPA: a ref whose constant part is not under a root reads data another bundle
      // provides at run time, so that whole prefix is unknown.
      if (!rootsContain(roots, prefix.join('/'))) found.add(JSON.stringify(prefix))
      return true
    })
  }
  const paths = [...found].map((p) => JSON.parse(p) as string[]).sort((a, b) => a.length - b.length)
  const kept: string[][] = []
  for (const p of paths) if (!kept.some((k) => k.every((s, i) => p[i] === s))) kept.push(p)
  return kept.map((p) => `data${p.map((s) => `[${JSON.stringify(s)}]`).join('')}`)
}

/**
 * Built-ins whose value depends on the rule they are called from or on the process that runs them:
 * evaluated at build time, or moved into a rewritten rule without its annotations, they would
 * answer differently than at run time.
 */
const CONTEXT_BUILTINS = ['rego.metadata', 'opa.runtime']

/**
 * Why the entrypoint made of `rules` must be kept as written, or undefined. Reads the rules and
 * everything they depend on (`graph`: rule → rules it refers to).
 *
 * NOTE(B22): `with` is refused, and so are `rego.metadata.*` and `opa.runtime` calls. OPA disables inlining of `with` targets; regent's partial
 * evaluator evaluates a `with` over known values in place, and a support rule generated under it
 * would stand for the rule in every context. Keeping such entrypoints as written is never wrong.
 */
export function entrypointHazard(
  graph: ReadonlyMap<Rule, ReadonlySet<Rule>>,
  rules: readonly Rule[],
): string | undefined {
  const seen = new Set<Rule>()
  const todo = [...rules]
  while (todo.length > 0) {
    const rule = todo.pop() as Rule
    if (seen.has(rule)) continue
    seen.add(rule)
    let hazard: string | undefined
    walk(rule, (n) => {
      if (hazard) return false
      if (n.type === 'expr' && (n.with?.length ?? 0) > 0) {
        const loc = n.location
        hazard = `uses with${loc ? ` (${loc.file}:${loc.row})` : ''}, which partial evaluation could specialise rules to`
        return false
      }
      if (n.type === 'ref') {
        const name = n.value.map((t) => (t.type === 'var' || t.type === 'string' ? t.value : '?')).join('.')
        const context = CONTEXT_BUILTINS.find((b) => name === b || name.startsWith(`${b}.`))
        if (context) {
          hazard = `calls ${name}, whose value depends on where it runs (the rule's annotations, the agent's environment)`
          return false
        }
      }
      return true
    })
    if (hazard) return hazard
    for (const dep of graph.get(rule) ?? []) todo.push(dep)
  }
  return undefined
}
