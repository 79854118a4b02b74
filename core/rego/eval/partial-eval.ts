/**
 * The state and hooks of one partial evaluation. The evaluator calls these (through `e.pe`) where
 * partial evaluation changes what it does: term expressions, negations, calls, unifications with
 * `data` refs and with unknown vars, and the `unknown` test; everything else runs as in normal
 * evaluation, with what must be saved going to the save stack (partial-stack.ts).
 */
import type { Builtin } from '../builtins/define.js'
import type { Body, Expr, Head, Location, Term } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import { Frame, plug, TermBinding } from './bindings.js'
import { type CopyPropagationOptions, copyPropagate } from './copy-propagation.js'
import type { Evaluator, Iter } from './evaluator.js'
import {
  type FunctionRef,
  K,
  type PCall,
  type PExpr,
  type PRef,
  type PRule,
  type PTerm,
  Root,
  SetKind,
  type VNode,
} from './ir.js'
import { evalCallPartial } from './partial-calls.js'
import { evalNotPartial } from './partial-not.js'
import { FrameNames, Plugger, valueToTerm } from './partial-plug.js'
import { unifyDataRef } from './partial-refs.js'
import { ResidualStack, UnknownSet } from './partial-stack.js'
import { UnknownAnalysis } from './partial-unknown.js'
import { SaveSupport } from './save.js'
import { SupportModules, type SupportPath } from './support.js'
import { unify } from './unify.js'

/** Settings of one partial evaluation. */
export interface PartialSettings {
  /** Unknown refs: root (`input`/`data`) followed by the ground path. */
  unknowns: Value[][]
  /** Data paths (without `data`) whose rules must not be inlined. */
  disableInlining: Value[][]
  /** Evaluate non-deterministic built-ins whose arguments are known. */
  nondeterministicBuiltins: boolean
  /**
   * OPA's shallow inlining: rules and functions that depend on unknowns are kept as support rules
   * instead of being inlined, and no copy propagation simplifies the result.
   */
  shallowInlining?: boolean
  /** Package path of the support rules (OPA's `rego.PartialNamespace`); default `['partial']`. */
  namespace?: readonly string[]
  /**
   * Support rules made from the policy's own rules keep their original package paths, so they can
   * stand in for those rules (OPA's `rego.SkipPartialNamespace`, used by `opa build -O`); rules
   * partial evaluation invents (negations) still go under `namespace`.
   */
  skipNamespace?: boolean
}

/** Partial evaluation hooks and state for one evaluator. */
export class PartialEval {
  readonly set: UnknownSet
  readonly stack: ResidualStack
  readonly analysis: UnknownAnalysis
  readonly names: FrameNames
  readonly plugger: Plugger
  readonly support = new SupportModules()
  /** The expression being evaluated (saved entries take its location). */
  current: PExpr | undefined
  /**
   * Expressions that produced no result (in the order they first failed): the compile endpoint's
   * "did you mean" hints come from those that read an `input` document that is neither given nor
   * unknown. Negations are left out: a failing `not` means its operand held.
   */
  readonly failed = new Set<Expr>()
  /** Shallow inlining (see PartialSettings). */
  readonly shallow: boolean
  /** Package path of synthetic support rules (negations), e.g. `['partial']`. */
  readonly namespace: readonly string[]
  /** Package prefix of support rules made from the policy's rules: `namespace`, or none. */
  readonly #ruleNamespace: readonly string[]
  readonly #builtins: ReadonlyMap<string, Builtin>
  readonly #root: VNode
  #refVars = 0

