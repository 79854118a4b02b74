/**
 * CheckVoidCalls: a call to a function that returns nothing (`print`) cannot be used as a value.
 */
import { type RegoError, typeError } from '../../errors.js'
import type { Body } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { refName, walkTerms } from '../terms.js'
import { termString } from '../text.js'

/** The stage. */
export function checkVoidCalls(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: typeof rule | undefined = rule; r; r = r.else) {
        if (!c.err(...voidCallErrors(c, r.body))) return
      }
    }
  }
}

/** Errors for void calls used as values in `body`. */
export function voidCallErrors(c: Compiler, body: Body): RegoError[] {
  const errs: RegoError[] = []
  walkTerms(body, (t) => {
    if (t.type !== 'call') return false
    const op = t.value[0]
    const name = op ? refName(op) : undefined
    const bi = name !== undefined ? c.builtin(name) : undefined
    if (bi && !bi.hasResult) errs.push(typeError(t.location, `${termString(t)} used as value`))
    return false
  })
  return errs
}
