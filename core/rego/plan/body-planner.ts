/**
 * Plans rule bodies, terms, references and unification into IR statements, in
 * continuation-passing style as OPA's planner does: each step emits its statements and calls
 * `iter` with the variables bound so far, so whatever follows an iteration (a `ScanStmt`) is
 * planned inside the loop's block, and whatever follows a statement that may be undefined is
 * skipped with the rest of its block when it is. Anything outside the subset (docs/plan.md)
 * throws a {@link PlanError} naming the construct and its position.
 */
import type { Builtin } from '../builtins/define.js'
import type { RuleTreeNode } from '../compiler/rule-tree.js'
import { refName } from '../compiler/terms.js'
import type { Body, Every, Expr, Location, Term, With } from '../syntax/ast.js'
import { typeToJSON } from '../types/json.js'
import { bool, type Emitter, local } from './emitter.js'
import { PlanError } from './errors.js'
import { DATA_LOCAL, INPUT_LOCAL, type Local, type Operand } from './ir.js'
import { hasPattern, Unifier } from './unify.js'
import { bind, type Iter, type TermIter, type Vars } from './vars.js'

/** What the body planner asks of the rule planner: the IR function of a rule set. */
export interface RuleFunctions {
  /** The function planning the rules at `node` (queued for planning), and its argument count. */
  functionFor(node: RuleTreeNode, location: Location | undefined): { name: string; arity: number }
  /** The rule tree root. */
  readonly root: RuleTreeNode
}

/**
 * Built-ins the plan target leaves out: printing and tracing (an IR runtime need not offer them),
 * and the metadata built-ins, whose value depends on the rule the call sits in, which a plan
 * does not carry.
 */
const REFUSED_BUILTINS = new Set([
  'print',
  'internal.print',
  'trace',
  'internal.test_case',
  'rego.metadata.chain',
  'rego.metadata.rule',
])

function isConstantKey(t: Term): boolean {
  return t.type === 'string' || t.type === 'number' || t.type === 'boolean' || t.type === 'null'
}

/** True when some rule sits at `node` or below it. */
export function hasRulesBelow(node: RuleTreeNode): boolean {
  let found = false
  node.depthFirst((n) => {
    if (n.rules.length > 0) found = true
    return found
  })
  return found
}

/** Plans bodies and terms into the emitter's current block. */
export class BodyPlanner {
  readonly #e: Emitter
  readonly #rules: RuleFunctions
  readonly #builtins: ReadonlyMap<string, Builtin>
  readonly #unifier: Unifier

  constructor(emitter: Emitter, rules: RuleFunctions, builtins: ReadonlyMap<string, Builtin>) {
    this.#e = emitter
    this.#rules = rules
    this.#builtins = builtins
    this.#unifier = new Unifier(emitter, this)
  }

  /** Matches `pattern` against the value in `op` (see unify.ts). */
  planUnifyLocal(pattern: Term, op: Operand, vars: Vars, iter: Iter): void {
    this.#unifier.planUnifyLocal(pattern, op, vars, iter)
  }

  /** Plans `body` (a conjunction), then `iter` once per solution. */
  planQuery(body: Body, vars: Vars, iter: Iter): void {
    this.#planExprs(body, 0, vars, iter)
  }

