/**
 * The top-down evaluator: walks a prepared body expression by expression with backtracking, in
 * continuation-passing style as OPA's topdown does. Every `eval*` method takes a continuation
 * `iter` and returns true when evaluation must stop (a caller asked for one answer only); bindings
 * made before calling `iter` are undone after it returns. Refs, unification, rule evaluation and
 * calls live in refs.ts, unify.ts, virtual.ts and calls.ts; partial evaluation plugs in through
 * `partial()`, `unknown()` and the `save*` methods (save.ts).
 */

import type { BuiltinCaller, BuiltinContext, DataOverrides } from '../builtins/context.js'
import type { Builtin } from '../builtins/define.js'
import type { BuiltinCallError } from '../builtins/errors.js'
import { runMetered } from '../builtins/meter.js'
import { isArray, isObject, isSet, ObjectValue, SetValue, type Value } from '../values/index.js'
import type { AsyncOutcome } from './async-outcome.js'
import { Frame, plug, same } from './bindings.js'
import { UNDEFINED, VirtualCache } from './cache.js'
import { evalCall } from './calls.js'
import { groupedComprehension } from './comprehension-groups.js'
import {
  badWithPathError,
  cancelError,
  instructionLimitError,
  internalError,
  objectKeyConflictError,
  stackDepthError,
} from './errors.js'
import type { FastStep } from './fast.js'
import {
  K,
  type PCompr,
  type PExpr,
  type PObjectCompr,
  type PRule,
  type PTerm,
  type VNode,
  WithKind,
  X,
} from './ir.js'
import type { PartialEval } from './partial-eval.js'
import { exprTerms } from './partial-unknown.js'
import { evalRef } from './refs.js'
import { SaveSet, SaveStack, SaveSupport, termUnknown } from './save.js'
import type { Tracer } from './trace.js'
import { unify, unifyValue } from './unify.js'
import { MockStack, upsertPath } from './with.js'

/** A continuation: returns true to stop the enumeration that called it. */
export type Iter = () => boolean
/** A continuation that receives one value. */
export type ValueIter = (v: Value) => boolean

/** What the evaluator reads from a compiled policy. */
export interface EvalPolicy {
  root: VNode
  data: Value
  builtins: ReadonlyMap<string, Builtin>
  /** For `rego.metadata.*`: the annotations of the rule containing a call. */
  regoMetadata?: BuiltinContext['regoMetadata']
  /** For `rego.parse_module`. */
  parseModule?: BuiltinContext['parseModule']
}

/** Per-query options. */
export interface EvaluatorOptions {
  input?: Value
  ctx: BuiltinContext
  strictBuiltinErrors?: boolean
  /** Stop rule sets at their first answer when all answers agree (default true). */
  earlyExit?: boolean
  /** Skip rules whose indexed constraints fail (default true). */
  indexing?: boolean
  /** Use the specialized steps and hoisted bodies of fast.ts (default true; off for differential tests). */
  fastPaths?: boolean
  /** Enumerate generators followed by field equalities through an index (fast-index.ts; default true). */
  generatorIndex?: boolean
  /** Cache rule and function results within the query (default true; off for differential tests). */
  caching?: boolean
  /** Milliseconds since the epoch after which the query is cancelled. */
  deadline?: number
  signal?: AbortSignal
  /** Maximum units of work: expressions, iterations, built-in output (budget.ts; 0: unlimited). */
  instructionLimit?: number
  tracer?: Tracer
  /** Results of asynchronous built-ins from earlier attempts (see calls.ts). */
  asyncResults?: Map<string, AsyncOutcome>
  /** Start from a caller's `with data… as` (a query run by a built-in, `rego.compile`). */
  overrides?: DataOverrides
}

