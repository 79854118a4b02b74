/**
 * Which parts of a policy partial evaluation must save rather than evaluate (OPA's `saveRequired`):
 * a term is unknown when it reads an unknown ref or var, or refers to rules that (transitively) do;
 * rules whose inlining is disabled, expressions with `with`, and non-deterministic built-ins (unless
 * they may be evaluated) count as unknown too. Rule sets are analysed once per partial evaluation.
 */
import type { Builtin } from '../builtins/define.js'
import { equalValues, type Value } from '../values/index.js'
import { Frame, plug, TermBinding } from './bindings.js'
import { K, type PExpr, type PRule, type PTerm, Root, type RuleSet, type VNode } from './ir.js'
import type { UnknownSet } from './partial-stack.js'
import { termUnknown } from './save.js'

/** Refs (data paths) whose inlining is disabled; a ref overlapping one in either direction counts. */
export function overlapsAny(paths: readonly (readonly Value[])[], path: readonly Value[]): boolean {
  for (const p of paths) {
    const n = Math.min(p.length, path.length)
    let same = true
    for (let i = 0; i < n; i++) {
      if (!equalValues(p[i] as Value, path[i] as Value)) {
        same = false
        break
      }
    }
    if (same) return true
  }
  return false
}

/** The analysis of one partial evaluation. */
export class UnknownAnalysis {
  readonly #memo = new Map<RuleSet, boolean>()

  constructor(
    readonly set: UnknownSet,
    readonly root: VNode,
    /** Data paths (without `data`) that must not be inlined. */
    readonly disabled: readonly (readonly Value[])[],
    /** Evaluate non-deterministic built-ins when their arguments are known. */
    readonly nondeterministic: boolean,
  ) {}

  /** True when evaluating `t` in `frame` would save something. */
  term(t: PTerm, frame: Frame): boolean {
    if (termUnknown(this.set, t, frame)) return true
    return this.#refs(t, frame, true)
  }

