/**
 * CheckTypes: built-in calls whose operands are literals of a type the declaration rejects are
 * `rego_type_error`s (`count: invalid argument(s)`). NOTE(regent): OPA infers types through rules,
 * refs and schemas; regent only checks literal operands, so a policy it accepts may still be
 * rejected by OPA, never the other way round. See docs/conformance.md.
 */
import { type RegoError, typeError } from '../../errors.js'
import type { Body } from '../../syntax/ast.js'
import { type Type, typeOf, typeToString, unwrap } from '../../types/index.js'
import { typeName, type Value } from '../../values/index.js'
import type { Compiler } from '../compiler.js'
import { constantValue } from '../constant-value.js'
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

/** Type errors for built-in calls with literal operands of the wrong type. */
export function typeErrors(c: Compiler, body: Body): RegoError[] {
  const errs: RegoError[] = []
  walkExprs(body, (e) => {
    if (!Array.isArray(e.terms)) return false
    const [op, ...args] = e.terms
    const name = op ? refName(op) : undefined
    const bi = name !== undefined ? c.builtin(name) : undefined
    const decl = bi?.decl
    if (!decl || bi.arity < 0) return false
    const operands = args.slice(0, bi.arity)
    const literal = operands.map((a) => (isConstant(a) ? constantValue(a) : undefined))
    const bad = literal.some(
      (v, i) => v !== undefined && decl.args[i] !== undefined && !kindAllowed(v, decl.args[i] as Type),
    )
    if (!bad) return false
    errs.push(
      typeError(e.location, `${name}: invalid argument(s)`, {
        have: `(${literal.map((v) => (v === undefined ? 'any' : typeToString(typeOf(v)))).join(', ')})`,
        want: `(${decl.args.map(typeToString).join(', ')})`,
      }),
    )
    return false
  })
  return errs
}

/**
 * True when the declared type admits values of `v`'s kind. Only kinds are compared (not element
 * or property types), so a literal is never rejected where OPA's finer checker would accept it.
 */
function kindAllowed(v: Value, declared: Type): boolean {
  const d = unwrap(declared)
  if (d.kind === 'any') return d.of.length === 0 || d.of.some((m) => kindAllowed(v, m))
  return d.kind === typeName(v)
}