/** The evaluator of one query. */
export class Evaluator implements BuiltinCaller {
  readonly policy: EvalPolicy
  input: Value | undefined
  data: Value
  /** `with data.x as ...` targets in force: virtual documents under them are replaced. */
  readonly targets: Value[][] = []
  readonly cache: VirtualCache
  readonly mocks = new MockStack()
  readonly ctx: BuiltinContext
  readonly strictBuiltinErrors: boolean
  readonly earlyExit: boolean
  readonly indexing: boolean
  readonly fastPaths: boolean
  readonly generatorIndex: boolean
  readonly tracer: Tracer | undefined
  readonly asyncResults: Map<string, AsyncOutcome> | undefined
  /** Errors of built-ins that were swallowed (non-strict mode), for `--show-builtin-errors`. */
  readonly builtinErrors: BuiltinCallError[] = []
  /** Partial evaluation state; unset for normal evaluation. */
  saveSet: SaveSet | undefined
  saveStack: SaveStack | undefined
  saveSupport: SaveSupport | undefined
  /** Partial evaluation hooks (partial-eval.ts); unset for normal evaluation. */
  pe: PartialEval | undefined
  /** Units of work done so far (metrics, instruction limit): see budget.ts. */
  instructions = 0
  readonly #deadline: number
  readonly #signal: AbortSignal | undefined
  readonly #limit: number

  constructor(policy: EvalPolicy, options: EvaluatorOptions) {
    this.policy = policy
    this.input = options.input
    this.data = options.overrides?.data ?? policy.data
    if (options.overrides) for (const path of options.overrides.targets) this.targets.push([...path])
    this.ctx = withPolicyHooks(options.ctx, policy)
    this.strictBuiltinErrors = options.strictBuiltinErrors ?? false
    this.earlyExit = options.earlyExit ?? true
    this.indexing = options.indexing ?? true
    this.fastPaths = options.fastPaths ?? true
    this.generatorIndex = options.generatorIndex ?? true
    this.cache = new VirtualCache(options.caching ?? true)
    this.tracer = options.tracer
    this.asyncResults = options.asyncResults
    this.#deadline = options.deadline ?? 0
    this.#signal = options.signal
    this.#limit = options.instructionLimit ?? 0
  }

  /** The `with data… as` in force now, for a query a built-in runs (BuiltinCaller). */
  get overrides(): DataOverrides {
    return { data: this.data, targets: [...this.targets] }
  }

  /** The deadline in ms since the epoch (0: none), for a query a built-in runs (BuiltinCaller). */
  get deadline(): number {
    return this.#deadline
  }

  /** The body to run for a rule: hoisted for plain evaluation, as written for PE and tracing. */
  bodyOf(r: PRule): PExpr[] {
    return this.saveSet === undefined && this.tracer === undefined && this.fastPaths ? r.fastBody : r.body
  }

  /**
   * Evaluates a rule's body in `frame`, reporting Enter, Exit and Redo of the rule to a tracer;
   * `early`: the first success decides the rule (early exit), which the Exit event says.
   */
  evalRuleBody(r: PRule, frame: Frame, iter: Iter, early = false): boolean {
    const tracer = this.tracer
    if (tracer === undefined) return this.evalBody(this.bodyOf(r), 0, frame, iter)
    tracer.ruleEnter?.(r)
    return this.evalBody(r.body, 0, frame, () => {
      tracer.ruleExit?.(r, early)
      const stop = iter()
      tracer.ruleRedo?.(r)
      return stop
    })
  }

  /**
   * Evaluates a query body in `frame`; `iter` sees each solution. Evaluation deeper than the
   * JavaScript stack fails with a plain `eval_internal_error` (see `stackDepthError`).
   */
  evalQuery(body: PExpr[], frame: Frame, iter: Iter): boolean {
    try {
      // Built-ins charge their work to this evaluator while it runs (builtins/meter.ts).
      return runMetered(this, () => this.evalBody(body, 0, frame, iter))
    } catch (err) {
      throw stackDepthError(err, body[0]?.src.location) ?? err
    }
  }

