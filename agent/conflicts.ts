/**
 * Two checks OPA runs before it accepts a write: base data must not sit where a rule produces a
 * document (`ast.CheckPathConflicts` with `storage.NonEmpty`), and nothing may be written under a
 * path a bundle owns (the server's `checkPathScope`).
 */

// The rule-against-data check is the compiler's (every compile with data runs it); the agent
// also calls it when data alone changes, without recompiling.
export { dataConflicts } from '../core/rego/compiler/stages/check-path-conflicts.js'

/** A bundle's name and the roots it owns (`''` owns everything). */
export interface OwnedRoots {
  name: string
  roots: readonly string[]
}

/**
 * Why a write at `path` is refused because a bundle owns it, or undefined when it is allowed. As
 * OPA, a path conflicts with a root when either is a prefix of the other.
 * @example ownershipConflict(['a'], [{ name: 'b', roots: ['a/x'] }]) // 'path a is owned by bundle "b"'
 */
export function ownershipConflict(
  path: readonly string[],
  bundles: readonly OwnedRoots[],
): string | undefined {
  if (bundles.length === 0) return undefined
  if (path.length === 0) return "can't write to document root with bundle roots configured"
  for (const { name, roots } of bundles) {
    for (const root of roots) {
      if (root === '') return `all paths owned by bundle ${JSON.stringify(name)}`
      const parts = root.split('/')
      const n = Math.min(parts.length, path.length)
      let owned = true
      for (let i = 0; i < n; i++) if (parts[i] !== path[i]) owned = false
      if (owned) return `path ${path.join('/')} is owned by bundle ${JSON.stringify(name)}`
    }
  }
  return undefined
}
