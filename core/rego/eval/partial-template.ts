/**
 * Residual templates: the common shape of filter policies partially evaluated once per policy, so a
 * request only fills in its input's values (partial-template-fill.ts).
 *
 * A query `data.pkg.rule` over complete rules whose bodies only compare refs, constants and
 * generated locals (`input.tickets.tenant == input.tenant.id`, `"admin" in data.roles[input.user]`)
 * partially evaluates the same way for every input: an expression that reads an unknown table is
 * saved, every other expression is evaluated and either holds or ends the rule. What changes from one
 * request to the next is which rules hold and the known values written into the saved expressions. A
 * template records, per rule, the known steps to evaluate in body order and the residual expressions
 * with holes for those values, built as the evaluator's save stack, the plugger and copy
 * propagation's one-pass shape (residual-locals.ts) would build them. Anything else (negation,
 * `with`, iteration, rule or function refs, unknowns under `data`, ...) has no template and takes the
 * evaluator. The fill checks a template against the evaluator the first time a rule holds and
 * the first time a step ends a rule (partial.ts), so each outcome is trusted only once the engine
 * has agreed with it.
 */
import type { Builtin } from '../builtins/define.js'
import type { Expr, Location, Term } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import { Frame } from './bindings.js'
import { plainGround } from './copy-propagation.js'
import { K, type PCall, type PExpr, type PRef, type PRule, type PTerm, Root, SetKind, X } from './ir.js'
import { FrameNames, Plugger, valueToTerm } from './partial-plug.js'
import { UnknownSet } from './partial-stack.js'
import type { Policy } from './policy.js'
import { sameTerm } from './residual-terms.js'

/** An operand of a residual expression: a fixed term, or the value in a slot of the rule's frame. */
export type TemplateOperand = Term | number

/** One residual expression of a rule. */
export interface ResidualTemplate {
  /** `eq` (a saved unification) or the source operator of a saved call. */
  op: Term | 'eq'
  operands: TemplateOperand[]
  location: Location | undefined
}

/** What the evaluator has confirmed: a rule's residual when it holds, a step's failure. */
export interface Confirmable {
  verified: boolean
}

/** A known step of a rule body, evaluated per request in body order; a step that fails ends the rule. */
export type KnownStep = Confirmable &
  /** `slot := value of term` (a known ref, or a var bound before); undefined fails. */
  (
    | { kind: 'value'; slot: number; term: PTerm; src: Expr }
    /** `a = b` with both sides known. */
    | { kind: 'unify'; a: PTerm; b: PTerm; src: Expr }
    /**
     * A built-in call with known operands: its result goes to `output` (a slot) when the call has
     * one (`count(x, n)`), else it holds unless the result is `false` or undefined.
     */
    | { kind: 'call'; call: PCall; builtin: Builtin; output: number | undefined; src: Expr }
  )

/** One rule's template. */
export interface RuleTemplate extends Confirmable {
  rule: PRule
  /** Frame size: the rule's slots, then one per known value written into the residual. */
  slots: number
  steps: KnownStep[]
  residual: ResidualTemplate[]
}

/** The template of one query over one set of unknowns. */
export interface QueryTemplate {
  /** The query's expression, recorded as failed when no rule holds. */
  query: Expr
  rules: RuleTemplate[]
  /** The largest frame of any rule (a fill reuses one frame for all of them). */
  slots: number
}

/**
 * The template for `body` (the prepared query) over `unknowns`, or undefined when the query is not of
 * the shape (the evaluator answers it).
 */