  /**
   * Evaluates `body[i:]`. The continuation of each expression is built once per body evaluation
   * (not once per solution of the expression before it), which keeps the allocation rate of
   * tight loops low.
   */
  evalBody(body: PExpr[], i: number, frame: Frame, iter: Iter): boolean {
    const n = body.length
    if (i >= n) return iter()
    let next = iter
    for (let j = n - 1; j > i; j--) {
      const expr = body[j] as PExpr
      const k = next
      next = () => this.evalExpr(expr, frame, k)
    }
    return this.evalExpr(body[i] as PExpr, frame, next)
  }

  /** Evaluates one expression (with its `with` modifiers, if any). */
  evalExpr(expr: PExpr, frame: Frame, iter: Iter): boolean {
    if ((++this.instructions & 1023) === 0) this.checkLimits()
    if (this.tracer)
      return this.tracer.expr(this, expr, frame, iter, (it) => this.evalExprInner(expr, frame, it))
    if (this.pe !== undefined) return this.pe.track(this, expr, frame, iter)
    // The common case, inlined: a specialized step, else the generic one.
    const fast = expr.fast as FastStep | undefined
    if (fast !== undefined && this.saveSet === undefined && this.fastPaths) {
      const r = fast(this, frame, iter)
      if (r !== undefined) return r
    }
    if (expr.with) return this.evalWith(expr, frame, iter)
    return this.evalStep(expr, frame, iter)
  }

  /** {@link evalExpr} without the instruction count and the tracing or partial-evaluation hook. */
  evalExprInner(expr: PExpr, frame: Frame, iter: Iter): boolean {
    const fast = expr.fast as FastStep | undefined
    if (fast !== undefined && this.saveSet === undefined && this.fastPaths) {
      const r = fast(this, frame, iter)
      if (r !== undefined) return r
    }
    if (expr.with) return this.evalWith(expr, frame, iter)
    return this.evalStep(expr, frame, iter)
  }

  /** Evaluates one expression without its `with` modifiers. */
  evalStep(expr: PExpr, frame: Frame, iter: Iter): boolean {
    if (expr.negated) return this.evalNot(expr, frame, iter)
    switch (expr.kind) {
      case X.Unify:
        return unify(this, expr.a as PTerm, frame, expr.b as PTerm, frame, iter)
      case X.Call:
        return evalCall(this, expr, frame, iter)
      case X.Term:
        return this.evalTermExpr(expr, frame, iter)
      case X.Every:
        return this.evalEvery(expr, frame, iter)
      case X.Not:
        return this.evalBody(expr.notBody as PExpr[], 0, frame, iter)
    }
  }

  /** A term as an expression: true for every value that is not `false`. */
  private evalTermExpr(expr: PExpr, frame: Frame, iter: Iter): boolean {
    const t = expr.term as PTerm
    if (this.pe !== undefined) return this.pe.evalTermExpr(this, expr, frame, iter)
    if (this.partial() && this.unknown(t, frame)) return this.saveExpr(expr, frame, iter)
    return this.evalTermValues(t, frame, (v) => (v === false ? false : iter()))
  }

  /** `not expr`: succeeds when `expr` has no solution; its bindings never escape. */
  evalNot(expr: PExpr, frame: Frame, iter: Iter): boolean {
    const partial = this.pe?.evalNot(this, expr, frame, iter)
    if (partial !== undefined) return partial
    if (this.pe === undefined && this.partial() && this.unknownExpr(expr, frame))
      return this.saveExpr(expr, frame, iter)
    const positive: PExpr = { ...expr, negated: false, with: undefined }
    let found = false
    this.evalStep(positive, frame, () => {
      found = true
      return true
    })
    return found ? false : iter()
  }

