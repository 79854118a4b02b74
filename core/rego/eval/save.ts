/**
 * Partial-evaluation state, as OPA's topdown keeps it: the save set (refs and vars that are
 * unknown), the save stack (the expressions of the residual query being built) and save support
 * (support rules generated for virtual documents that cannot be inlined). The evaluator consults
 * these only when `partial()` is true; normal evaluation never allocates them.
 */
import type { Expr, Rule, Term } from '../syntax/ast.js'
import { equalValues, isArray, isObject, isSet, type Value } from '../values/index.js'
import { type Frame, plug, TermBinding } from './bindings.js'
import { K, type PExpr, type PTerm, Root } from './ir.js'

/** An unknown var: a slot of a frame. */
interface UnknownVar {
  frame: Frame
  slot: number
}

/** Refs (by root and path) and vars whose values are unknown. */
export class SaveSet {
  /** Unknown ref prefixes, each starting with its root (`['input', 'x']`). */
  readonly refs: Value[][]
  readonly #vars: UnknownVar[] = []

  constructor(refs: Value[][]) {
    this.refs = refs
  }

  /** True when a ref with this root and ground prefix overlaps an unknown ref. */
  containsRef(root: string, prefix: readonly Value[]): boolean {
    for (const u of this.refs) {
      if (u[0] !== root) continue
      const n = Math.min(u.length - 1, prefix.length)
      let ok = true
      for (let i = 0; i < n; i++) {
        if (!equalValues(u[i + 1] as Value, prefix[i] as Value)) {
          ok = false
          break
        }
      }
      if (ok) return true
    }
    return false
  }

  /**
   * `containsRef` of the ground prefix of `path` read in `frame` (up to its first part that is not
   * ground), plugging parts as they are compared instead of building the prefix: this runs for
   * every ref operand of every rule partial evaluation visits.
   */
  containsRefPath(root: string, path: readonly PTerm[], frame: Frame): boolean {
    for (const u of this.refs) {
      if (u[0] !== root) continue
      let ok = true
      for (let i = 0; i < u.length - 1 && i < path.length; i++) {
        const v = plug(path[i] as PTerm, frame)
        if (v === undefined) break
        if (!equalValues(u[i + 1] as Value, v)) {
          ok = false
          break
        }
      }
      if (ok) return true
    }
    return false
  }

  /** True when the var in `slot` of `frame` is unknown. */
  containsVar(frame: Frame, slot: number): boolean {
    for (let i = this.#vars.length - 1; i >= 0; i--) {
      const v = this.#vars[i] as UnknownVar
      if (v.frame === frame && v.slot === slot) return true
    }
    return false
  }

  /** Marks the unbound vars of `t` unknown; returns how many were pushed (for `pop`). */
  pushVars(t: PTerm, frame: Frame): number {
    let n = 0
    const visit = (x: PTerm, f: Frame): void => {
      switch (x.k) {
        case K.Var: {
          const b = f.s[x.slot]
          if (b === undefined) {
            this.#vars.push({ frame: f, slot: x.slot })
            n++
          } else if (b instanceof TermBinding) visit(b.term, b.frame)
          return
        }
        case K.Array:
        case K.Set:
          for (const y of x.items) visit(y, f)
          return
        case K.Object:
          for (const [, y] of x.entries) visit(y, f)
          return
        case K.Ref:
          for (const y of x.path) visit(y, f)
          return
      }
    }
    visit(t, frame)
    return n
  }

  pop(n: number): void {
    this.#vars.length -= n
  }
}

/** True when `t` in `frame` depends on anything in `set` (refs into unknowns, unknown vars). */
export function termUnknown(set: SaveSet, t: PTerm, frame: Frame): boolean {
  switch (t.k) {
    case K.Value:
      return false
    case K.Var: {
      const b = frame.s[t.slot]
      if (b === undefined) return set.containsVar(frame, t.slot)
      if (b instanceof TermBinding) return termUnknown(set, b.term, b.frame)
      return false
    }
    case K.Ref: {
      if (t.root === Root.Term) {
        if (t.head && termUnknown(set, t.head, frame)) return true
      } else if (set.containsRefPath(t.root === Root.Data ? 'data' : 'input', t.path, frame)) {
        return true
      }
      // Loops, not `some` with a closure: this runs for every operand of every rule evaluated.
      for (const p of t.path) if (p.k !== K.Value && termUnknown(set, p, frame)) return true
      return false
    }
    case K.Array:
    case K.Set:
      for (const x of t.items) if (termUnknown(set, x, frame)) return true
      return false
    case K.Object:
      return t.entries.some(([a, b]) => termUnknown(set, a, frame) || termUnknown(set, b, frame))
    case K.ArrayCompr:
    case K.SetCompr:
      return termUnknown(set, t.term, frame) || bodyUnknown(set, t.body, frame)
    case K.ObjectCompr:
      return (
        termUnknown(set, t.key, frame) || termUnknown(set, t.value, frame) || bodyUnknown(set, t.body, frame)
      )
  }
}

