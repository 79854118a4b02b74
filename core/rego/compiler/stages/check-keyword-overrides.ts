/**
 * CheckKeywordOverrides (v1 and rego.v1-importing modules, and strict mode): rules, function arguments and `:=` targets
 * must not be named `input` or `data`.
 */
import { compileError, type RegoError } from '../../errors.js'
import type { Body, Expr, Module, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { isRegoV1Compatible } from '../rego-v1-compatible.js'
import { isAssignment, walkExprs } from '../terms.js'
import { isRootDocRef } from './resolve-refs.js'

/** The stage. */
export function checkKeywordOverrides(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    if (c.options.strict || isRegoV1Compatible(mod)) {
      if (!c.err(...rootDocumentOverrides(mod))) return
    }
  }
}

/** Errors for rules, args and assignments that shadow `input`/`data` in a module or query body. */
export function rootDocumentOverrides(node: Module | Body): RegoError[] {
  const errors: RegoError[] = []
  if (!Array.isArray(node)) {
    for (const rule of node.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const head = r.head.ref[0]
        const name = head?.type === 'var' ? head.value : (r.head.name ?? '')
        if (name === 'input' || name === 'data') {
          errors.push(compileError(r.location, `rules must not shadow ${name} (use a different rule name)`))
        }
        for (const arg of r.head.args ?? []) {
          if (arg.type === 'ref' && isRootDocRef(arg)) {
            const n = (arg.value[0] as Term & { value: string }).value
            errors.push(
              compileError(arg.location, `args must not shadow ${n} (use a different variable name)`),
            )
          }
        }
      }
    }
  }
  // As OPA walks the whole module: comprehensions in rule heads (`p := [x | input := 1]`) too.
  const nodes = Array.isArray(node) ? node : node.rules.flatMap((r) => rulesOf(r).flatMap(headAndBody))
  const visit = (expr: Expr) => {
    if (isAssignment(expr)) {
      const lhs = (expr.terms as Term[])[1]
      if (lhs && isRootDocRef(lhs)) {
        const n = rootDocName(lhs)
        errors.push(
          compileError(expr.location, `variables must not shadow ${n} (use a different variable name)`),
        )
      }
    }
    return false
  }
  for (const n of nodes) walkExprs(n, visit)
  return errors
}

function headAndBody(rule: Rule): (Term | Expr)[] {
  const { key, value, args, ref } = rule.head
  return [...ref, ...(args ?? []), ...(key ? [key] : []), ...(value ? [value] : []), ...rule.body]
}

function rulesOf(rule: Rule): Rule[] {
  const out: Rule[] = []
  for (let r: Rule | undefined = rule; r; r = r.else) out.push(r)
  return out
}

function rootDocName(t: Term): string {
  if (t.type === 'var') return t.value
  const head = t.type === 'ref' ? t.value[0] : undefined
  return head?.type === 'var' ? head.value : ''
}