  /** `every k, v in domain { body }`. */
  evalEvery(expr: PExpr, frame: Frame, iter: Iter): boolean {
    const ev = expr.every
    if (!ev) throw internalError('every without body', expr.src.location)
    // NOTE(pe): the body counts too: a body that reads an unknown would be saved and succeed for
    // each element, turning the whole `every` into "always true"; OPA saves the expression whole.
    if (this.partial() && (this.unknownExpr(expr, frame) || this.pe?.analysis.expr(expr, frame)))
      return this.saveExpr(expr, frame, iter)
    let all = true
    this.evalTermValues(ev.domain, frame, (domain) => {
      if (!isArray(domain) && !isObject(domain) && !isSet(domain)) {
        all = false
        return true
      }
      const check = (k: Value, v: Value): boolean => {
        // Each element is work even when the body is cheap (budget.ts).
        if ((++this.instructions & 1023) === 0) this.checkLimits()
        return unifyValue(this, ev.key, frame, k, () =>
          unifyValue(this, ev.value, frame, v, () => {
            let ok = false
            this.evalBody(ev.body, 0, frame, () => {
              ok = true
              return true
            })
            if (!ok) all = false
            return !ok
          }),
        )
      }
      if (isArray(domain)) {
        for (let i = 0; i < domain.length && all; i++) check(i, domain[i] as Value)
      } else if (isObject(domain)) {
        for (const [k, v] of domain.entries()) if (!all || check(k, v)) break
      } else {
        for (const x of domain.values()) if (!all || check(x, x)) break
      }
      return true
    })
    return all ? iter() : false
  }

  /** `expr with target as value, ...`: replaces input, data or functions for this expression only. */
  evalWith(expr: PExpr, frame: Frame, iter: Iter): boolean {
    if (this.partial() && (this.unknownExpr(expr, frame) || this.pe?.analysis.unknownMock(expr)))
      return this.saveExprMarkUnknowns(expr, frame, iter)
    let input = this.input
    let data = this.data
    const targets: Value[][] = []
    const mocks = new Map<string, import('./with.js').Mock>()
    for (const w of expr.with ?? []) {
      if (w.kind === WithKind.Function) {
        if (w.fnValue) mocks.set(w.fnKey, { fn: w.fnValue })
        else mocks.set(w.fnKey, { value: this.valueOf(w.value, frame) })
        continue
      }
      if (w.nonGround) {
        if (w.kind === WithKind.Input) throw badWithPathError(expr.src.location)
        continue
      }
      const value = this.valueOf(w.value, frame)
      if (w.kind === WithKind.Input) {
        input = w.path.length === 0 ? value : upsertPath(input, w.path, value)
      } else {
        data = upsertPath(data, w.path, value)
        targets.push(w.path)
      }
    }
    const outer = { input: this.input, data: this.data }
    const push = () => {
      this.input = input
      this.data = data
      this.targets.push(...targets)
      this.mocks.putPairs(mocks)
      this.cache.push()
    }
    const pop = () => {
      this.cache.pop()
      this.mocks.popPairs()
      this.targets.length -= targets.length
      this.input = outer.input
      this.data = outer.data
    }
    push()
    try {
      return this.evalStep(expr, frame, () => {
        pop()
        try {
          return iter()
        } finally {
          push()
        }
      })
    } finally {
      pop()
    }
  }

  /** The single value of a term that must be ground (with values, call operands). */
  valueOf(t: PTerm, frame: Frame): Value {
    const v = plug(t, frame)
    if (v !== undefined) return v
    let out: Value | undefined
    this.evalTermValues(t, frame, (x) => {
      out = x
      return true
    })
    if (out === undefined) throw internalError(`term is not ground: ${t.src.type}`, t.src.location)
    return out
  }

  /** Every value `t` takes in `frame` (refs and unbound vars inside composites enumerate). */
  evalTermValues(t: PTerm, frame: Frame, iter: ValueIter): boolean {
    switch (t.k) {
      case K.Value:
        return iter(t.v)
      case K.Var: {
        const b = frame.s[t.slot]
        if (b === undefined) throw internalError(`var ${t.name} is unbound`, t.src.location)
        if (b instanceof Object && 'term' in b && 'frame' in b)
          return this.evalTermValues(b.term, b.frame, iter)
        return iter(b as Value)
      }
      case K.Ref:
        return evalRef(this, t, frame, iter)
      case K.Array:
      case K.Set:
      case K.Object: {
        const v = plug(t, frame)
        if (v !== undefined) return iter(v)
        return this.evalComposite(t, frame, iter)
      }
      case K.ArrayCompr:
      case K.SetCompr:
      case K.ObjectCompr:
        return iter(this.evalComprehension(t, frame))
    }
  }