export function buildTemplate(
  policy: Policy,
  body: readonly PExpr[],
  unknowns: readonly Value[][],
): QueryTemplate | undefined {
  if (body.length !== 1 || unknowns.some((u) => u[0] !== 'input')) return undefined
  const q = body[0] as PExpr
  if (q.kind !== X.Term || q.negated || q.with || q.term?.k !== K.Ref || q.term.root !== Root.Data)
    return undefined
  let node = policy.root
  for (const p of q.term.path) {
    if (p.k !== K.Value || typeof p.v !== 'string') return undefined
    const child = node.child(p.v)
    if (!child) return undefined
    node = child
  }
  const set = node.ruleSet
  if (!set || set.kind !== SetKind.Complete || set.defaultRule || set.rules.length === 0) return undefined
  const unknownSet = new UnknownSet(unknowns as Value[][])
  const rules: RuleTemplate[] = []
  let readsUnknowns = false
  let slots = 0
  for (const r of set.rules) {
    const t = new RuleBuilder(policy, unknownSet, r).build()
    if (!t) return undefined
    readsUnknowns ||= t.residual.length > 0
    slots = Math.max(slots, t.slots)
    rules.push(t)
  }
  // A rule set that reads no unknown is evaluated, not inlined: the evaluator's (cheap) path.
  return readsUnknowns ? { query: q.src, rules, slots } : undefined
}

const EMPTY = new Frame(0)
const PLUGGER = new Plugger(new FrameNames(EMPTY))

// What a slot of the rule's frame holds while the template is built.
type SlotState = { kind: 'known' } | { kind: 'alias'; ref: Term }

class RuleBuilder {
  readonly #state = new Map<number, SlotState>()
  readonly #steps: KnownStep[] = []
  readonly #residual: ResidualTemplate[] = []
  readonly #used = new Set<number>()
  #slots: number

  constructor(
    readonly policy: Policy,
    readonly unknowns: UnknownSet,
    readonly rule: PRule,
  ) {
    this.#slots = rule.slots
  }

