/**
 * YAML lets an alias stand inside the node it names (`a: &x [*x]`), which becomes a circular value
 * that nothing downstream (JSON, zod, Rego values) can hold. And both YAML libraries give an anchor
 * and each of its aliases the same value, so a read value is a graph, not a tree: a walk that
 * follows every path takes exponential time on a billion-laughs document. This walk visits each
 * value once. Every YAML reader (core/yaml.ts, core/config.ts) checks its result with it.
 */

/**
 * The dotted path of the first alias that stands inside the node it names (a value that contains
 * itself), or undefined when the value has no loop. Linear in the number of distinct values.
 * @example findLoop(readYaml('a: &x [*x]')) // 'a.0'
 */
export function findLoop(root: unknown): string | undefined {
  const finished = new Set<object>()
  const open = new Set<object>()
  // Each frame: a value, its children still to visit, and the key it had in its parent.
  const stack: { node: object; children: Iterator<[string, unknown]>; key: string }[] = []
  const enter = (value: unknown, key: string): string | undefined => {
    if (value === null || typeof value !== 'object' || finished.has(value)) return undefined
    if (open.has(value)) return [...stack.map((frame) => frame.key).slice(1), key].join('.') || '(root)'
    open.add(value)
    stack.push({ node: value, children: childrenOf(value), key })
    return undefined
  }
  const atRoot = enter(root, '')
  if (atRoot !== undefined) return atRoot
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    const next = frame.children.next()
    if (next.done) {
      stack.pop()
      open.delete(frame.node)
      finished.add(frame.node)
      continue
    }
    const found = enter(next.value[1], next.value[0])
    if (found !== undefined) return found
  }
  return undefined
}

function* childrenOf(node: object): Iterator<[string, unknown]> {
  if (Array.isArray(node) || node instanceof Map) {
    for (const [k, v] of node.entries()) yield [String(k), v]
  } else if (node instanceof Set) {
    let i = 0
    for (const v of node) yield [String(i++), v]
  } else if (!ArrayBuffer.isView(node) && !(node instanceof Date)) {
    for (const entry of Object.entries(node)) yield entry
  }
}
