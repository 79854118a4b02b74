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
  const cyclic = rulesOnCycles(c.graph)
  if (cyclic.size === 0) return
  let stop = false
  c.ruleTree.depthFirst((node) => {
    if (stop) return true
    for (const entry of node.rules) {
      for (let r: Rule | undefined = entry.rule; r; r = r.else) {
        if (!cyclic.has(r)) continue
        const path = cyclePath(c.graph, r, cyclic.get(r) as number, cyclic)
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

/** A rule being visited by a depth-first walk, with the dependencies it has yet to follow. */
interface Visit {
  rule: Rule
  deps: Iterator<Rule>
}

function startVisit(graph: Map<Rule, Set<Rule>>, rule: Rule): Visit {
  return { rule, deps: (graph.get(rule) ?? new Set()).values() }
}

/**
 * The rules that lie on a cycle, each with the number of its strongly connected component
 * (Tarjan's algorithm, with an explicit stack: a chain of 10,000 rules is no deeper than one).
 */
function rulesOnCycles(graph: Map<Rule, Set<Rule>>): Map<Rule, number> {
  const index = new Map<Rule, number>()
  const low = new Map<Rule, number>()
  const onStack = new Set<Rule>()
  const stack: Rule[] = []
  const cyclic = new Map<Rule, number>()
  let counter = 0
  let components = 0
  for (const root of graph.keys()) {
    if (index.has(root)) continue
    const work: Visit[] = []
    const open = (r: Rule): void => {
      index.set(r, counter)
      low.set(r, counter++)
      stack.push(r)
      onStack.add(r)
      work.push(startVisit(graph, r))
    }
    open(root)
    for (let top = work.at(-1); top; top = work.at(-1)) {
      const next = top.deps.next()
      if (!next.done) {
        const d = next.value
        if (!index.has(d)) open(d)
        else if (onStack.has(d))
          low.set(top.rule, Math.min(low.get(top.rule) as number, index.get(d) as number))
        continue
      }
      work.pop()
      const r = top.rule
      const parent = work.at(-1)
      if (parent) low.set(parent.rule, Math.min(low.get(parent.rule) as number, low.get(r) as number))
      if (low.get(r) !== index.get(r)) continue
      const members: Rule[] = []
      for (let m = stack.pop(); m; m = stack.pop()) {
        onStack.delete(m)
        members.push(m)
        if (m === r) break
      }
      if (members.length > 1 || graph.get(r)?.has(r)) for (const m of members) cyclic.set(m, components)
      components++
    }
  }
  return cyclic
}

/**
 * A path of dependencies from `rule` back to itself (`[rule, ..., rule]`), searched depth first in
 * the graph's order within the rule's strongly connected component, which holds every such path.
 */
function cyclePath(
  graph: Map<Rule, Set<Rule>>,
  rule: Rule,
  component: number,
  cyclic: Map<Rule, number>,
): Rule[] {
  const visited = new Set<Rule>([rule])
  const work = [startVisit(graph, rule)]
  for (let top = work.at(-1); top; top = work.at(-1)) {
    const next = top.deps.next()
    if (next.done) {
      work.pop()
      continue
    }
    const d = next.value
    if (d === rule) return [...work.map((w) => w.rule), rule]
    if (visited.has(d) || cyclic.get(d) !== component) continue
    visited.add(d)
    work.push(startVisit(graph, d))
  }
  return []
}