  build(): RuleTemplate | undefined {
    const r = this.rule
    if (r.else || r.isDefault || r.args || r.refTail.length > 0 || r.multiValue) return undefined
    if (r.value?.k !== K.Value || r.value.v !== true) return undefined
    for (const e of r.body) if (!this.#expr(e)) return undefined
    // An alias nothing reads is put back as `__local0__1 = ref`, named by frame numbering.
    for (const [slot, s] of this.#state) if (s.kind === 'alias' && !this.#used.has(slot)) return undefined
    return { rule: r, slots: this.#slots, steps: this.#steps, residual: this.#residual, verified: false }
  }

  #expr(e: PExpr): boolean {
    if (e.negated || e.with) return false
    if (e.kind === X.Unify) return this.#unify(e.a as PTerm, e.b as PTerm, e.src)
    if (e.kind === X.Call) return this.#call(e.call as PCall, e.src)
    return false
  }

  // The unification shapes of unify.ts that this template mirrors; any other is no template.
  #unify(a: PTerm, b: PTerm, src: Expr): boolean {
    // `local = ref`: a generated or user var seen for the first time.
    if (a.k === K.Var && !this.#state.has(a.slot) && b.k === K.Ref) {
      const u = this.#refUnknown(b)
      if (u === undefined) return false
      if (u) {
        // Saved and then removed by copy propagation: uses of the var receive the ref.
        const ref = this.#fixed(b)
        if (ref.type !== 'ref' || ref.value.length < 2 || !plainGround(ref)) return false
        this.#state.set(a.slot, { kind: 'alias', ref })
        return true
      }
      this.#steps.push({ kind: 'value', slot: a.slot, term: b, src, verified: false })
      this.#state.set(a.slot, { kind: 'known' })
      return true
    }
    const ua = this.#side(a)
    const ub = this.#side(b)
    if (ua === undefined || ub === undefined) return false
    if (!ua && !ub) {
      this.#steps.push({ kind: 'unify', a, b, src, verified: false })
      return true
    }
    if (ua && ub) {
      // Both unknown refs: saved as written.
      if (a.k !== K.Ref || b.k !== K.Ref) return false
      const ta = this.#fixed(a)
      const tb = this.#fixed(b)
      if (!plainGround(ta) || !plainGround(tb) || sameTerm(ta, tb)) return false
      this.#save('eq', [ta, tb], src)
      return true
    }
    const unknown = ua ? a : b
    const known = ua ? b : a
    // A known `data` ref against an unknown is inlined by partial-refs.ts, which writes its value
    // second: left to the evaluator.
    if (unknown.k !== K.Ref || (known.k === K.Ref && known.root === Root.Data)) return false
    const tu = this.#fixed(unknown)
    if (!plainGround(tu)) return false
    // A constant on the right stays on the right (`input.t.a = 1`, unifyValue); a known ref or a
    // bound var is evaluated and its value written first (`"alice" = input.users.name`, valueFirst
    // and evalThenUnify), as is a constant on the left.
    if (known.k === K.Value && known === b) {
      this.#save('eq', [tu, valueToTerm(known.v)], src)
      return true
    }
    if (known.k === K.Value) {
      const t = known.src.type === 'var' || known.src.type === 'ref' ? valueToTerm(known.v) : known.src
      this.#save('eq', [t, tu], src)
      return true
    }
    if (known.k === K.Var) {
      // A bound var on the right is plugged in place (`input.t.a = x`), on the left written first.
      this.#save('eq', known === b ? [tu, known.slot] : [known.slot, tu], src)
      return true
    }
    const slot = this.#slots++
    this.#steps.push({ kind: 'value', slot, term: known, src, verified: false })
    this.#save('eq', [slot, tu], src)
    return true
  }

  // A built-in call: saved when an operand is an alias of an unknown ref, else evaluated.
  #call(call: PCall, src: Expr): boolean {
    const b = call.builtin
    if (!b || call.fn || b.kind !== 'function' || b.nondeterministic) return false
    if (call.name === 'equal' || call.args.length !== b.arity) return false
    const out = call.output
    if (out && (out.k !== K.Var || this.#state.has(out.slot))) return false
    const operands: TemplateOperand[] = []
    let saved = false
    for (const a of call.args) {
      if (a.k === K.Value) {
        const t = a.src.type === 'var' || a.src.type === 'ref' ? valueToTerm(a.v) : a.src
        if (!plainGround(t)) return false
        operands.push(t)
        continue
      }
      if (a.k !== K.Var) return false
      const s = this.#state.get(a.slot)
      if (!s) return false
      if (s.kind === 'alias') {
        saved = true
        this.#used.add(a.slot)
        operands.push(s.ref)
      } else operands.push(a.slot)
    }
    if (saved) {
      // A saved call with an output is not of copy propagation's one-pass shape.
      if (out) return false
      this.#save((src.terms as Term[])[0] as Term, operands, src)
      return true
    }
    this.#steps.push({ kind: 'call', call, builtin: b, output: out?.slot, src, verified: false })
    if (out) this.#state.set(out.slot, { kind: 'known' })
    return true
  }

  /** Whether `t` is unknown, as the evaluator's analysis would say; undefined for no template. */
  #side(t: PTerm): boolean | undefined {
    if (t.k === K.Value) return false
    if (t.k === K.Var) {
      const s = this.#state.get(t.slot)
      // An alias on either side of a unification is left to the evaluator (unifyUnboundVar).
      return s?.kind === 'known' ? false : undefined
    }
    if (t.k === K.Ref) return this.#refUnknown(t)
    return undefined
  }

  /**
   * Whether the ref reads an unknown: refs into `input` by constants and known vars, or into base
   * documents of `data` (no rule under them) that are known. Undefined for any other ref.
   */
  #refUnknown(ref: PRef): boolean | undefined {
    if (ref.head || ref.root === Root.Term) return undefined
    const path: Value[] = []
    let ground = true
    for (const p of ref.path) {
      if (p.k === K.Value) {
        if (ground) path.push(p.v)
      } else if (p.k === K.Var && this.#state.get(p.slot)?.kind === 'known') ground = false
      else return undefined
    }
    if (ref.root === Root.Data) {
      const first = path[0]
      // Only base documents: a rule under the path would be inlined or kept as a support rule.
      if (typeof first !== 'string' || this.policy.root.child(first)) return undefined
      return false
    }
    const unknown = this.unknowns.overlaps('input', path)
    // A key only known per request under an unknown table is left to the evaluator.
    if (unknown && !ground) return undefined
    return unknown
  }

  // A ground term as the plugger writes it (locations from the prepared term).
  #fixed(t: PTerm): Term {
    return PLUGGER.term(t, EMPTY)
  }

  #save(op: Term | 'eq', operands: TemplateOperand[], src: Expr): void {
    this.#residual.push({ op, operands, location: src.location })
  }
}
