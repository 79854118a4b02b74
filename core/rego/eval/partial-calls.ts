/**
 * Calls during partial evaluation (OPA's evalCall and evalFunc in partial mode): built-ins whose
 * operands are unknown are saved (so are non-deterministic ones when they may not run); user
 * functions that depend on unknowns are inlined — each definition runs with its parameters unified
 * with the arguments — unless they have `else` (the call is saved), a default that matters, or their
 * inlining is disabled (they are kept as support functions and the call refers to them).
 */
import type { Term } from '../syntax/ast.js'
import { Frame, plug } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import type { FunctionRef, PCall, PExpr, PTerm, RuleSet } from './ir.js'
import type { PartialEval } from './partial-eval.js'
import { overlapsAny } from './partial-unknown.js'
import { unify } from './unify.js'

/**
 * A call in partial mode: true/false when handled here, undefined when the evaluator should run it
 * as usual (nothing about it is unknown).
 */
export function evalCallPartial(
  pe: PartialEval,
  e: Evaluator,
  expr: PExpr,
  call: PCall,
  target: FunctionRef,
  frame: Frame,
  iter: Iter,
): boolean | undefined {
  const set = target.fn?.ruleSet
  if (set) return evalFunctionPartial(pe, e, expr, call, set, frame, iter)
  if (target.builtin?.nondeterministic && !pe.analysis.nondeterministic) return e.saveCall(expr, frame, iter)
  for (let i = 0; i < call.args.length && i < call.arity; i++) {
    if (pe.analysis.term(call.args[i] as PTerm, frame)) return e.saveCall(expr, frame, iter)
  }
  return undefined
}

function evalFunctionPartial(
  pe: PartialEval,
  e: Evaluator,
  expr: PExpr,
  call: PCall,
  set: RuleSet,
  frame: Frame,
  iter: Iter,
): boolean | undefined {
  const argsUnknown = call.args.some((a) => pe.analysis.term(a, frame))
  const unknown = argsUnknown || pe.analysis.ruleSet(set)
  const disabled = overlapsAny(pe.analysis.disabled, set.node.path) || (pe.shallow && unknown)
  if (!disabled && !unknown) return undefined
  // Ordered definitions (`else`) are not partially evaluated, as in OPA: the call is kept.
  if (set.rules.some((r) => r.else !== undefined)) return e.saveCall(expr, frame, iter)
  let support = disabled
  const def = set.defaultRule
  if (def) {
    // Without a captured output only a default other than `false` can make the call succeed.
    const dv = def.value ? plug(def.value, new Frame(def.slots)) : undefined
    support = support || call.output !== undefined || dv !== false
  }
  if (support) return supportCall(pe, e, expr, call, set, frame, iter)
  for (const r of set.rules) {
    const f = pe.frame(r)
    const params = r.args ?? []
    const bind = (i: number): boolean => {
      if (i === params.length) {
        return e.evalBody(r.body, 0, f, () => {
          const value = r.value as PTerm
          if (call.output) return unify(e, call.output, frame, value, f, iter)
          if (pe.analysis.term(value, f)) return pe.saveTerm(value, f, iter)
          return plug(value, f) === false ? false : iter()
        })
      }
      return unify(e, call.args[i] as PTerm, frame, params[i] as PTerm, f, () => bind(i + 1))
    }
    if (bind(0)) return true
  }
  return false
}

/** Keeps the function's definitions as support rules and saves a call of the support function. */
function supportCall(
  pe: PartialEval,
  e: Evaluator,
  expr: PExpr,
  call: PCall,
  set: RuleSet,
  frame: Frame,
  iter: Iter,
): boolean {
  const first = set.rules[0] ?? set.defaultRule
  if (!first) return false
  const path = pe.supportPath(set.node.path, first.src.module.package.path.length - 1)
  if (!pe.support.has(path)) {
    pe.support.mark(path)
    for (const r of [...set.rules, ...(set.defaultRule ? [set.defaultRule] : [])])
      pe.supportRule(e, r, path, set.kind)
  }
  if (!pe.supportDefined(path)) return false
  const operator: Term = {
    type: 'ref',
    value: [...pe.supportRoot(), ...set.node.path.map((p) => pe.plugger.value(p))],
  }
  const args = call.output ? [...call.args, call.output] : call.args
  return pe.saveSupportCall(operator, args, frame, call.output, iter, expr)
}
