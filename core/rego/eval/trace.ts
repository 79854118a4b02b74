/**
 * Tracing (`--explain`): the evaluator reports entering, succeeding, failing and redoing the query,
 * each rule body and each expression to a tracer, which records OPA-style events for `regent eval --explain` and
 * `regent test -v`.
 */
import { bodyString, exprString, refString } from '../compiler/text.js'
import type { Body, Expr, Location, Term } from '../syntax/ast.js'
import { locationText } from '../syntax/source.js'
import type { Frame } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import type { PExpr, PRule } from './ir.js'
import { cachedRuleValues } from './rule-values.js'
import { type FailedExpr, failedExpr } from './trace-failure.js'
import { exprVarValues } from './trace-vars.js'

/** OPA's trace operations. */
export type TraceOp = 'Enter' | 'Exit' | 'Eval' | 'Fail' | 'Redo' | 'Note' | 'Index'

/** One trace event. */
export interface TraceEvent {
  op: TraceOp
  text: string
  location: Location | undefined
  /** How many `| ` the pretty trace prints before the op (OPA's indentation). */
  depth: number
  /** With `--var-values`: the bound variables of the event's expression, `{x: 1}`. */
  vars?: string
  /** With `--var-values`, on a Fail event: the failed expression's variables, for its diagram. */
  failure?: FailedExpr
}

/** Receives evaluation events. */
export interface Tracer {
  /** Wraps the evaluation of one expression (`run` evaluates it with the given continuation). */
  expr(e: Evaluator, expr: PExpr, frame: Frame, iter: Iter, run: (iter: Iter) => boolean): boolean
  /** A `trace(note)` call or a custom note. */
  note(message: string, location?: Location): void
  /** A rule body is about to be evaluated (OPA's Enter event for rules). */
  ruleEnter?(rule: PRule): void
  /** A rule body succeeded (OPA's Exit event for rules); `early`: its first success decides the rule. */
  ruleExit?(rule: PRule, early?: boolean): void
  /** Evaluation goes back into a rule body for its next result (OPA's Redo event for rules). */
  ruleRedo?(rule: PRule): void
  /** The query is about to be evaluated, it succeeded, or evaluation goes back into it. */
  query?(op: 'Enter' | 'Exit' | 'Redo', text: string, location: Location | undefined): void
  /** Rule indexing chose `matched` of the rules of `first`'s rule set (OPA's Index event). */
  index?(first: PRule, matched: number, earlyExit: boolean): void
}

// A traced query renders the same expressions and rules over and over (every iteration of a loop):
// their texts are computed once per expression and rule.
const exprTexts = new WeakMap<object, string>()
const ruleTexts = new WeakMap<object, string>()

/** The text of a traced expression, rendered once. */
function exprText(expr: PExpr): string {
  let text = exprTexts.get(expr.src)
  if (text === undefined) {
    text = exprString(expr.src)
    exprTexts.set(expr.src, text)
  }
  return text
}

/** A copy of `node` with the variables `names` maps renamed (locations kept as they are). */
function renamedVars<T>(node: T, names: ReadonlyMap<string, string>): T {
  if (Array.isArray(node)) return node.map((n) => renamedVars(n, names)) as T
  if (node === null || typeof node !== 'object') return node
  const obj = node as Record<string, unknown>
  if (obj.type === 'var' && typeof obj.value === 'string') {
    const name = names.get(obj.value)
    return (name === undefined ? node : { ...obj, value: name }) as T
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(obj)) out[k] = k === 'location' ? v : renamedVars(v, names)
  return out as T
}

/** `data.pkg.rule` for a rule or function (its ground ref, as OPA names rules in traces). */
export function rulePath(rule: PRule): string {
  let text = ruleTexts.get(rule)
  if (text === undefined) {
    text = renderRulePath(rule)
    ruleTexts.set(rule, text)
  }
  return text
}

function renderRulePath(rule: PRule): string {
  const { rule: r, module } = rule.src
  const ground: Term[] = []
  for (const [i, t] of r.head.ref.entries()) {
    if (i > 0 && t.type !== 'string') break
    ground.push(i === 0 && t.type === 'var' ? { type: 'string', value: t.value } : t)
  }
  return refString([...module.package.path, ...ground])
}

/** A tracer that keeps every event in memory (the `--explain full` trace). */
export class BufferTracer implements Tracer {
  readonly events: TraceEvent[] = []
  // The query's own events stand at depth 0, its expressions at 1; a rule body evaluated from an
  // expression is a query one level down (its Enter at the expression's depth + 1 - 1).
  #depth = 1
  readonly #varValues: boolean
  readonly #names: ReadonlyMap<string, string> | undefined
  readonly #renamedTexts = new WeakMap<object, string>()