  /** True when the expression must be saved (or partially evaluated): unknown operands, `with`, rules. */
  expr(e: PExpr, frame: Frame): boolean {
    if (e.with && e.with.length > 0) return true
    if (this.#ndCall(e)) return true
    if (e.call?.fn?.ruleSet && this.ruleSet(e.call.fn.ruleSet)) return true
    for (const t of exprTerms(e)) if (this.term(t, frame)) return true
    if (e.every && this.#body(e.every.body, frame, true)) return true
    if (e.notBody && this.#body(e.notBody, frame, true)) return true
    return false
  }

  /**
   * True when a `with` of `e` replaces a function by one that depends on unknowns (`with concat as
   * mock` where `mock` reads `input`): the replaced calls would be saved inside rules evaluated as
   * known, and their conditions lost, so the expression is saved whole instead.
   */
  unknownMock(e: PExpr): boolean {
    for (const w of e.with ?? []) {
      const set = w.fnValue?.fn?.ruleSet
      if (set && this.ruleSet(set)) return true
    }
    return false
  }

  /** True when any rule of `set` (or a rule set it refers to) depends on unknowns. */
  ruleSet(set: RuleSet): boolean {
    const known = this.#memo.get(set)
    if (known !== undefined) return known
    this.#memo.set(set, false) // recursion is a compile error; this only guards the walk
    let found = overlapsAny(this.disabled, set.node.path)
    const rules = [...set.rules, ...(set.defaultRule ? [set.defaultRule] : [])]
    for (const r of rules) {
      for (let x: PRule | undefined = r; x && !found; x = x.else) found = this.#rule(x)
      if (found) break
    }
    this.#memo.set(set, found)
    return found
  }

  /** True when some rule under the data path `path` (a prefix; `undefined` parts match any key) is unknown. */
  dataPath(path: readonly (Value | undefined)[]): boolean {
    const ground: Value[] = []
    for (const p of path) {
      if (p === undefined) break
      ground.push(p)
    }
    if (overlapsAny(this.disabled, ground)) return true
    return this.#under(this.root, path, 0)
  }

  #under(node: VNode, path: readonly (Value | undefined)[], i: number): boolean {
    if (node.ruleSet && this.ruleSet(node.ruleSet)) return true
    if (i >= path.length) return node.allChildren().some((c) => this.#under(c, path, path.length))
    const key = path[i]
    if (key === undefined) return node.allChildren().some((c) => !c.hidden && this.#under(c, path, i + 1))
    const child = node.child(key)
    return child !== undefined && this.#under(child, path, i + 1)
  }

  #rule(r: PRule): boolean {
    const frame = EMPTY
    for (const t of [
      ...(r.args ?? []),
      ...(r.key ? [r.key] : []),
      ...(r.value ? [r.value] : []),
      ...r.refTail,
    ]) {
      if (this.#static(t)) return true
    }
    return this.#body(r.body, frame, false)
  }

  #body(body: readonly PExpr[], frame: Frame, dynamic: boolean): boolean {
    for (const e of body) {
      if (e.with && e.with.length > 0) return true
      if (this.#ndCall(e)) return true
      if (e.call?.fn?.ruleSet && this.ruleSet(e.call.fn.ruleSet)) return true
      for (const t of exprTerms(e)) {
        if (dynamic ? this.term(t, frame) : this.#static(t)) return true
      }
      if (e.every && this.#body(e.every.body, frame, dynamic)) return true
      if (e.notBody && this.#body(e.notBody, frame, dynamic)) return true
    }
    return false
  }

  /** Inside a rule: only refs matter (the rule's own vars are not in the save set). */
  #static(t: PTerm): boolean {
    return this.#refs(t, EMPTY, false)
  }

  #ndCall(e: PExpr): boolean {
    const b: Builtin | undefined = e.call?.builtin
    return !this.nondeterministic && b !== undefined && b.nondeterministic === true
  }

  // Refs in `t`: input/data refs against the save set, data refs against the rules they may reach.
  #refs(t: PTerm, frame: Frame, dynamic: boolean): boolean {
    switch (t.k) {
      case K.Value:
      case K.Var:
        return false
      case K.Ref: {
        if (t.root === Root.Input && dynamic) {
          // The same question without building the prefix: every input ref operand of every rule.
          if (this.set.containsRefPath('input', t.path, frame)) return true
        } else if (t.root !== Root.Term) {
          const prefix = pathPrefix(t.path, frame, dynamic)
          const ground: Value[] = []
          for (const p of prefix) {
            if (p === undefined) break
            ground.push(p)
          }
          if (this.set.overlaps(t.root === Root.Data ? 'data' : 'input', ground)) return true
          if (t.root === Root.Data && this.dataPath(prefix)) return true
        } else if (t.head && this.#refs(t.head, frame, dynamic)) {
          return true
        }
        // Loops, not `some` with a closure: this runs for every operand of every rule evaluated.
        for (const p of t.path) if (p.k !== K.Value && this.#refs(p, frame, dynamic)) return true
        return false
      }
      case K.Array:
      case K.Set:
        for (const x of t.items) if (this.#refs(x, frame, dynamic)) return true
        return false
      case K.Object:
        return t.entries.some(([a, b]) => this.#refs(a, frame, dynamic) || this.#refs(b, frame, dynamic))
      case K.ArrayCompr:
      case K.SetCompr:
        return this.#refs(t.term, frame, dynamic) || this.#body(t.body, frame, dynamic)
      case K.ObjectCompr:
        return (
          this.#refs(t.key, frame, dynamic) ||
          this.#refs(t.value, frame, dynamic) ||
          this.#body(t.body, frame, dynamic)
        )
    }
  }
}

// Rule bodies are analysed without bindings.
const EMPTY = new Frame(0)

/** The terms an expression reads (operands, call arguments and output, `every` domain, `with` values). */
export function exprTerms(e: PExpr): PTerm[] {
  const out: PTerm[] = []
  if (e.a) out.push(e.a)
  if (e.b) out.push(e.b)
  if (e.term) out.push(e.term)
  if (e.call) {
    out.push(...e.call.args)
    if (e.call.output) out.push(e.call.output)
  }
  if (e.every) out.push(e.every.domain)
  for (const w of e.with ?? []) out.push(w.value)
  return out
}

/** The path of a ref with ground parts as values (vars plugged when `dynamic`), others undefined. */
export function pathPrefix(path: readonly PTerm[], frame: Frame, dynamic: boolean): (Value | undefined)[] {
  return path.map((p) => {
    if (p.k === K.Value) return p.v
    if (!dynamic) return undefined
    if (p.k === K.Var) {
      const b = frame.s[p.slot]
      if (b === undefined) return undefined
      return b instanceof TermBinding ? plug(b.term, b.frame) : b
    }
    return plug(p, frame)
  })
}
