/**
 * Paths of rules as the optimizer compares them: the constant part of a rule's full ref (package
 * path, then the head's ref up to its first non-constant part), as dotted strings without `data`.
 * OPA's optimizer decides which original rules a rewritten rule replaces by these prefixes.
 */
import type { Module, Rule, Term } from '../../rego/syntax/ast.js'

/** The constant prefix of a rule's ref in `module`, e.g. `['authz', 'allow']`. */
export function ruleConstantPrefix(module: Module, rule: Rule): string[] {
  const out = module.package.path.slice(1).map(termKey)
  for (const [i, t] of rule.head.ref.entries()) {
    if (i === 0 && t.type === 'var') {
      out.push(t.value)
      continue
    }
    if (t.type !== 'string') break
    out.push(t.value)
  }
  return out
}

/** True when one path is a prefix of the other (the two rule sets would overlap). */
export function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false
  return true
}

/** Equal paths. */
export function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && pathsOverlap(a, b)
}

function termKey(t: Term): string {
  return t.type === 'string' ? t.value : JSON.stringify(t.value)
}
