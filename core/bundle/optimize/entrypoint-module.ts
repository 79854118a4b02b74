/**
 * The module that redefines an entrypoint from its residual queries (OPA's
 * `getSupportForEntrypoint`): for `authz/allow`, `package authz` with one rule
 * `allow = __result__ if { <query> }` per query. A query that still refers to the entrypoint
 * itself (its rules could not be partially evaluated, or are kept as support rules at their own
 * path) yields no module: the rules stay as they are or as the support modules rewrote them.
 * Also the file names the optimizer writes: `optimized/<package path>.rego`, as OPA names them.
 */
import type { Body, Module, Rule, Term } from '../../rego/syntax/ast.js'
import { walk } from '../../rego/syntax/walk.js'

/** The query var the entrypoint's value is bound to. */
export const RESULT_VAR = '__result__'

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * The entrypoint module for `path` (`['authz', 'allow']`), or undefined when a query refers to
 * the entrypoint (or below it) or the last segment is not a rule name.
 */
export function entrypointModule(path: readonly string[], queries: readonly Body[]): Module | undefined {
  const name = path[path.length - 1]
  if (name === undefined || path.length < 2 || !IDENTIFIER.test(name)) return undefined
  if (queries.some((q) => refersTo(q, path))) return undefined
  const rules: Rule[] = queries.map((body) => ({
    type: 'rule',
    head: {
      type: 'head',
      name,
      ref: [{ type: 'var', value: name }],
      value: { type: 'var', value: RESULT_VAR },
    },
    body,
  }))
  return {
    type: 'module',
    package: {
      type: 'package',
      path: [
        { type: 'var', value: 'data' },
        ...path.slice(0, -1).map((p): Term => ({ type: 'string', value: p })),
      ],
    },
    imports: [],
    rules,
    annotations: [],
    comments: [],
    regoVersion: 'v1',
  }
}

function refersTo(body: Body, path: readonly string[]): boolean {
  let found = false
  walk(body, (n) => {
    if (found || n.type !== 'ref') return !found
    const [head, ...rest] = n.value
    if (head?.type !== 'var' || head.value !== 'data') return true
    // A ref with a non-constant part at or before the entrypoint's depth may reach it too.
    let i = 0
    for (; i < path.length && i < rest.length; i++) {
      const t = rest[i] as Term
      if (t.type !== 'string') break
      if (t.value !== path[i]) return true
    }
    found = true
    return false
  })
  return found
}

/** File names for the optimizer's modules: `optimized/authz.rego`, then `optimized/authz.1.rego`. */
export class OptimizedFileNames {
  readonly #used = new Map<string, number>()

  constructor(readonly prefix: string = 'optimized') {}

  /** A fresh name for a module of `pkg`, not in `taken`. */
  next(pkg: readonly string[], taken: ReadonlySet<string>): string {
    const safe = pkg.length > 0 && pkg.every((p) => /^[\w-]+$/.test(p))
    const base = `${this.prefix}/${safe ? pkg.join('/') : `package-${pkg.length}`}`
    for (;;) {
      const n = this.#used.get(base) ?? 0
      this.#used.set(base, n + 1)
      const name = n === 0 ? `${base}.rego` : `${base}.${n}.rego`
      if (!taken.has(name)) return name
    }
  }
}
