/**
 * CheckDeprecatedBuiltins (strict mode, v1 and rego.v1-importing modules): calls to deprecated built-ins are errors.
 */
import { type RegoError, typeError } from '../../errors.js'
import type { Body } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { isRegoV1Compatible } from '../rego-v1-compatible.js'
import { refName, walkExprs } from '../terms.js'

/** The stage. */
export function checkDeprecatedBuiltins(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    if (!(c.options.strict || isRegoV1Compatible(mod))) continue
    for (const rule of mod.rules) {
      for (let r: typeof rule | undefined = rule; r; r = r.else) {
        if (!c.err(...deprecatedBuiltinErrors(c, r.body))) return
      }
    }
  }
}

/** Errors for calls to deprecated built-ins in `body`. */
export function deprecatedBuiltinErrors(c: Compiler, body: Body): RegoError[] {
  const errs: RegoError[] = []
  walkExprs(body, (e) => {
    if (!Array.isArray(e.terms)) return false
    const op = e.terms[0]
    const name = op ? refName(op) : undefined
    if (name !== undefined && c.builtin(name)?.deprecated) {
      errs.push(typeError(e.location, `deprecated built-in function calls in expression: ${name}`))
    }
    return false
  })
  return errs
}