  /**
   * `varValues`: record the variables of each expression event (`--var-values`). `names`: the
   * compiler's rewritten local variables (`__local0__` → `x`), which OPA prints by their names.
   */
  constructor(options: { varValues?: boolean; names?: ReadonlyMap<string, string> } = {}) {
    this.#varValues = options.varValues === true
    this.#names = options.names !== undefined && options.names.size > 0 ? options.names : undefined
  }

  // The expression's text with the user's names for rewritten variables, as OPA prints an event.
  #text(expr: PExpr): string {
    const names = this.#names
    if (names === undefined) return exprText(expr)
    let text = this.#renamedTexts.get(expr.src)
    if (text === undefined) {
      text = exprString(renamedVars(expr.src, names))
      this.#renamedTexts.set(expr.src, text)
    }
    return text
  }

  // The expression being evaluated: an Index event stands at its line.
  #where: Location | undefined
  // With --var-values: the generated expressions each frame evaluated since its last written one
  // (those of the next written expression, split from it by the compiler).
  readonly #generated = new WeakMap<Frame, Expr[]>()
  // With --var-values: the bodies of the rules evaluated, where a generated expression's base is.
  readonly #bodies = new Set<Body>()

  expr(e: Evaluator, expr: PExpr, frame: Frame, iter: Iter, run: (iter: Iter) => boolean): boolean {
    const text = this.#text(expr)
    const location = expr.src.location
    const outer = this.#where
    this.#where = location
    // Only the continuation below is allocated per evaluation: a traced loop reports millions of
    // events, and closures and spread objects per event made tracing most of a `test -v` run.
    const varValues = this.#varValues
    const coExprs = varValues ? this.#coExprs(expr.src, frame) : undefined
    this.#push(
      'Eval',
      text,
      location,
      this.#depth,
      varValues ? exprVarValues(expr.src, frame, this.#names) : undefined,
    )
    let defined = false
    this.#depth++
    const stop = run(() => {
      defined = true
      this.#depth--
      // Read before `iter` goes on: the bindings this expression made are still in place.
      const redoVars = varValues ? exprVarValues(expr.src, frame, this.#names) : undefined
      const r = iter()
      this.#depth++
      this.#where = location
      this.#push('Redo', text, location, this.#depth - 1, redoVars)
      return r
    })
    this.#depth--
    this.#where = outer
    if (!defined) {
      this.#push(
        'Fail',
        text,
        location,
        this.#depth,
        varValues ? exprVarValues(expr.src, frame, this.#names) : undefined,
      )
      const ts = expr.src.terms
      if (coExprs !== undefined && (Array.isArray(ts) || ts.type !== 'every')) {
        const base = expr.src.generated ? this.#baseOf(expr.src) : undefined
        const rules = cachedRuleValues(e, expr.with !== undefined)
        const failure = failedExpr(expr.src, coExprs, frame, locationText, base, rules)
        if (failure) (this.events[this.events.length - 1] as TraceEvent).failure = failure
      }
    }
    return stop
  }

  // The written expression a generated one was split from: the next written one of its body
  // whose text holds its text.
  #baseOf(expr: Expr): Expr | undefined {
    for (const body of this.#bodies) {
      const i = body.indexOf(expr)
      if (i < 0) continue
      return body.slice(i + 1).find((e) => !e.generated && within(expr.location, e.location))
    }
    return undefined
  }

  // The generated expressions evaluated in `frame` before `expr` whose text lies in `expr`'s.
  #coExprs(expr: Expr, frame: Frame): Expr[] {
    let list = this.#generated.get(frame)
    if (list === undefined) {
      list = []
      this.#generated.set(frame, list)
    }
    const earlier = list.filter((g) => within(g.location, expr.location))
    if (expr.generated) list.push(expr)
    else list.length = 0
    return earlier
  }

  #push(
    op: TraceOp,
    text: string,
    location: Location | undefined,
    depth: number,
    vars: string | undefined,
  ): void {
    const ev: TraceEvent = { op, text, location, depth }
    if (vars !== undefined) ev.vars = vars
    this.events.push(ev)
  }

  index(first: PRule, matched: number, earlyExit: boolean): void {
    const rules = matched === 1 ? '1 rule' : `${matched} rules`
    const text = `${rulePath(first)} (matched ${rules}${earlyExit ? ', early exit' : ''})`
    this.events.push({ op: 'Index', text, location: this.#where, depth: this.#depth - 1 })
  }

  // A note comes from a `trace(...)` call evaluated by an expression: it stands at that
  // expression's level, its message quoted as OPA prints it (Go's %q).
  note(message: string, location?: Location): void {
    this.events.push({ op: 'Note', text: JSON.stringify(message), location, depth: this.#depth - 1 })
  }

  // As OPA indents them: a query's (or rule body's) Enter and Redo one level above its
  // expressions, its Exit at their level.
  ruleEnter(rule: PRule): void {
    if (this.#varValues) this.#bodies.add(rule.src.rule.body)
    this.#ruleEvent('Enter', rule, this.#depth - 1)
  }

  // OPA marks the Exit of a rule that early exit stops at its first success: `Exit data.p early`.
  ruleExit(rule: PRule, early = false): void {
    this.#ruleEvent('Exit', rule, this.#depth, early ? ' early' : '')
  }

  ruleRedo(rule: PRule): void {
    this.#ruleEvent('Redo', rule, this.#depth - 1)
  }

  query(op: 'Enter' | 'Exit' | 'Redo', text: string, location: Location | undefined): void {
    this.events.push({ op, text, location, depth: op === 'Exit' ? 1 : 0 })
  }

  #ruleEvent(op: TraceOp, rule: PRule, depth: number, suffix = ''): void {
    this.events.push({ op, text: rulePath(rule) + suffix, location: rule.src.rule.location, depth })
  }
}

/**
 * Renders events as OPA's pretty trace: a table of location, event (`| Eval x = 1`) and, with
 * `--var-values`, the bound variables, each column as wide as its widest cell and 5 spaces apart.
 * The last column is not padded, so lines carry no trailing blanks.
 */
export function prettyTrace(events: readonly TraceEvent[], ops?: ReadonlySet<TraceOp>): string {
  const shown = ops ? events.filter((ev) => ops.has(ev.op)) : events
  // With --var-values every line has a variables column: `{}` where the event bound none.
  const withVars = shown.some((ev) => ev.vars !== undefined)
  const rows = shown.map((ev) => {
    const row = [
      ev.location ? `${ev.location.file || 'query'}:${ev.location.row}` : '',
      `${'| '.repeat(ev.depth)}${ev.op} ${ev.text}`,
    ]
    if (withVars) row.push(ev.vars ?? '{}')
    return row
  })
  // A loop, not Math.max(...): a traced loop gives millions of rows, past the arguments a call takes.
  const widths = (rows[0] ?? []).map(() => 0)
  for (const row of rows)
    for (let i = 0; i < row.length; i++) widths[i] = Math.max(widths[i] as number, (row[i] as string).length)
  return rows
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] as number) + 5))).join(''),
    )
    .join('\n')
}

