/**
 * The save set and save stack of one partial evaluation. They extend the evaluator's `SaveSet` and
 * `SaveStack` (save.ts), so the evaluator's own `saveUnify`/`saveCall`/`saveExpr` feed them, and add
 * what residual queries need: the location of the expression being evaluated when something is
 * saved (OPA's `updateFromQuery`), entries built from AST, and the list of unknown vars (for
 * negations and support rules).
 */
import type { Expr, Location, Term } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import { type Frame, TermBinding } from './bindings.js'
import { K, type PExpr, type PTerm } from './ir.js'
import { SaveSet, SaveStack } from './save.js'

/** One saved expression, plugged into AST when a residual query is complete. */
export type SavedEntry =
  /** `a = b` (OPA's saveUnify): both sides read in their own frames. */
  | { kind: 'unify'; a: PTerm; fa: Frame; b: PTerm; fb: Frame; location: Location | undefined }
  /** An expression of the policy (a call or a term), its operands read in `frame`. */
  | { kind: 'expr'; expr: PExpr; frame: Frame }
  /** A term as a statement (`__term` vars of term expressions), optionally negated. */
  | { kind: 'term'; term: PTerm; frame: Frame; location: Location | undefined }
  /** `left = b` where the left side is built when plugging (support refs, `__ref` heads). */
  | { kind: 'unify-ast'; left: () => Term; b: PTerm; fb: Frame; location: Location | undefined }
  /** A call of a support function: operator given as AST, operands read in `frame`. */
  | { kind: 'call-ast'; operator: Term; args: PTerm[]; frame: Frame; location: Location | undefined }
  /** A finished expression (complemented negations, references to support rules). */
  | { kind: 'ast'; expr: Expr }

/** The residual queries under construction: one list per nested query (OPA's save stack groups). */
export class ResidualStack extends SaveStack {
  readonly #groups: SavedEntry[][] = [[]]
  readonly #where: () => Location | undefined

  /** `where` tells the location of the expression being evaluated. */
  constructor(where: () => Location | undefined) {
    super()
    this.#where = where
  }

  override pushExpr(expr: PExpr, frame: Frame): void {
    this.push({ kind: 'expr', expr, frame })
  }

  override pushUnify(a: PTerm, fa: Frame, b: PTerm, fb: Frame): void {
    this.push({ kind: 'unify', a, fa, b, fb, location: this.#where() })
  }

  /** Pushes any entry. */
  push(entry: SavedEntry): void {
    this.#top().push(entry)
  }

  /** The location saved entries get now. */
  location(): Location | undefined {
    return this.#where()
  }

  override pop(): void {
    this.#top().pop()
  }

  /** The entries of the current query. */
  entries(): readonly SavedEntry[] {
    return this.#top()
  }

  /** Starts a nested query (or resumes `existing`, as OPA's `PushQuery(current)`). */
  override pushQuery(existing?: SavedEntry[]): void {
    this.#groups.push(existing ?? [])
  }

  /** Ends the nested query and returns its entries. */
  popGroup(): SavedEntry[] {
    return this.#groups.pop() ?? []
  }

  #top(): SavedEntry[] {
    return this.#groups[this.#groups.length - 1] as SavedEntry[]
  }
}

/** A var marked unknown: a slot of a frame. */
export interface UnknownVar {
  frame: Frame
  slot: number
  name: string
}

/** The save set: unknown refs (by root and path) and the vars made unknown while evaluating. */
export class UnknownSet extends SaveSet {
  readonly #vars: UnknownVar[] = []

  override containsVar(frame: Frame, slot: number): boolean {
    for (let i = this.#vars.length - 1; i >= 0; i--) {
      const v = this.#vars[i] as UnknownVar
      if (v.frame === frame && v.slot === slot) return true
    }
    return false
  }

  override pushVars(t: PTerm, frame: Frame): number {
    return this.#pushUnbound(t, frame)
  }

  // A method rather than a closure made per call: this runs for every saved unification.
  #pushUnbound(x: PTerm, f: Frame): number {
    switch (x.k) {
      case K.Var: {
        const b = f.s[x.slot]
        if (b === undefined) {
          this.#vars.push({ frame: f, slot: x.slot, name: x.name })
          return 1
        }
        return b instanceof TermBinding ? this.#pushUnbound(b.term, b.frame) : 0
      }
      case K.Array:
      case K.Set: {
        let n = 0
        for (const y of x.items) n += this.#pushUnbound(y, f)
        return n
      }
      case K.Object: {
        let n = 0
        for (const [, y] of x.entries) n += this.#pushUnbound(y, f)
        return n
      }
      case K.Ref: {
        let n = x.head ? this.#pushUnbound(x.head, f) : 0
        for (const y of x.path) n += this.#pushUnbound(y, f)
        return n
      }
      default:
        return 0
    }
  }

  /** Marks one slot unknown; returns 1 (for `pop`). */
  pushSlot(frame: Frame, slot: number, name: string): number {
    this.#vars.push({ frame, slot, name })
    return 1
  }

  override pop(n: number): void {
    this.#vars.length -= n
  }

  /** Every var marked unknown, oldest first. */
  vars(): readonly UnknownVar[] {
    return this.#vars
  }

  /** True when a ref rooted at `root` with this ground prefix overlaps an unknown ref. */
  overlaps(root: 'input' | 'data', prefix: readonly Value[]): boolean {
    return this.containsRef(root, prefix)
  }
}
