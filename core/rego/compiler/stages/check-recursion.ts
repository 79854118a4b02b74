/**
 * SetGraph and CheckRecursion: the dependency graph between rules (an edge for every ref that may
 * reach another rule, including function calls), and the rejection of cycles (`rule p is
 * recursive: p -> q -> p`).
 */
import { recursionError } from '../../errors.js'
import type { Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { walkTerms } from '../terms.js'
import { refString } from '../text.js'

/** Builds `c.graph`. */
export function setGraph(c: Compiler): void {
  const graph = new Map<Rule, Set<Rule>>()
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const deps = new Set<Rule>()
        graph.set(r, deps)
        const visit = (t: Term): boolean => {
          if (t.type === 'ref') {
            for (const entry of c.getRulesDynamic(t.value)) {
              for (let b: Rule | undefined = entry.rule; b; b = b.else) deps.add(b)
            }
          }
          return false
        }
        walkTerms(r.head.ref, visit)
        for (const t of [...(r.head.args ?? []), r.head.key, r.head.value]) if (t) walkTerms(t, visit)
        walkTerms(r.body, visit)
      }
    }
  }
  c.graph = graph
}

/** The stage. */
export function checkRecursion(c: Compiler): void {
  let stop = false
  c.ruleTree.depthFirst((node) => {
    if (stop) return true
    for (const entry of node.rules) {
      for (let r: Rule | undefined = entry.rule; r; r = r.else) {
        const path = dfsPath(c.graph, r, r)
        if (path.length === 0) continue
        const names = path.map((x) => refString(x.head.ref))
        if (
          !c.err(
            recursionError(r.location, `rule ${refString(r.head.ref)} is recursive: ${names.join(' -> ')}`),
          )
        ) {
          stop = true
          return true
        }
      }
    }
    return false
  })
}

function dfsPath(graph: Map<Rule, Set<Rule>>, a: Rule, z: Rule): Rule[] {
  const visited = new Set<Rule>()
  const rec = (u: Rule): Rule[] => {
    if (visited.has(u)) return []
    visited.add(u)
    for (const v of graph.get(u) ?? []) {
      if (v === z) return [z, u]
      const p = rec(v)
      if (p.length > 0) return [...p, u]
    }
    return []
  }
  return rec(a).reverse()
}
