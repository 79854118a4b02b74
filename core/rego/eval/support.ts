/**
 * Support modules of a partial evaluation (OPA's `saveSupport`): rules partial evaluation could not
 * inline (default rules, multi-value rules, negations it could not complement, rules it was told not
 * to inline) are kept, partially evaluated, in packages under `data.partial`, and the residual queries
 * refer to them.
 */
import type { Head, Module, Rule, Term } from '../syntax/ast.js'

/** A support rule's place: package path (without `data`) and the rule's ref inside it. */
export interface SupportPath {
  pkg: string[]
  rule: Term[]
}

/** The support modules under construction, by package. */
export class SupportModules {
  readonly #modules = new Map<string, Module>()
  readonly #heads = new Set<string>()

  /** True when rules for this support path were already generated. */
  has(path: SupportPath): boolean {
    return this.#heads.has(key(path))
  }

  /** Records that `path` was generated (even when it produced no rule). */
  mark(path: SupportPath): void {
    this.#heads.add(key(path))
  }

  /** How many rules were generated at `path`. */
  count(path: SupportPath): number {
    const module = this.#modules.get(path.pkg.join('\u0000'))
    if (!module) return 0
    const want = JSON.stringify(path.rule.map((t) => t.value))
    return module.rules.filter(
      (r) => JSON.stringify(r.head.ref.slice(0, path.rule.length).map((t) => t.value)) === want,
    ).length
  }

  /** Adds a rule to the package of `path`. */
  insert(path: SupportPath, head: Omit<Head, 'type' | 'ref'>, body: Rule['body'], isDefault: boolean): void {
    const pkgKey = path.pkg.join('\u0000')
    let module = this.#modules.get(pkgKey)
    if (!module) {
      module = {
        type: 'module',
        package: {
          type: 'package',
          path: [
            { type: 'var', value: 'data' },
            ...path.pkg.map((p): Term => ({ type: 'string', value: p })),
          ],
        },
        imports: [],
        rules: [],
        annotations: [],
        comments: [],
        regoVersion: 'v1',
      }
      this.#modules.set(pkgKey, module)
    }
    const rule: Rule = { type: 'rule', head: { type: 'head', ref: path.rule, ...head }, body }
    if (isDefault) {
      rule.default = true
      rule.generatedBody = true
    }
    module.rules.push(rule)
  }

  /** The modules, in the order their packages were first used. */
  list(): Module[] {
    return [...this.#modules.values()]
  }
}

function key(path: SupportPath): string {
  return `${path.pkg.join('.')}|${path.rule.map((t) => JSON.stringify(t.value)).join('.')}`
}