  private evalComposite(t: PTerm, frame: Frame, iter: ValueIter): boolean {
    const parts: PTerm[] =
      t.k === K.Object ? t.entries.flat() : t.k === K.Array || t.k === K.Set ? t.items : []
    const vals: Value[] = new Array(parts.length)
    const rec = (i: number): boolean => {
      if (i === parts.length) {
        if (t.k === K.Array) return iter(vals.slice())
        if (t.k === K.Set) return iter(SetValue.from(vals))
        const o = new ObjectValue()
        for (let j = 0; j < vals.length; j += 2) o.set(vals[j] as Value, vals[j + 1] as Value)
        return iter(o)
      }
      return this.evalTermValues(parts[i] as PTerm, frame, (v) => {
        vals[i] = v
        return rec(i + 1)
      })
    }
    return rec(0)
  }

  /** The value of a comprehension: its body runs in the enclosing frame (or once, if indexed). */
  evalComprehension(t: PCompr | PObjectCompr, frame: Frame): Value {
    if (t.index !== undefined && this.saveSet === undefined) {
      const grouped = groupedComprehension(this, t, t.index, frame)
      if (grouped !== undefined) return grouped
    }
    if (t.k === K.ObjectCompr) {
      const out = new ObjectValue()
      this.evalBody(t.body, 0, frame, () => {
        const k = this.valueOf(t.key, frame)
        const v = this.valueOf(t.value, frame)
        const prev = out.get(k)
        if (prev !== undefined && !same(prev, v)) throw objectKeyConflictError(t.key.src.location)
        out.set(k, v)
        return false
      })
      return out
    }
    if (t.k === K.SetCompr) {
      const out = new SetValue()
      this.evalBody(t.body, 0, frame, () => {
        out.add(this.valueOf(t.term, frame))
        return false
      })
      return out
    }
    const out: Value[] = []
    this.evalBody(t.body, 0, frame, () => {
      out.push(this.valueOf(t.term, frame))
      return false
    })
    return out
  }