  constructor(e: Evaluator, top: Frame, settings: PartialSettings) {
    this.set = new UnknownSet(settings.unknowns)
    this.stack = new ResidualStack(() => this.location())
    this.analysis = new UnknownAnalysis(
      this.set,
      e.policy.root,
      settings.disableInlining,
      settings.nondeterministicBuiltins,
    )
    this.shallow = settings.shallowInlining === true
    this.namespace = settings.namespace ?? ['partial']
    this.#ruleNamespace = settings.skipNamespace === true ? [] : this.namespace
    this.names = new FrameNames(top)
    this.plugger = new Plugger(this.names)
    this.#builtins = e.policy.builtins
    this.#root = e.policy.root
    e.saveSet = this.set
    e.saveStack = this.stack
    e.saveSupport = new SaveSupport()
    e.pe = this
  }

  /** Arity of a call operator (built-in or user function), -1 when unknown. */
  readonly arity = (operator: Term): number => {
    const parts = operator.type === 'ref' ? operator.value : [operator]
    // Most operators are one-word built-ins (`eq`, `neq`, `gt`): no name to join. Copy propagation
    // asks for every expression of every residual.
    const head = parts[0]
    if (parts.length === 1 && head?.type === 'var' && head.value !== 'data') {
      return this.#builtins.get(head.value)?.arity ?? -1
    }
    const names: string[] = []
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i] as Term
      if (i === 0 && p.type === 'var') names.push(p.value)
      else if (i > 0 && p.type === 'string') names.push(p.value)
      else return -1
    }
    if (names[0] === 'data') {
      let node: VNode | undefined = this.#root
      for (const n of names.slice(1)) node = node?.child(n)
      const set = node?.ruleSet
      return set?.kind === SetKind.Function ? set.arity : -1
    }
    const b = this.#builtins.get(names.join('.'))
    return b ? b.arity : -1
  }

  /** A new frame for a rule body, numbered in creation order. */
  frame(r: PRule): Frame {
    return this.names.register(new Frame(r.slots, r.names))
  }

  /** Copy propagation of a residual body; under shallow inlining the body stays as saved, as in OPA. */
  propagate(body: Body, options: CopyPropagationOptions): Body {
    if (!this.shallow) return copyPropagate(body, options)
    if (options.ensureNonEmpty && body.length === 0) {
      return [{ type: 'expr', index: 0, terms: { type: 'boolean', value: true } }]
    }
    return body
  }

  location(): Location | undefined {
    return this.current?.src.location
  }

  // ---------------------------------------------------------------------------------------------
  // Hooks called by the evaluator.

  /**
   * Evaluates `expr` with it as the current expression (restored while the continuation runs).
   * The evaluator is passed in rather than a closure calling it: this runs for every expression
   * partial evaluation visits, and each closure is garbage (docs/performance.md).
   */
  track(e: Evaluator, expr: PExpr, frame: Frame, iter: Iter): boolean {
    const outer = this.current
    this.current = expr
    let succeeded = false
    try {
      return e.evalExprInner(expr, frame, () => {
        succeeded = true
        this.current = outer
        try {
          return iter()
        } finally {
          this.current = expr
        }
      })
    } finally {
      this.current = outer
      if (!succeeded && !expr.negated) this.failed.add(expr.src)
    }
  }

  /** OPA's `unknown`: evaluating `t` would save something. */
  unknown(t: PTerm, frame: Frame): boolean {
    return this.analysis.term(t, frame)
  }

  /** A term used as a statement: unified with a fresh var, true unless that var is `false`. */
  evalTermExpr(e: Evaluator, expr: PExpr, frame: Frame, iter: Iter): boolean {
    const t = expr.term as PTerm
    const isData = t.k === K.Ref && t.root === Root.Data
    if (!isData && !this.analysis.term(t, frame)) {
      return e.evalTermValues(t, frame, (v) => (v === false ? false : iter()))
    }
    const name = `__term_${this.names.id(frame)}_${expr.src.index}`
    const rf = this.plainFrame(name)
    const rv: PTerm = { k: K.Var, slot: 0, name, src: { type: 'var', value: name } }
    return unify(e, t, frame, rv, rf, () => {
      if (this.set.containsVar(rf, 0) || this.analysis.term(rv, rf)) return this.saveTerm(rv, rf, iter)
      const v = plug(rv, rf)
      return v === false ? false : iter()
    })
  }

  /** `not expr`; undefined when nothing about it is unknown. */
  evalNot(e: Evaluator, expr: PExpr, frame: Frame, iter: Iter): boolean | undefined {
    return evalNotPartial(this, e, expr, frame, iter)
  }

  /** A call; undefined when nothing about it is unknown. */
  evalCall(
    e: Evaluator,
    expr: PExpr,
    call: PCall,
    target: FunctionRef,
    frame: Frame,
    iter: Iter,
  ): boolean | undefined {
    return evalCallPartial(this, e, expr, call, target, frame, iter)
  }

  /** `ref = other` for a ref into `data`. */
  unifyRef(e: Evaluator, ref: PRef, fr: Frame, other: PTerm, fo: Frame, iter: Iter): boolean {
    return unifyDataRef(this, e, ref, fr, other, fo, iter)
  }

  /** True when unifying the unbound var `a` with `b` must be saved (either side is an unknown var). */
  unknownVars(a: PTerm & { k: K.Var }, fa: Frame, b: PTerm, fb: Frame): boolean {
    if (this.set.containsVar(fa, a.slot)) return true
    let t = b
    let f = fb
    while (t.k === K.Var) {
      const x = f.s[t.slot]
      if (x === undefined) return this.set.containsVar(f, t.slot)
      if (!(x instanceof TermBinding)) return false
      t = x.term
      f = x.frame
    }
    return false
  }

  // ---------------------------------------------------------------------------------------------
  // Saving.

  /** Saves `t` as a statement (its value must not be false) and continues. */
  saveTerm(t: PTerm, frame: Frame, iter: Iter): boolean {
    this.stack.push({ kind: 'term', term: t, frame, location: this.location() })
    try {
      return iter()
    } finally {
      this.stack.pop()
    }
  }

  /** Saves `left = other` (left built when plugging), marking the vars of `other` unknown. */
  saveAst(left: () => Term, other: PTerm, fo: Frame, iter: Iter): boolean {
    this.stack.push({ kind: 'unify-ast', left, b: other, fb: fo, location: this.location() })
    const pops = this.set.pushVars(other, fo)
    try {
      return iter()
    } finally {
      this.set.pop(pops)
      this.stack.pop()
    }
  }

  /** Saves `t.rest = other` for an unknown head term `t` (OPA's evalTerm.save). */
  saveRefRest(
    e: Evaluator,
    t: PTerm,
    ft: Frame,
    rest: PTerm[],
    fr: Frame,
    other: PTerm,
    fo: Frame,
    iter: Iter,
  ): boolean {
    const left = (): Term => {
      const head = this.plugger.term(t, ft)
      const parts = rest.map((p) => this.plugger.term(p, fr))
      return head.type === 'ref'
        ? { type: 'ref', value: [...head.value, ...parts] }
        : { type: 'ref', value: [head, ...parts] }
    }
    // A data ref on the other side is evaluated (inlined) first, through a fresh var: saved as
    // written it would leave a rule that reads unknowns in the residual (`input.a[1] = data.p.r[2]`).
    if (other.k === K.Ref && other.root === Root.Data) {
      const name = `__ref_${this.#refVars++}`
      const rf = this.plainFrame(name)
      const rv: PTerm = { k: K.Var, slot: 0, name, src: { type: 'var', value: name } }
      return this.unifyRef(e, other, fo, rv, rf, () => this.saveAst(left, rv, rf, iter))
    }
    return this.saveAst(left, other, fo, iter)
  }

  /** Saves a call of a support function; its output vars become unknown. */
  saveSupportCall(
    operator: Term,
    args: PTerm[],
    frame: Frame,
    output: PTerm | undefined,
    iter: Iter,
    expr: PExpr,
  ): boolean {
    const location = expr.src.location
    this.stack.push({ kind: 'call-ast', operator, args, frame, location })
    const pops = output ? this.set.pushVars(output, frame) : 0
    try {
      return iter()
    } finally {
      this.set.pop(pops)
      this.stack.pop()
    }
  }

  /** Saves finished expressions and continues. */
  saveExprs(exprs: Expr[], iter: Iter): boolean {
    for (const expr of exprs) this.stack.push({ kind: 'ast', expr })
    try {
      return iter()
    } finally {
      for (const _ of exprs) this.stack.pop()
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Support rules.

  /** Where the support rules for the data path `path` go (`data.partial.<pkg>` and the rule ref). */
  supportPath(path: readonly Value[], pkgLength: number): SupportPath {
    const pkg = [...this.#ruleNamespace, ...path.slice(0, pkgLength).map(String)]
    const rest = path.slice(pkgLength)
    const rule: Term[] = rest.map((p, i) => (i === 0 ? { type: 'var', value: String(p) } : valueToTerm(p)))
    return { pkg, rule }
  }

  /** The ref prefix a residual uses to call support rules made from the policy's rules. */
  supportRoot(): Term[] {
    return [
      { type: 'var', value: 'data' },
      ...this.#ruleNamespace.map((p): Term => ({ type: 'string', value: p })),
    ]
  }

  /** The ref prefix of synthetic support rules (`data.partial`). */
  syntheticRoot(): Term[] {
    return [
      { type: 'var', value: 'data' },
      ...this.namespace.map((p): Term => ({ type: 'string', value: p })),
    ]
  }

  /** True when support rules exist for `path`. */
  supportDefined(path: SupportPath): boolean {
    return this.support.count(path) > 0
  }

  /**
   * Partially evaluates rule `r` into a support rule at `path` (function parameters are unknown
   * while its body is evaluated); true when its body had at least one solution.
   */
  supportRule(e: Evaluator, r: PRule, path: SupportPath, kind: SetKind): boolean {
    const f = this.frame(r)
    let pops = 0
    for (const a of r.args ?? []) pops += this.set.pushVars(a, f)
    let defined = false
    this.stack.pushQuery()
    try {
      e.evalBody(r.body, 0, f, () => {
        defined = true
        const current = this.stack.popGroup()
        try {
          const head: Omit<Head, 'type' | 'ref'> = {}
          const rule = [...path.rule]
          if (path.rule.length === 1 && path.rule[0]?.type === 'var') head.name = path.rule[0].value
          if (r.args) head.args = r.args.map((a) => this.plugger.term(a, f))
          if (kind === SetKind.Object) rule.push(...r.refTail.map((t) => this.plugger.term(t, f)))
          if (r.multiValue) head.key = this.plugger.term(r.key as PTerm, f)
          else head.value = this.plugger.term(r.value as PTerm, f)
          const live = new Set<string>()
          for (const t of [head.key, head.value, ...(head.args ?? []), ...rule.slice(1)])
            if (t) varsIn(t, live)
          const body = this.propagate(this.plugger.query(current), {
            live,
            arity: this.arity,
            ensureNonEmpty: true,
          })
          this.support.insert({ pkg: path.pkg, rule }, head, body, r.isDefault)
        } finally {
          this.stack.pushQuery(current)
        }
        return false
      })
    } finally {
      this.stack.popGroup()
      this.set.pop(pops)
    }
    return defined
  }

  /** A one-slot frame whose var keeps its name in residuals (generated `__term` vars). */
  plainFrame(name: string): Frame {
    const f = new Frame(1, [name])
    this.names.keep(f)
    return f
  }
}

function varsIn(t: Term, out: Set<string>): void {
  switch (t.type) {
    case 'var':
      out.add(t.value)
      return
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      for (const x of t.value) varsIn(x, out)
      return
    case 'object':
      for (const [k, v] of t.value) {
        varsIn(k, out)
        varsIn(v, out)
      }
      return
    default:
      return
  }
}
