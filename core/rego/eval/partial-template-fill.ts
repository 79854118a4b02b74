/**
 * One request's residual from a query template (partial-template.ts): each rule's known steps run in
 * body order against the request's input and base data; a rule whose steps all hold contributes its
 * residual expressions with the known values written in. Expressions that fail are recorded as the
 * evaluator records them (the compile endpoint's hints read them).
 *
 * The fill allocates its residual at sites of its own (not `eqOperator`, `valueToTerm` or one
 * `Frame` per rule): V8 pretenures an allocation site whose objects tend to survive scavenges, and
 * the evaluator's residuals and frames do (they live until the end of a long request). Sharing those
 * sites put every filled term straight into the old generation, and a 1,000-rule fill then cost
 * 7 ms of mostly garbage collection instead of 0.4 ms (docs/performance.md, round 4).
 */

import type { FunctionBuiltin } from '../builtins/define.js'
import { callBuiltin } from '../builtins/registry.js'
import type { Body, Expr, Term } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import { Frame, same } from './bindings.js'
import type { Evaluator } from './evaluator.js'
import { K, type PTerm } from './ir.js'
import { valueToTerm } from './partial-plug.js'
import type { Confirmable, KnownStep, QueryTemplate, RuleTemplate } from './partial-template.js'

/** The filled residual. */
export interface FilledTemplate {
  queries: Body[]
  failed: Expr[]
  /** Rules that held and steps that failed, not yet confirmed by the evaluator. */
  unverified: Confirmable[]
}

// Budget units of one rule: its steps and residual nodes, as the evaluator would count the work.
const UNITS_PER_RESIDUAL_EXPR = 16

/**
 * Fills `t` for the evaluator's input; undefined when a built-in raised an error (the evaluator then
 * answers, with its own handling of built-in errors).
 */
export function fillTemplate(t: QueryTemplate, e: Evaluator): FilledTemplate | undefined {
  const queries: Body[] = []
  const failed = new Set<Expr>()
  const unverified: Confirmable[] = []
  const f = new Frame(t.slots)
  for (const rt of t.rules) {
    e.charge(1 + rt.steps.length + rt.residual.length * UNITS_PER_RESIDUAL_EXPR)
    f.s.fill(undefined)
    let held = true
    for (const step of rt.steps) {
      const ok = runStep(e, step, f)
      if (ok === undefined) return undefined
      if (!ok) {
        failed.add(step.src)
        if (!step.verified) unverified.push(step)
        held = false
        break
      }
    }
    if (!held) continue
    queries.push(residualOf(rt, f))
    if (!rt.verified) unverified.push(rt)
  }
  if (queries.length === 0) failed.add(t.query)
  return { queries, failed: [...failed], unverified }
}

function runStep(e: Evaluator, step: KnownStep, f: Frame): boolean | undefined {
  switch (step.kind) {
    case 'value': {
      const v = valueIn(e, step.term, f)
      if (v === undefined) return false
      f.s[step.slot] = v
      return true
    }
    case 'unify': {
      const a = valueIn(e, step.a, f)
      if (a === undefined) return false
      const b = valueIn(e, step.b, f)
      return b !== undefined && same(a, b)
    }
    case 'call': {
      const args: Value[] = []
      for (const a of step.call.args) args.push(valueIn(e, a, f) as Value)
      let v: Value | undefined
      try {
        v = callBuiltin(step.builtin as FunctionBuiltin, e.ctx, args, step.src.location, e)
      } catch {
        return undefined
      }
      if (v === undefined) return false
      if (step.output === undefined) return v !== false
      f.s[step.output] = v
      return true
    }
  }
}

// The value of a known operand: a constant, a var bound by an earlier step, or a ground ref.
function valueIn(e: Evaluator, t: PTerm, f: Frame): Value | undefined {
  if (t.k === K.Value) return t.v
  if (t.k === K.Var) return f.s[t.slot] as Value | undefined
  let out: Value | undefined
  e.evalTermValues(t, f, (v) => {
    out = v
    return true
  })
  return out
}

function residualOf(rt: RuleTemplate, f: Frame): Body {
  const body: Body = []
  for (const r of rt.residual) {
    const terms: Term[] = [r.op === 'eq' ? { type: 'ref', value: [{ type: 'var', value: 'eq' }] } : r.op]
    for (const o of r.operands) terms.push(typeof o === 'number' ? holeTerm(f.s[o] as Value) : o)
    const index = body.length
    body.push(
      r.location ? { type: 'expr', index, terms, location: r.location } : { type: 'expr', index, terms },
    )
  }
  return body
}

// A known value as a term (valueToTerm's scalars, at this file's allocation sites; see above).
function holeTerm(v: Value): Term {
  switch (typeof v) {
    case 'string':
      return { type: 'string', value: v }
    case 'boolean':
      return { type: 'boolean', value: v }
    default:
      return v === null ? { type: 'null', value: null } : valueToTerm(v)
  }
}