  /**
   * Charges `units` of work (budget.ts): throws the instruction-limit error, before anything is
   * done, when they do not fit in what is left; checks the deadline whenever the count crosses a
   * multiple of 1024, as the per-expression count does.
   */
  charge(units: number): void {
    if (!(units > 0)) return
    const before = this.instructions
    if (this.#limit > 0 && before + units > this.#limit) throw instructionLimitError()
    this.instructions = before + units
    if (Math.floor(before / 1024) !== Math.floor(this.instructions / 1024)) this.checkLimits()
  }

  /** Throws when the query ran past its deadline, was cancelled, or hit the instruction limit. */
  checkLimits(): void {
    if (this.#signal?.aborted) throw cancelError()
    if (this.#deadline > 0 && Date.now() > this.#deadline) throw cancelError('timed out')
    if (this.#limit > 0 && this.instructions > this.#limit) {
      throw instructionLimitError()
    }
  }

  // ------------------------------------------------------------------------------------------
  // Partial evaluation hooks (OPA: partial(), unknown(), saveExpr/saveUnify/saveCall).

  /** True during partial evaluation. */
  partial(): boolean {
    return this.saveSet !== undefined
  }

  /** True when `t` (as bound in `frame`) refers to something unknown. */
  unknown(t: PTerm, frame: Frame): boolean {
    if (this.pe !== undefined) return this.pe.unknown(t, frame)
    return this.saveSet !== undefined && termUnknown(this.saveSet, t, frame)
  }

  /** True when any operand of `expr` is unknown. */
  unknownExpr(expr: PExpr, frame: Frame): boolean {
    if (!this.saveSet) return false
    const terms: PTerm[] = []
    if (expr.a) terms.push(expr.a)
    if (expr.b) terms.push(expr.b)
    if (expr.term) terms.push(expr.term)
    if (expr.call) terms.push(...expr.call.args)
    if (expr.every) terms.push(expr.every.domain)
    for (const w of expr.with ?? []) terms.push(w.value)
    if (expr.notBody?.some((x) => this.unknownExpr(x, frame))) return true
    return terms.some((t) => this.unknown(t, frame))
  }

  /** Saves `expr` (as bound in `frame`) into the residual query and continues. */
  saveExpr(expr: PExpr, frame: Frame, iter: Iter): boolean {
    const stack = this.saveStack
    if (!stack) throw internalError('saveExpr outside partial evaluation', expr.src.location)
    stack.pushExpr(expr, frame)
    try {
      return iter()
    } finally {
      stack.pop()
    }
  }

  /**
   * Saves `expr` and continues with its unbound vars unknown meanwhile (OPA's
   * saveExprMarkUnknowns): what the saved expression would bind (`x` of `x = q with data.a as
   * input.a`) is only known at run time, so later expressions that read it are saved too.
   */
  saveExprMarkUnknowns(expr: PExpr, frame: Frame, iter: Iter): boolean {
    const set = this.saveSet
    if (!set) throw internalError('saveExprMarkUnknowns outside partial evaluation', expr.src.location)
    let pops = 0
    for (const t of exprTerms(expr)) pops += set.pushVars(t, frame)
    try {
      return this.saveExpr(expr, frame, iter)
    } finally {
      set.pop(pops)
    }
  }

  /** Saves `a = b` and continues, marking the vars of both sides unknown meanwhile. */
  saveUnify(a: PTerm, fa: Frame, b: PTerm, fb: Frame, iter: Iter): boolean {
    const stack = this.saveStack
    const set = this.saveSet
    if (!stack || !set) throw internalError('saveUnify outside partial evaluation', a.src.location)
    stack.pushUnify(a, fa, b, fb)
    const pops = set.pushVars(a, fa) + set.pushVars(b, fb)
    try {
      return iter()
    } finally {
      set.pop(pops)
      stack.pop()
    }
  }

  /** Saves a call whose operands are unknown; its output var becomes unknown. */
  saveCall(expr: PExpr, frame: Frame, iter: Iter): boolean {
    const stack = this.saveStack
    const set = this.saveSet
    if (!stack || !set) throw internalError('saveCall outside partial evaluation', expr.src.location)
    stack.pushExpr(expr, frame)
    const out = expr.call?.output
    const pops = out ? set.pushVars(out, frame) : 0
    try {
      return iter()
    } finally {
      set.pop(pops)
      stack.pop()
    }
  }

  /** Starts partial evaluation: refs under `unknowns` are saved instead of evaluated. */
  beginPartial(unknowns: Value[][]): void {
    this.saveSet = new SaveSet(unknowns)
    this.saveStack = new SaveStack()
    this.saveSupport = new SaveSupport()
  }
}

export { Frame, UNDEFINED }

/**
 * The caller's context, with the policy's `rego.metadata.*` and `rego.parse_module` hooks where it
 * has none of its own: contexts built for `regent eval`, `regent test` or the agent carry print,
 * strict errors or allow_net, not the policy.
 *
 * NOTE(regent): OPA rewrites `rego.metadata.chain()`/`rule()` into constants at compile time
 * (ast/compile.go, rewriteRegoMetadataCalls), so how a query is run never hides them.
 */
function withPolicyHooks(ctx: BuiltinContext, policy: EvalPolicy): BuiltinContext {
  const regoMetadata = ctx.regoMetadata ?? policy.regoMetadata
  const parseModule = ctx.parseModule ?? policy.parseModule
  if (regoMetadata === ctx.regoMetadata && parseModule === ctx.parseModule) return ctx
  return Object.create(ctx, { regoMetadata: { value: regoMetadata }, parseModule: { value: parseModule } })
}
