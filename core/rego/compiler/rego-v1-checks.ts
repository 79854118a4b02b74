/**
 * The checks a Rego v0 module must pass before it is written out as Rego v1 (`opa fmt --v0-v1`,
 * OPA's `CheckRegoV1` with the `if` / `contains` / body-or-value requirements left to the
 * formatter): no rule, argument or `:=` target shadows `input` or `data`, no deprecated built-in is
 * called (v1 has none of them), and no rule is named after a v1 keyword.
 */
import { parseError, type RegoError, typeError } from '../errors.js'
import type { Module, Term } from '../syntax/ast.js'
import { elseChain, walk } from '../syntax/walk.js'
import { rootDocumentOverrides } from './stages/check-keyword-overrides.js'
import { refName } from './terms.js'

/** Words a v1 rule cannot be named (the v0 parser took them as names). */
const V1_ONLY_KEYWORDS = new Set(['if', 'contains', 'in', 'every'])

/** The errors of `module` (parsed as v0) that keep it from being Rego v1, in OPA's order. */
export function regoV1Errors(module: Module, isDeprecated: (name: string) => boolean): RegoError[] {
  const errors = rootDocumentOverrides(module)
  // Calls anywhere: in bodies, and in rule heads (`q := any(xs)`, `r[any(xs)]`).
  walk(module, (n) => {
    const call =
      n.type === 'expr' && Array.isArray(n.terms) ? n.terms : n.type === 'call' ? n.value : undefined
    const op = call?.[0] as Term | undefined
    const name = op ? refName(op) : undefined
    if (name !== undefined && isDeprecated(name)) {
      errors.push(typeError(n.location, `deprecated built-in function calls in expression: ${name}`))
    }
  })
  for (const rule of module.rules) {
    for (const r of elseChain(rule)) {
      const head = r.head.ref[0]
      if (r.head.ref.length !== 1 || head?.type !== 'var' || !V1_ONLY_KEYWORDS.has(head.value)) continue
      const kind = r.head.args ? 'function' : 'rule'
      errors.push(parseError(r.location, `${head.value} keyword cannot be used for ${kind} name`))
    }
  }
  return errors
}
