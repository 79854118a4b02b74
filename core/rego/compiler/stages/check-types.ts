/**
 * CheckTypes: built-in calls whose operands are literals of a type the declaration rejects are
 * `rego_type_error`s (`count: invalid argument(s)`). NOTE(regent): OPA infers types through rules,
 * refs and schemas; regent only checks literal operands, so a policy it accepts may still be
 * rejected by OPA, never the other way round. See docs/conformance.md.
 */
import { type RegoError, typeError } from '../../errors.js'
import type { Body, Term } from '../../syntax/ast.js'
import type { TypeName } from '../builtin-info.js'
import type { Compiler } from '../compiler.js'
import { isConstant, refName, walkExprs } from '../terms.js'

/** The stage. */
export function checkTypes(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: typeof rule | undefined = rule; r; r = r.else) {
        if (!c.err(...typeErrors(c, r.body))) return
      }
    }
  }
}

/** The type name of a literal term, or undefined for terms that need evaluation. */
export function literalType(t: Term): TypeName | undefined {
  if (!isConstant(t)) return undefined
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
    case 'array':
    case 'object':
    case 'set':
      return t.type
  }
  return undefined
}

/** Type errors for built-in calls with literal operands of the wrong type. */
export function typeErrors(c: Compiler, body: Body): RegoError[] {
  const errs: RegoError[] = []
  walkExprs(body, (e) => {
    if (!Array.isArray(e.terms)) return false
    const [op, ...args] = e.terms
    const name = op ? refName(op) : undefined
    const bi = name !== undefined ? c.builtin(name) : undefined
    if (!bi?.argTypes) return false
    for (const [i, a] of args.slice(0, bi.arity).entries()) {
      const want = bi.argTypes[i]
      const have = literalType(a)
      if (!want || !have || want.includes('any') || want.includes(have)) continue
      errs.push(
        typeError(e.location, `${name}: invalid argument(s)`, {
          have: `(${args
            .slice(0, bi.arity)
            .map((x) => literalType(x) ?? 'any')
            .join(', ')})`,
          want: bi.signature ?? `(${bi.argTypes.map((t) => (t ? t.join('|') : 'any')).join(', ')})`,
        }),
      )
      break
    }
    return false
  })
  return errs
}