  /**
   * Plans `body[i..]`. An expression that continues in the block it was planned in (no scan
   * opened) hands its bindings back to this loop instead of recursing, so the stack grows with
   * the nesting of iterations, not with the length of a body.
   */
  #planExprs(body: Body, start: number, vars: Vars, iter: Iter): void {
    let current = vars
    for (let i = start; i < body.length; i++) {
      const block = this.#e.currentBlock
      let deferred: Vars | undefined
      let continued = false
      this.#planExpr(body[i] as Expr, current, (next) => {
        if (!continued && this.#e.currentBlock === block) deferred = next
        else this.#planExprs(body, i + 1, next, iter)
        continued = true
      })
      if (deferred === undefined) return
      current = deferred
    }
    iter(current)
  }

  #planExpr(expr: Expr, vars: Vars, iter: Iter): void {
    this.#e.location = expr.location ?? this.#e.location
    if (expr.with && expr.with.length > 0) {
      this.#planWith(expr, expr.with, vars, iter)
      return
    }
    this.#planUnmodified(expr, vars, iter)
  }

  #planUnmodified(expr: Expr, vars: Vars, iter: Iter): void {
    if (expr.negated) {
      this.#negate((done) => this.#planPositive(expr, vars, done), expr.location)
      iter(vars)
      return
    }
    this.#planPositive(expr, vars, iter)
  }

  /** The locals holding `input` and `data` here: 0 and 1, or the copies a `with` made. */
  #roots(vars: Vars): [Operand, Operand] {
    return [local(vars.get('input') ?? INPUT_LOCAL), local(vars.get('data') ?? DATA_LOCAL)]
  }

  /**
   * `expr with input.x as v` (and base-data targets): a `WithStmt` upserts the value into a copy
   * of the document, which stands for `input` (or `data`) while the expression is planned, calls
   * included; the rest of the body sees the original again.
   */
  #planWith(expr: Expr, withs: readonly With[], vars: Vars, iter: Iter): void {
    const targets = withs.map((w) => this.#withTarget(w))
    this.planTerms(
      withs.map((w) => w.value),
      vars,
      (values, next) => {
        let inner = next
        targets.forEach(({ root, path }, i) => {
          const source = inner.get(root) ?? (root === 'input' ? INPUT_LOCAL : DATA_LOCAL)
          const copy = this.#e.newLocal()
          const block = this.#e.nested(() =>
            this.#e.emit('AssignVarStmt', { source: local(source), target: copy }),
          )
          this.#e.location = withs[i]?.location ?? expr.location ?? this.#e.location
          this.#e.emit('WithStmt', {
            local: source,
            path: path.map((p) => this.#e.stringIndex(p)),
            value: values[i] as Operand,
            block,
          })
          inner = bind(inner, root, copy)
        })
        this.#planUnmodified(expr, inner, (after) => {
          const restored = new Map(after)
          for (const root of ['input', 'data'] as const) {
            const outer = next.get(root)
            if (outer === undefined) restored.delete(root)
            else restored.set(root, outer)
          }
          iter(restored)
        })
      },
    )
  }

  /** What a `with` replaces: `input` or base `data` below a path of strings; anything else is refused. */
  #withTarget(w: With): { root: 'input' | 'data'; path: string[] } {
    const parts = w.target.type === 'ref' ? w.target.value : [w.target]
    const [head, ...rest] = parts
    const root =
      head?.type === 'var' && (head.value === 'input' || head.value === 'data') ? head.value : undefined
    if (!root || rest.some((p) => p.type !== 'string'))
      throw new PlanError('`with` replacing a function or a non-constant path', w.location)
    const path = rest.map((p) => String(p.value))
    if (root === 'data') {
      const { node, tail } = this.#rules.root.find(rest)
      let rulesOnPath = false
      for (let n: RuleTreeNode | undefined = this.#rules.root, i = 0; n && i <= rest.length; i++) {
        if (n.rules.length > 0) rulesOnPath = true
        const part = rest[i]
        n = part ? n.child(part) : undefined
      }
      if (rulesOnPath || (tail.length === 0 && hasRulesBelow(node)))
        throw new PlanError('`with` replacing rules', w.location)
    }
    return { root, path }
  }

  #planPositive(expr: Expr, vars: Vars, iter: Iter): void {
    const terms = expr.terms
    if (Array.isArray(terms)) {
      this.#planCall(terms, expr.location, vars, iter)
      return
    }
    switch (terms.type) {
      case 'somedecl':
        if (terms.symbols.every((s) => s.type === 'var')) {
          iter(vars)
          return
        }
        throw new PlanError('`some ... in` that the compiler did not rewrite', expr.location)
      case 'every':
        this.#planEvery(terms, vars, iter)
        return
      case 'not':
        this.#negate((done) => this.planQuery(terms.body, vars, done), expr.location)
        iter(vars)
        return
      case 'and':
      case 'or':
        throw new PlanError(`\`${terms.type}\` expression`, expr.location)
      default:
        if (terms.type === 'boolean' && terms.value) {
          iter(vars)
          return
        }
        this.planTerm(terms, vars, (op, next) => {
          this.#e.emit('NotEqualStmt', { a: op, b: bool(false) })
          iter(next)
        })
        return
    }
  }

  /**
   * Negation: defined when `fill` never reaches `done`. A `NotStmt` when the negated part does
   * not iterate; otherwise a flag set at `done` inside a `BlockStmt` and checked undefined after
   * it, so the result does not depend on whether an IR runtime treats a `ScanStmt` whose blocks
   * all failed as defined (the IR docs leave that open).
   */
  #negate(fill: (done: () => void) => void, location: Location | undefined): void {
    const block = this.#e.nested(() => fill(() => {}))
    this.#e.location = location ?? this.#e.location
    if (!block.stmts.some((s) => s.type === 'ScanStmt')) {
      this.#e.emit('NotStmt', { block })
      return
    }
    const found = this.#e.newLocal()
    this.#e.emit('ResetLocalStmt', { target: found })
    const flagged = this.#e.nested(() =>
      fill(() => this.#e.emit('AssignVarStmt', { source: bool(true), target: found })),
    )
    this.#e.location = location ?? this.#e.location
    this.#e.emit('BlockStmt', { blocks: [flagged] })
    this.#e.emit('IsUndefinedStmt', { source: found })
  }

  /** Undefined unless `source` is an array, object or set (`every` over anything else is undefined). */
  #requireCollection(source: Local): void {
    const ok = this.#e.newLocal()
    this.#e.emit('ResetLocalStmt', { target: ok })
    const checks = (['IsArrayStmt', 'IsObjectStmt', 'IsSetStmt'] as const).map((type) =>
      this.#e.nested(() => {
        this.#e.emit(type, { source: local(source) })
        this.#e.emit('AssignVarStmt', { source: bool(true), target: ok })
      }),
    )
    this.#e.emit('BlockStmt', { blocks: checks })
    this.#e.emit('IsDefinedStmt', { source: ok })
  }

  /** `every k, v in domain { body }`: the domain is defined and no element fails the body. */
  #planEvery(every: Every, vars: Vars, iter: Iter): void {
    if ((every.key && every.key.type !== 'var') || every.value.type !== 'var')
      throw new PlanError('`every` with a pattern as key or value', every.location)
    this.planTerm(every.domain, vars, (domain, next) => {
      const source = this.#e.toLocal(domain)
      this.#requireCollection(source)
      let inner = next
      const key = this.#e.newLocal()
      const value = this.#e.newLocal()
      inner = bind(inner, (every.value as { value: string }).value, value)
      if (every.key) inner = bind(inner, (every.key as { value: string }).value, key)
      this.#negate((done) => {
        const block = this.#e.nested(() => {
          this.#negate((bodyDone) => this.planQuery(every.body, inner, bodyDone), every.location)
          done()
        })
        this.#e.emit('ScanStmt', { source, key, value, block })
      }, every.location)
      iter(next)
    })
  }

  #planCall(terms: Term[], location: Location | undefined, vars: Vars, iter: Iter): void {
    const [operator, ...args] = terms as [Term, ...Term[]]
    const name = refName(operator)
    if (name === 'eq' || name === 'assign') {
      this.#unifier.planUnify(args[0] as Term, args[1] as Term, vars, iter)
      return
    }
    if ((name === 'equal' || name === 'neq') && args.length === 2) {
      this.planTerms(args.slice(0, 2), vars, ([a, b], next) => {
        this.#e.emit(name === 'equal' ? 'EqualStmt' : 'NotEqualStmt', { a: a as Operand, b: b as Operand })
        iter(next)
      })
      return
    }
    let func: string
    let arity: number
    let leading: Operand[] = []
    if (operator.type === 'ref' && operator.value[0]?.type === 'var' && operator.value[0].value === 'data') {
      const node = this.#rules.root.lookup(operator.value.slice(1))
      if (!node || node.rules.length === 0)
        throw new PlanError(`call to ${name ?? 'a dynamic function'}`, location)
      ;({ name: func, arity } = this.#rules.functionFor(node, location))
      leading = this.#roots(vars)
    } else {
      const builtin = name === undefined ? undefined : this.#builtins.get(name)
      if (!builtin || name === undefined)
        throw new PlanError(`call to ${name ?? 'a dynamic function'}`, location)
      if (REFUSED_BUILTINS.has(name)) throw new PlanError(`${name}()`, location)
      if (builtin.kind === 'relation') throw new PlanError(`the relation ${name}()`, location)
      this.#e.builtins.set(name, { name, decl: typeToJSON(builtin.decl, { minimal: true }) })
      func = name
      arity = builtin.arity
    }
    this.planTerms(args.slice(0, arity), vars, (ops, next) => {
      const result = this.#e.newLocal()
      this.#e.location = location ?? this.#e.location
      this.#e.emit('CallStmt', { func, args: [...leading, ...ops], result })
      const output = args[arity]
      if (output) {
        this.#unifier.planUnifyLocal(output, local(result), next, iter)
        return
      }
      this.#e.emit('NotEqualStmt', { a: local(result), b: bool(false) })
      iter(next)
    })
  }

  /** Plans terms left to right, then `iter` with their operands. */
  planTerms(terms: readonly Term[], vars: Vars, iter: (ops: Operand[], vars: Vars) => void): void {
    const ops: Operand[] = []
    const step = (i: number, current: Vars): void => {
      const t = terms[i]
      if (!t) {
        iter([...ops], current)
        return
      }
      this.planTerm(t, current, (op, next) => {
        ops[i] = op
        step(i + 1, next)
      })
    }
    step(0, vars)
  }

  /** Plans a term's value into an operand (iterating when it contains refs with unbound keys). */
  planTerm(t: Term, vars: Vars, iter: TermIter): void {
    switch (t.type) {
      case 'null': {
        const target = this.#e.newLocal()
        this.#e.emit('MakeNullStmt', { target })
        iter(local(target), vars)
        return
      }
      case 'boolean':
        iter(bool(t.value), vars)
        return
      case 'number':
        iter(this.number(t.value), vars)
        return
      case 'string':
        iter(this.#e.string(t.value), vars)
        return
      case 'var': {
        if (t.value === 'data') {
          this.#planDataRef([t], vars, iter)
          return
        }
        const bound = vars.get(t.value)
        if (bound !== undefined) {
          iter(local(bound), vars)
          return
        }
        if (t.value === 'input') {
          iter(local(INPUT_LOCAL), vars)
          return
        }
        throw new PlanError(`the unbound variable ${t.value}`, t.location)
      }
      case 'ref':
        this.#planRef(t.value, vars, iter)
        return
      case 'array':
      case 'set':
        this.planTerms(t.value, vars, (ops, next) => {
          const target = this.#e.newLocal()
          if (t.type === 'array') {
            this.#e.emit('MakeArrayStmt', { capacity: ops.length, target })
            for (const value of ops) this.#e.emit('ArrayAppendStmt', { array: target, value })
          } else {
            this.#e.emit('MakeSetStmt', { target })
            for (const value of ops) this.#e.emit('SetAddStmt', { set: target, value })
          }
          iter(local(target), next)
        })
        return
      case 'object':
        this.planTerms(t.value.flat(), vars, (ops, next) => {
          const target = this.#e.newLocal()
          this.#e.emit('MakeObjectStmt', { target })
          for (let i = 0; i < ops.length; i += 2)
            this.#e.emit('ObjectInsertStmt', {
              key: ops[i] as Operand,
              value: ops[i + 1] as Operand,
              object: target,
            })
          iter(local(target), next)
        })
        return
      case 'arraycomprehension':
      case 'setcomprehension':
      case 'objectcomprehension':
        this.#planComprehension(t, vars, iter)
        return
      default:
        throw new PlanError(`a ${t.type} term`, t.location)
    }
  }

  /** A number constant: an int64-safe integer inline, anything else by its lexeme. */
  number(lexeme: string): Operand {
    const target = this.#e.newLocal()
    if (/^-?\d+$/.test(lexeme) && Number.isSafeInteger(Number(lexeme)))
      this.#e.emit('MakeNumberIntStmt', { value: Number(lexeme), target })
    else this.#e.emit('MakeNumberRefStmt', { Index: this.#e.stringIndex(lexeme), target })
    return local(target)
  }

  #planComprehension(
    t: Extract<Term, { type: 'arraycomprehension' | 'setcomprehension' | 'objectcomprehension' }>,
    vars: Vars,
    iter: TermIter,
  ): void {
    const target = this.#e.newLocal()
    if (t.type === 'arraycomprehension') this.#e.emit('MakeArrayStmt', { capacity: 0, target })
    else if (t.type === 'setcomprehension') this.#e.emit('MakeSetStmt', { target })
    else this.#e.emit('MakeObjectStmt', { target })
    const block = this.#e.nested(() =>
      this.planQuery(t.value.body, vars, (inner) => {
        if (t.type === 'objectcomprehension') {
          this.planTerms([t.value.key, t.value.value], inner, ([key, value]) =>
            this.#e.emit('ObjectInsertOnceStmt', {
              key: key as Operand,
              value: value as Operand,
              object: target,
            }),
          )
        } else
          this.planTerm(t.value.term, inner, (value) => {
            if (t.type === 'arraycomprehension') this.#e.emit('ArrayAppendStmt', { array: target, value })
            else this.#e.emit('SetAddStmt', { set: target, value })
          })
      }),
    )
    this.#e.location = t.location ?? this.#e.location
    this.#e.emit('BlockStmt', { blocks: [block] })
    iter(local(target), vars)
  }

  #planRef(parts: Term[], vars: Vars, iter: TermIter): void {
    const [head, ...rest] = parts as [Term, ...Term[]]
    if (head.type === 'var') {
      // `data` first: its rules are reached through the rule tree even when a `with` replaced base data.
      if (head.value === 'data') {
        this.#planDataRef(parts, vars, iter)
        return
      }
      const bound = vars.get(head.value)
      if (bound !== undefined) {
        this.#planRefRest(local(bound), rest, vars, iter)
        return
      }
      if (head.value === 'input') {
        this.#planRefRest(local(INPUT_LOCAL), rest, vars, iter)
        return
      }
      throw new PlanError(`the unbound variable ${head.value}`, head.location)
    }
    this.planTerm(head, vars, (op, next) => this.#planRefRest(op, rest, next, iter))
  }

  /** Looks `parts` up in `source`: a `DotStmt` per bound key, a `ScanStmt` per unbound variable. */
  #planRefRest(source: Operand, parts: readonly Term[], vars: Vars, iter: TermIter, baseData = false): void {
    const [key, ...more] = parts
    if (!key) {
      iter(source, vars)
      return
    }
    if (key.type === 'var' && !vars.has(key.value) && key.value !== 'input' && key.value !== 'data') {
      const src = this.#e.toLocal(source)
      const k = this.#e.newLocal()
      const value = this.#e.newLocal()
      const block = this.#e.nested(() =>
        this.#planRefRest(local(value), more, bind(vars, key.value, k), iter, baseData),
      )
      this.#e.emit('ScanStmt', { source: src, key: k, value, block })
      return
    }
    if (hasPattern(key, vars)) {
      // A pattern key (`s[[x, 2]]`): scan, and match each key against the pattern.
      const src = this.#e.toLocal(source)
      const k = this.#e.newLocal()
      const value = this.#e.newLocal()
      const block = this.#e.nested(() =>
        this.#unifier.planUnifyLocal(key, local(k), vars, (bound) =>
          this.#planRefRest(local(value), more, bound, iter, baseData),
        ),
      )
      this.#e.emit('ScanStmt', { source: src, key: k, value, block })
      return
    }
    if (baseData && key.type === 'number' && /^-?\d+$/.test(key.value)) {
      const target = this.#baseDataIndex(source, key.value)
      this.#planRefRest(local(target), more, vars, iter, baseData)
      return
    }
    this.planTerm(key, vars, (keyOp, next) => {
      const target = this.#e.newLocal()
      this.#e.emit('DotStmt', { source, key: keyOp, target })
      this.#planRefRest(local(target), more, next, iter, baseData)
    })
  }

  /**
   * `data.x[2]` in base data: the object key `"2"` (base documents come from JSON, and the engine,
   * as OPA's storage, reads integer refs as such keys) or the array index 2.
   */
  #baseDataIndex(source: Operand, digits: string): Local {
    const target = this.#e.newLocal()
    this.#e.emit('ResetLocalStmt', { target })
    const asKey = this.#e.nested(() => {
      this.#e.emit('IsObjectStmt', { source })
      this.#e.emit('DotStmt', { source, key: this.#e.string(digits), target })
    })
    const asIndex = this.#e.nested(() => {
      this.#e.emit('IsUndefinedStmt', { source: target })
      this.#e.emit('DotStmt', { source, key: this.number(digits), target })
    })
    this.#e.emit('BlockStmt', { blocks: [asKey, asIndex] })
    this.#e.emit('IsDefinedStmt', { source: target })
    return target
  }

  /**
   * `data...`: a call of the function of the first rule set on the path, then lookups in its
   * value; base documents are looked up in local 1; a path above rules builds the virtual document.
   */
  #planDataRef(parts: Term[], vars: Vars, iter: TermIter): void {
    let node = this.#rules.root
    for (let i = 1; ; i++) {
      if (node.rules.length > 0) {
        const { name, arity } = this.#rules.functionFor(node, parts[0]?.location)
        if (arity > 0) throw new PlanError('a reference to a function without calling it', parts[0]?.location)
        const result = this.#e.newLocal()
        this.#e.emit('CallStmt', { func: name, args: this.#roots(vars), result })
        this.#planRefRest(local(result), parts.slice(i), vars, iter)
        return
      }
      const part = parts[i]
      if (!part) break
      const child = isConstantKey(part) ? node.child(part) : undefined
      if (!child) {
        if (!isConstantKey(part) && hasRulesBelow(node))
          throw new PlanError('iteration over the rules of a package (a variable key in data)', part.location)
        this.#planRefRest(this.#roots(vars)[1], parts.slice(1), vars, iter, true)
        return
      }
      node = child
    }
    if (!hasRulesBelow(node)) {
      this.#planRefRest(this.#roots(vars)[1], parts.slice(1), vars, iter, true)
      return
    }
    iter(local(this.virtualDocument(node, parts, vars)), vars)
  }

  /**
   * The document at a package (or any path above rules): its base data merged with an object of
   * its rules' values, built recursively (functions are not part of documents).
   */
  virtualDocument(node: RuleTreeNode, parts: readonly Term[], vars: Vars): Local {
    const rulesObject = this.#rulesObject(node, vars)
    const base = this.#e.newLocal()
    const found = this.#e.nested(() =>
      this.#planRefRest(
        this.#roots(vars)[1],
        parts.slice(1),
        vars,
        (op) => this.#e.emit('AssignVarStmt', { source: op, target: base }),
        true,
      ),
    )
    const empty = this.#e.nested(() => {
      this.#e.emit('IsUndefinedStmt', { source: base })
      this.#e.emit('MakeObjectStmt', { target: base })
    })
    this.#e.emit('BlockStmt', { blocks: [found, empty] })
    const target = this.#e.newLocal()
    this.#e.emit('ObjectMergeStmt', { a: base, b: rulesObject, target })
    return target
  }

  #rulesObject(node: RuleTreeNode, vars: Vars): Local {
    const target = this.#e.newLocal()
    this.#e.emit('MakeObjectStmt', { target })
    for (const child of node.sortedChildren()) {
      // Packages without rules are empty objects in the document, as in the engine.
      if (child.hidden) continue
      if (!isConstantKey(child.key)) continue
      if (child.rules.length > 0) {
        const { name, arity } = this.#rules.functionFor(child, child.rules[0]?.rule.location)
        if (arity > 0) continue
        const block = this.#e.nested(() => {
          const value = this.#e.newLocal()
          this.#e.emit('CallStmt', {
            func: name,
            args: this.#roots(vars),
            result: value,
          })
          this.planTerm(child.key, new Map(), (key) =>
            this.#e.emit('ObjectInsertStmt', { key, value: local(value), object: target }),
          )
        })
        this.#e.emit('BlockStmt', { blocks: [block] })
      } else {
        const value = this.#rulesObject(child, vars)
        this.planTerm(child.key, new Map(), (key) =>
          this.#e.emit('ObjectInsertStmt', { key, value: local(value), object: target }),
        )
      }
    }
    return target
  }
}
