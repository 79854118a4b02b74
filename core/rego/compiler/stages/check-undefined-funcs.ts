/**
 * CheckUndefinedFuncs: every call must name a built-in or a user function, with the declared
 * number of arguments (plus optionally an output).
 */
import { type RegoError, typeError } from '../../errors.js'
import type { Body, Expr, Term } from '../../syntax/ast.js'
import { copyTerm } from '../../syntax/copy.js'
import { typeToString } from '../../types/index.js'
import type { Compiler } from '../compiler.js'
import { isEquality, walkExprs, walkTerms } from '../terms.js'
import { refString } from '../text.js'

/** The stage. */
export function checkUndefinedFuncs(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    const bodies: Body[] = []
    for (const rule of mod.rules)
      for (let r: typeof rule | undefined = rule; r; r = r.else) bodies.push(r.body)
    if (!c.err(...undefinedFuncErrors(c, bodies.flat(), c.rewrittenVars))) return
  }
}

/** Errors for calls to unknown functions or with the wrong number of arguments. */
export function undefinedFuncErrors(c: Compiler, body: Body, rewritten: Map<string, string>): RegoError[] {
  const errs: RegoError[] = []
  walkExprs(body, (expr: Expr) => {
    if (!Array.isArray(expr.terms)) return false
    const op = expr.terms[0] as Term
    const ref = op.type === 'ref' ? op.value : [op]
    const name = refString(userNames(ref, rewritten))
    const arity = c.getArity(ref)
    const n = expr.terms.length - 1
    if (arity >= 0) {
      if (expr.generated) {
        if (!isEquality(expr) && n !== arity + 1) errs.push(arityError(c, name, expr, arity, n - 1))
      } else if (n !== arity && n !== arity + 1) {
        errs.push(arityError(c, name, expr, arity, n))
      }
      return false
    }
    if (name === 'print' && c.builtin('print')) return false
    errs.push(typeError(expr.location, `undefined function ${name}`))
    return true
  })
  return errs
}

function arityError(c: Compiler, name: string, expr: Expr, want: number, got: number): RegoError {
  const bi = c.builtin(name)
  if (bi) {
    const have = `(${(expr.terms as Term[])
      .slice(1)
      .map(() => 'any')
      .join(', ')})`
    return typeError(expr.location, `${name}: arity mismatch`, {
      have,
      want: bi.decl
        ? `(${bi.decl.args.map(typeToString).join(', ')})`
        : `(${Array.from({ length: bi.arity }, () => 'any').join(', ')})`,
    })
  }
  return typeError(
    expr.location,
    `function ${name} has arity ${want}, got ${got} argument${got === 1 ? '' : 's'}`,
  )
}

/** A ref with the vars RewriteLocalVars renamed shown by their names in the source, at any depth
 * (`data.p[[z]]`, not `data.p[[__local1__]]`), as OPA prints an undefined function. */
function userNames(ref: Term[], rewritten: Map<string, string>): Term[] {
  return ref.map((part) => {
    const shown = copyTerm(part)
    walkTerms(shown, (t) => {
      if (t.type === 'var') t.value = rewritten.get(t.value) ?? t.value
      return false
    })
    return shown
  })
}
