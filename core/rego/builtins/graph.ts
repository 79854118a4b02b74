/** Graph built-ins: graph.reachable and graph.reachable_paths over adjacency objects. */
import { t } from '../types/index.js'
import type { ObjectValue, SetValue, Value } from '../values/index.js'
import { isArray, isSet, Value as V } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { chargeWork } from './meter.js'
import { collectionOperand, objectOperand, operandTypeError } from './operands.js'

const collection = t.anyOf(t.array(t.any), t.set(t.any))
const adjacency = t.object(t.any, collection)

/** Neighbours of a node (arrays and sets; anything else, such as null, has none). */
function neighbours(edges: Value): readonly Value[] {
  if (isArray(edges)) return edges
  if (isSet(edges)) return edges.values()
  return []
}

function initialOperand(v: Value): readonly Value[] {
  if (!isArray(v) && !isSet(v)) throw operandTypeError(2, v, '{array, set}')
  return collectionOperand(v, 2)
}

export const reachable = defineBuiltin({
  name: 'graph.reachable',
  category: 'graph',
  description: 'Computes the set of reachable nodes in the graph from a set of starting nodes.',
  args: [
    t.named('graph', adjacency, 'object containing a set or array of neighboring vertices'),
    t.named('initial', collection, 'set or array of root vertices'),
  ],
  result: t.named(
    'output',
    t.set(t.any),
    'set of vertices reachable from the `initial` vertices in the directed `graph`',
  ),
  impl: (_ctx, [g, init]) => {
    const graph = objectOperand(g, 1)
    const queue = [...initialOperand(init)]
    const reached = V.set()
    while (queue.length > 0) {
      const node = queue.shift() as Value
      const edges = graph.get(node)
      if (edges === undefined || reached.has(node)) continue
      reached.add(node)
      queue.push(...neighbours(edges))
    }
    return reached
  },
})

/**
 * Depth-first paths from `node`, as OPA's `pathBuilder` builds them: a path ends at a leaf, at a
 * node outside the graph (which is left out), or before a node already expanded in this branch.
 * NOTE(builtins): OPA appends every path cut at an expanded node to one running list per node, so
 * a node with several such neighbours yields concatenated paths; that is kept for fidelity.
 */
function collectPaths(
  graph: ObjectValue,
  node: Value,
  path: Value[],
  reached: SetValue,
  out: SetValue,
): void {
  // The paths can be exponentially many: each step is work under the budget (eval/budget.ts).
  chargeWork(1 + path.length)
  const edges = graph.get(node)
  if (edges === undefined) {
    out.add([...path])
    return
  }
  const here = [...path, node]
  const next = neighbours(edges)
  if (next.length === 0) {
    out.add(here)
    return
  }
  const acc: Value[] = []
  for (const n of next) {
    if (reached.has(n)) {
      acc.push(...here)
      out.add([...acc])
      continue
    }
    reached.add(node)
    collectPaths(graph, n, here, reached, out)
  }
}

export const reachablePaths = defineBuiltin({
  name: 'graph.reachable_paths',
  category: 'graph',
  description: 'Computes the set of reachable paths in the graph from a set of starting nodes.',
  args: [
    t.named('graph', adjacency, 'object containing a set or array of root vertices'),
    t.named('initial', collection, 'initial paths'),
  ],
  result: t.named(
    'output',
    t.set(t.array(t.any)),
    'paths reachable from the `initial` vertices in the directed `graph`',
  ),
  impl: (_ctx, [g, init]) => {
    const graph = objectOperand(g, 1)
    const out = V.set()
    for (const root of initialOperand(init)) {
      const edges = graph.get(root)
      if (edges === undefined) continue
      const next = neighbours(edges)
      if (next.length === 0) out.add([root])
      // Each first step starts with its own record of expanded nodes.
      for (const n of next) collectPaths(graph, n, [root], V.set([root]), out)
    }
    return out
  },
})

/** The graph built-ins. */
export const GRAPH = [reachable, reachablePaths] as const