export { bodyString }

/** Per-expression statistics (`--profile`). */
export interface ExprStats {
  location: Location
  totalTimeNs: number
  numEval: number
  numRedo: number
}

/** Counts evaluations and redos and measures time per expression location. */
export class ProfileTracer implements Tracer {
  readonly #stats = new Map<string, ExprStats>()
  #childNs = 0

  expr(_e: Evaluator, expr: PExpr, _frame: Frame, iter: Iter, run: (iter: Iter) => boolean): boolean {
    const loc = expr.src.location
    if (!loc) return run(iter)
    const key = `${loc.file}:${loc.row}:${loc.col}`
    let s = this.#stats.get(key)
    if (!s) {
      s = { location: loc, totalTimeNs: 0, numEval: 0, numRedo: 0 }
      this.#stats.set(key, s)
    }
    const stats = s
    stats.numEval++
    const outerChild = this.#childNs
    this.#childNs = 0
    let start = process.hrtime.bigint()
    const stop = run(() => {
      stats.numRedo++
      const now = process.hrtime.bigint()
      stats.totalTimeNs += Number(now - start) - this.#childNs
      const saved = this.#childNs
      const before = process.hrtime.bigint()
      const r = iter()
      start = process.hrtime.bigint()
      this.#childNs = saved + Number(start - before)
      return r
    })
    stats.totalTimeNs += Math.max(0, Number(process.hrtime.bigint() - start) - this.#childNs)
    this.#childNs = outerChild
    return stop
  }

  note(): void {}

  /** Stats sorted by the given keys (OPA's `--profile-sort`), most expensive first. */
  results(sort: readonly string[] = ['total_time_ns', 'num_eval', 'num_redo', 'file', 'line']): ExprStats[] {
    const key = (s: ExprStats, k: string): number | string => {
      switch (k) {
        case 'total_time_ns':
          return -s.totalTimeNs
        case 'num_eval':
          return -s.numEval
        case 'num_redo':
          return -s.numRedo
        case 'file':
          return s.location.file
        case 'line':
          return s.location.row
        default:
          return 0
      }
    }
    return [...this.#stats.values()].sort((a, b) => {
      for (const k of sort) {
        const x = key(a, k)
        const y = key(b, k)
        if (x < y) return -1
        if (x > y) return 1
      }
      return 0
    })
  }
}

/** Whether `inner` lies in `outer` (the same source, offsets inside). */
function within(inner: Location | undefined, outer: Location | undefined): boolean {
  if (!inner || !outer || inner.source !== outer.source || outer.end === undefined) return false
  return inner.offset >= outer.offset && inner.offset < outer.end
}