function bodyUnknown(set: SaveSet, body: PExpr[], frame: Frame): boolean {
  for (const e of body) {
    const ts = [e.a, e.b, e.term, e.every?.domain, ...(e.call?.args ?? [])]
    for (const t of ts) if (t && termUnknown(set, t, frame)) return true
    if (e.every && bodyUnknown(set, e.every.body, frame)) return true
  }
  return false
}

/** One saved expression with the frame(s) its vars must be read in. */
export type Saved =
  | { kind: 'expr'; expr: PExpr; frame: Frame }
  | { kind: 'unify'; a: PTerm; fa: Frame; b: PTerm; fb: Frame }

/** The residual queries under construction (one list per nested query, as OPA's save stack). */
export class SaveStack {
  readonly #queries: Saved[][] = [[]]

  pushExpr(expr: PExpr, frame: Frame): void {
    this.#top().push({ kind: 'expr', expr, frame })
  }

  pushUnify(a: PTerm, fa: Frame, b: PTerm, fb: Frame): void {
    this.#top().push({ kind: 'unify', a, fa, b, fb })
  }

  pop(): void {
    this.#top().pop()
  }

  /** The saved expressions of the current query, in order. */
  peek(): readonly Saved[] {
    return this.#top()
  }

  pushQuery(): void {
    this.#queries.push([])
  }

  popQuery(): Saved[] {
    return this.#queries.pop() ?? []
  }

  #top(): Saved[] {
    return this.#queries[this.#queries.length - 1] as Saved[]
  }
}

/** Support rules generated during partial evaluation, by package path text. */
export class SaveSupport {
  readonly modules = new Map<string, Rule[]>()

  exists(path: string): boolean {
    return this.modules.has(path)
  }

  insert(path: string, rule: Rule): void {
    const rules = this.modules.get(path) ?? []
    rules.push(rule)
    this.modules.set(path, rules)
  }
}

/**
 * The AST of `t` with bound vars replaced by their values and unbound vars namespaced by frame
 * (`x` in frame 3 becomes `x_3`), as residual queries need them.
 */
export function plugToAst(t: PTerm, frame: Frame, toTerm: (v: Value) => Term): Term {
  switch (t.k) {
    case K.Value:
      return toTerm(t.v)
    case K.Var: {
      const b = frame.s[t.slot]
      if (b === undefined) return { type: 'var', value: `${t.name}_${frame.id}` }
      if (b instanceof TermBinding) return plugToAst(b.term, b.frame, toTerm)
      return toTerm(b)
    }
    case K.Ref: {
      const head: Term =
        t.root === Root.Data
          ? { type: 'var', value: 'data' }
          : t.root === Root.Input
            ? { type: 'var', value: 'input' }
            : plugToAst(t.head as PTerm, frame, toTerm)
      return { type: 'ref', value: [head, ...t.path.map((p) => plugToAst(p, frame, toTerm))] }
    }
    case K.Array:
      return { type: 'array', value: t.items.map((x) => plugToAst(x, frame, toTerm)) }
    case K.Set:
      return { type: 'set', value: t.items.map((x) => plugToAst(x, frame, toTerm)) }
    case K.Object:
      return {
        type: 'object',
        value: t.entries.map(
          ([a, b]) => [plugToAst(a, frame, toTerm), plugToAst(b, frame, toTerm)] as [Term, Term],
        ),
      }
    default:
      return t.src
  }
}

/** The saved expressions as AST (`a = b` for unifications). */
export function savedToAst(saved: readonly Saved[], toTerm: (v: Value) => Term): Expr[] {
  return saved.map((s, index) => {
    if (s.kind === 'unify') {
      return {
        type: 'expr',
        index,
        terms: [
          { type: 'ref', value: [{ type: 'var', value: 'eq' }] },
          plugToAst(s.a, s.fa, toTerm),
          plugToAst(s.b, s.fb, toTerm),
        ],
      }
    }
    return { ...s.expr.src, index }
  })
}

/** True for values PE may treat as a collection. */
export function isCollection(v: Value): boolean {
  return isArray(v) || isObject(v) || isSet(v)
}
