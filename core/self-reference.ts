/**
 * YAML lets an alias stand inside the node it names (`a: &x [*x]`); the yaml package turns that into
 * a circular structure, which nothing downstream (JSON, zod, Rego values) can hold and naive walks
 * recurse into forever. Every YAML reader checks its result with this first.
 */

/**
 * The dotted path of the first value that contains itself, or undefined for a tree.
 * @example findSelfReference(parse('a: &x [*x]')) // 'a.0'
 */
export function findSelfReference(value: unknown): string | undefined {
  return walk(value, [], new Set())
}

function walk(node: unknown, path: string[], ancestors: Set<object>): string | undefined {
  if (node === null || typeof node !== 'object') return undefined
  if (ancestors.has(node)) return path.join('.') || '(root)'
  ancestors.add(node)
  const entries =
    Array.isArray(node) || node instanceof Map
      ? node.entries()
      : node instanceof Set
        ? [...node].entries()
        : Object.entries(node)
  for (const [key, child] of entries) {
    const found = walk(child, [...path, String(key)], ancestors)
    if (found !== undefined) return found
  }
  ancestors.delete(node)
  return undefined
}
