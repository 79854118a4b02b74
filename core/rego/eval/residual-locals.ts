/**
 * The common residual built straight in its copy-propagated form. Partial evaluation of rules such as
 * `input.t.a == 1; input.t.b != input.x` saves `input.t.a = 1`, `__local0__1 = input.t.b` and
 * `neq(__local0__1, "y")`; copy propagation's one-pass shape (copy-propagation.ts, `propagateLocals`)
 * then substitutes each generated local's ref into its uses. This does the same while plugging the
 * saved entries: a local's binding is never built as AST, and its uses receive the ref directly.
 * Any other shape returns undefined, and the caller plugs and copy-propagates as before, so answers
 * are the same by construction (plugging and copy propagation were a quarter of a 1,000-rule compile
 * request, docs/performance.md).
 */
import type { Body, Expr, Location, Term } from '../syntax/ast.js'
import type { Frame } from './bindings.js'
import {
  type CopyPropagationOptions,
  findLocal,
  isLocal,
  isNoop,
  type LocalBinding,
  plainGround,
  putBack,
} from './copy-propagation.js'
import { type PExpr, type PTerm, X } from './ir.js'
import { eqOperator, type Plugger } from './partial-plug.js'
import type { SavedEntry } from './partial-stack.js'
import { isEqOperator, sameTerm } from './residual-terms.js'
import { termUnits, UNITS_PER_AST_NODE } from './residual-units.js'

/** A residual in copy-propagated form and the budget units of its plugged form (before propagation). */
export interface LocalsResidual {
  body: Body
  units: number
}

// The plugged `eq` operator's units: a ref and its one var.
const EQ_UNITS = 2 * UNITS_PER_AST_NODE

/**
 * `copyPropagate(plugger.query(entries), options)` and the budget units of the plugged query, for
 * the one-pass shape; undefined for any other. Vars are named in the plugger's order, so a fallback
 * afterwards numbers frames as it would have.
 */
export function residualOfLocals(
  entries: readonly SavedEntry[],
  plugger: Plugger,
  options: CopyPropagationOptions,
): LocalsResidual | undefined {
  const r = new LocalsBuilder(plugger, options)
  for (const s of entries) if (!r.add(s)) return undefined
  putBack(r.bound, r.result)
  if (options.ensureNonEmpty && r.result.length === 0) {
    return { body: [{ type: 'expr', index: 0, terms: { type: 'boolean', value: true } }], units: r.units }
  }
  return { body: r.result, units: r.units }
}

class LocalsBuilder {
  readonly bound: LocalBinding[] = []
  readonly result: Body = []
  units = 0

  constructor(
    readonly plugger: Plugger,
    readonly options: CopyPropagationOptions,
  ) {}

  /** Adds one saved entry; false when it is not of the shape. */
  add(s: SavedEntry): boolean {
    if (s.kind === 'unify') return this.#eq(s.a, s.fa, s.b, s.fb, s.location)
    if (s.kind !== 'expr') return false
    const e = s.expr
    if (e.negated || e.with) return false
    if (e.kind === X.Unify) return this.#eq(e.a as PTerm, s.frame, e.b as PTerm, s.frame, e.src.location)
    if (e.kind !== X.Call) return false
    const call = e.call as NonNullable<PExpr['call']>
    // The plugger writes a top-level `==` as `=`.
    if (call.name === 'equal' && !call.output && call.args.length === 2) {
      return this.#eq(call.args[0] as PTerm, s.frame, call.args[1] as PTerm, s.frame, e.src.location)
    }
    return this.#call((e.src.terms as Term[])[0] as Term, call, s.frame, e.src.location)
  }

  // `a = b`: a local's binding to a ground ref (removed), or a comparison of ground terms.
  #eq(a: PTerm, fa: Frame, b: PTerm, fb: Frame, location: Location | undefined): boolean {
    const p = this.plugger
    const nameA = p.unboundName(a, fa)
    const ta = nameA === undefined ? p.term(a, fa) : undefined
    const nameB = p.unboundName(b, fb)
    const tb = nameB === undefined ? p.term(b, fb) : undefined
    this.units += UNITS_PER_AST_NODE + EQ_UNITS + operandUnits(ta) + operandUnits(tb)
    const local = nameA ?? nameB
    if (local !== undefined) {
      const value = nameA !== undefined ? tb : ta
      if (value?.type !== 'ref' || value.value.length < 2 || !plainGround(value)) return false
      if (!isLocal(local, this.options.live) || findLocal(this.bound, local)) return false
      this.bound.push({ name: local, value })
      return true
    }
    if (!ta || !tb || !plainGround(ta) || !plainGround(tb) || sameTerm(ta, tb)) return false
    this.#keep([eqOperator(), ta, tb], location)
    return true
  }

  // Any other call: operands ground, or locals bound before (replaced by their refs); no output var.
  #call(op: Term, call: NonNullable<PExpr['call']>, frame: Frame, location: Location | undefined): boolean {
    const operands = call.args.length + (call.output ? 1 : 0)
    if (operands === 0 || op.type !== 'ref' || isEqOperator(op)) return false
    if (this.options.arity(op) === operands - 1) return false
    this.units += UNITS_PER_AST_NODE + termUnits(op)
    const terms: Term[] = [op]
    for (const a of call.args) if (!this.#operand(a, frame, terms)) return false
    if (call.output && !this.#operand(call.output, frame, terms)) return false
    this.#keep(terms, location)
    return true
  }

  #operand(t: PTerm, frame: Frame, terms: Term[]): boolean {
    const name = this.plugger.unboundName(t, frame)
    if (name !== undefined) {
      this.units += UNITS_PER_AST_NODE
      const b = isLocal(name, this.options.live) ? findLocal(this.bound, name) : undefined
      if (!b) return false
      terms.push(b.value)
      return true
    }
    const plugged = this.plugger.term(t, frame)
    this.units += termUnits(plugged)
    if (!plainGround(plugged)) return false
    terms.push(plugged)
    return true
  }

  // Built with its location, as the plugger's nodes are: a property added afterwards changes the
  // object's shape (and was a tenth of this builder's samples).
  #keep(terms: Term[], location: Location | undefined): void {
    const index = this.result.length
    const expr: Expr = location ? { type: 'expr', index, terms, location } : { type: 'expr', index, terms }
    if (!isNoop(expr)) this.result.push(expr)
  }
}

// A plugged operand's units; an unbound var (not built) is one node.
function operandUnits(t: Term | undefined): number {
  return t === undefined ? UNITS_PER_AST_NODE : termUnits(t)
}
