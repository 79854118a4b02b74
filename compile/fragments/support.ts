/**
 * Messages for residual references into support modules (`data.partial…`): partial evaluation keeps
 * default rules, multi-value rules and rules it was told not to inline there, and no target can query
 * a rule, so the message names the original rule and why it was kept.
 */
import type { Module, Rule, Term } from '../../core/rego/syntax/ast.js'
import { refToString } from '../print.js'
import { sameScalarTerm } from '../refs.js'

/** Whether `ref` names a rule of a support module (`data.partial…`). */
export function isSupportRef(ref: readonly Term[]): boolean {
  const [head, second] = ref
  return (
    head?.type === 'var' && head.value === 'data' && second?.type === 'string' && second.value === 'partial'
  )
}

/**
 * `use of default rule in data.x`, `use of multi-value rule in data.x`, or (where the reference says
 * nothing) `use of rule data.x, which partial evaluation did not inline`.
 */
export function supportRuleMessage(ref: readonly Term[], support: readonly Module[]): string {
  // data.partial.a.b names the rule data.a.b of the original policy.
  const original = refToString([{ type: 'var', value: 'data' }, ...ref.slice(2)])
  for (const module of support) {
    let count = 0
    for (const rule of module.rules) {
      if (!sameRef(rulePath(module, rule), ref)) continue
      count++
      if (rule.default) return `use of default rule in ${original}`
      if (count > 1) return `use of multi-value rule in ${original}`
    }
  }
  return `use of rule ${original}, which partial evaluation did not inline`
}

/** The full ref of a rule: its package path followed by its head ref (`data.partial.a` + `b`). */
export function rulePath(module: Module, rule: Rule): Term[] {
  return [...module.package.path, ...rule.head.ref.map(headPartAsRefPart)]
}

// A head ref starts with a var (`p` in `p.q[x]`); as a path part it is the string "p".
function headPartAsRefPart(term: Term, index: number): Term {
  return index === 0 && term.type === 'var' ? { type: 'string', value: term.value } : term
}

function sameRef(a: readonly Term[], b: readonly Term[]): boolean {
  return a.length === b.length && a.every((t, i) => sameScalarTerm(t, b[i]))
}
