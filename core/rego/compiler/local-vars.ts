/**
 * Generation of fresh local variable names (`__local0__`, `__localq0__`) that cannot clash with any
 * variable already present in the modules or query, as OPA's `localVarGenerator` does.
 */
import type { Body, Module, Term } from '../syntax/ast.js'
import { LOCAL_VAR_PREFIX, varTerm, walkTerms } from './terms.js'

/** Hands out `__local<N>__` names that do not occur in the source. */
export class LocalVarGenerator {
  readonly #exclude: Set<string>
  readonly #prefix: string
  #next = 0

  constructor(exclude: Set<string>, suffix = '') {
    this.#exclude = exclude
    this.#prefix = LOCAL_VAR_PREFIX + suffix
  }

  /** A generator for a module set: excludes every var of every module. */
  static forModules(modules: Module[]): LocalVarGenerator {
    const vars = new Set<string>()
    for (const m of modules) {
      for (const rule of m.rules) {
        for (let r: typeof rule | undefined = rule; r; r = r.else) {
          walkTerms(r.head.ref, collect(vars))
          if (r.head.args) walkTerms(r.head.args, collect(vars))
          if (r.head.key) walkTerms(r.head.key, collect(vars))
          if (r.head.value) walkTerms(r.head.value, collect(vars))
          walkTerms(r.body, collect(vars))
        }
      }
    }
    return new LocalVarGenerator(vars)
  }

  /** A generator for a query body (`__localq<N>__`). */
  static forQuery(body: Body): LocalVarGenerator {
    const vars = new Set<string>()
    walkTerms(body, collect(vars))
    return new LocalVarGenerator(vars, 'q')
  }

  /** The next fresh name. */
  generate(): string {
    for (;;) {
      const name = `${this.#prefix}${this.#next++}__`
      if (!this.#exclude.has(name)) return name
    }
  }

  /** The next fresh name as a var term. */
  generateTerm(location?: Term['location']): Term {
    return varTerm(this.generate(), location)
  }
}

function collect(vars: Set<string>): (t: Term) => boolean {
  return (t) => {
    if (t.type === 'var') vars.add(t.value)
    return false
  }
}
