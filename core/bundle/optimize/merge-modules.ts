/**
 * Merging the modules partial evaluation wrote into the bundle's modules, as OPA's optimizer
 * merges them: a rewritten rule set replaces every original rule whose path overlaps it, and a
 * module left without rules is dropped. Original modules are edited as text (the replaced rules,
 * and the comment block right above each, are cut out), so what stays keeps its formatting,
 * comments and Rego version.
 *
 * NOTE(B22): OPA discards any original rule whose path merely overlaps a rewritten one. regent
 * only accepts a merge where each discarded rule has exactly the path of a rewritten rule set:
 * otherwise a support rule for `a.b.c` could silently drop the other keys of a rule set `a.b`.
 * Such a merge is refused and the entrypoint stays as written.
 */
import type { Comment, Module, Rule } from '../../rego/syntax/ast.js'
import { parseModule } from '../../rego/syntax/module-parser.js'
import { pathsOverlap, ruleConstantPrefix, samePath } from './rule-paths.js'

/** A module of the bundle being optimized, as text. */
export interface ModuleText {
  path: string
  source: string
  regoVersion: 'v0' | 'v1'
}

/** The outcome of a merge: the new module list, or why it was refused. */
export type MergeResult = { modules: ModuleText[] } | { refused: string }

/**
 * Merges `added` (modules written by the optimizer) into `current`; the rules of `added` replace
 * the rules of `current` at the same paths.
 */
export function mergeModules(current: readonly ModuleText[], added: readonly ModuleText[]): MergeResult {
  const replaced: string[][] = []
  for (const m of added) {
    const module = parse(m)
    for (const rule of module.rules) replaced.push(ruleConstantPrefix(module, rule))
  }
  const out: ModuleText[] = []
  for (const m of current) {
    const module = parse(m)
    const dropped: Rule[] = []
    for (const rule of module.rules) {
      const path = ruleConstantPrefix(module, rule)
      if (!replaced.some((r) => pathsOverlap(r, path))) continue
      if (!replaced.some((r) => samePath(r, path)))
        return {
          refused: `rule ${path.join('.')} in ${m.path} overlaps a rewritten rule set of another path`,
        }
      dropped.push(rule)
    }
    if (dropped.length === 0) out.push(m)
    else if (dropped.length < module.rules.length)
      out.push({ ...m, source: cutRules(m.source, module.comments, dropped) })
  }
  return { modules: [...out, ...added] }
}

function parse(m: ModuleText): Module {
  return parseModule(m.source, { file: m.path, regoVersion: m.regoVersion })
}

/** `source` without the text of `rules` and the comment lines directly above each. */
function cutRules(source: string, comments: readonly Comment[], rules: readonly Rule[]): string {
  const spans: Array<[number, number]> = []
  for (const rule of rules) {
    const loc = rule.location
    if (!loc || loc.end === undefined) continue
    let start = loc.offset
    let row = loc.row
    const above = [...comments].sort((a, b) => (b.location?.row ?? 0) - (a.location?.row ?? 0))
    for (const c of above) {
      if (c.location && c.location.row === row - 1) {
        start = c.location.offset
        row = c.location.row
      }
    }
    spans.push([start, loc.end])
  }
  spans.sort((a, b) => b[0] - a[0])
  let text = source
  for (const [start, end] of spans) text = text.slice(0, start) + text.slice(end)
  return text.replace(/\n(?:[ \t]*\n){2,}/g, '\n\n')
}
