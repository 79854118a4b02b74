/**
 * Bindings: the variables of one rule body (or query) live in the slots of a `Frame`. A slot holds
 * a value, or, rarely, a term with the frame it must be read in (`x = y` with both unbound binds
 * `x` to `y`). Binding is undone by the caller once its continuation returns, so backtracking
 * costs one store per variable.
 */
import { equalValues, ObjectValue, SetValue, type Value } from '../values/index.js'
import { K, type PTerm } from './ir.js'

/** A binding to a term that is not (yet) ground, read in `frame`. */
export class TermBinding {
  constructor(
    readonly term: PTerm,
    readonly frame: Frame,
  ) {}
}

/** What a slot holds. */
export type Slot = Value | TermBinding | undefined

let nextFrameId = 0

/** The variables of one rule evaluation, function call, or query. */
export class Frame {
  readonly s: Slot[]
  /** Unique per frame: partial evaluation namespaces saved vars with it. */
  readonly id: number
  /** Slot names (for residual queries and tracing). */
  readonly names: readonly string[]

  constructor(size: number, names: readonly string[] = []) {
    this.s = new Array<Slot>(size).fill(undefined)
    this.id = nextFrameId++
    this.names = names
  }
}

/** Binds `slot` of `frame` to `v` for the duration of `iter` (its answer: stop or go on). */
export function bindValue(frame: Frame, slot: number, v: Value | TermBinding, iter: () => boolean): boolean {
  // NOTE(regent): no try/finally: an exception abandons the whole query, frames included.
  frame.s[slot] = v
  const stop = iter()
  frame.s[slot] = undefined
  return stop
}

/**
 * The value of `t` in `frame`, or undefined when it is not ground (an unbound var) or needs
 * evaluation (refs, comprehensions). This is OPA's `plug` for the common, fully bound case.
 */
export function plug(t: PTerm, frame: Frame): Value | undefined {
  switch (t.k) {
    case K.Value:
      return t.v
    case K.Var: {
      const b = frame.s[t.slot]
      if (b === undefined) return undefined
      if (b instanceof TermBinding) return plug(b.term, b.frame)
      return b
    }
    case K.Array: {
      const out: Value[] = new Array(t.items.length)
      for (let i = 0; i < t.items.length; i++) {
        const v = plug(t.items[i] as PTerm, frame)
        if (v === undefined) return undefined
        out[i] = v
      }
      return out
    }
    case K.Object: {
      const out = new ObjectValue()
      for (const [kt, vt] of t.entries) {
        const k = plug(kt, frame)
        if (k === undefined) return undefined
        const v = plug(vt, frame)
        if (v === undefined) return undefined
        out.set(k, v)
      }
      return out
    }
    case K.Set: {
      const out = new SetValue()
      for (const x of t.items) {
        const v = plug(x, frame)
        if (v === undefined) return undefined
        out.add(v)
      }
      return out
    }
    default:
      return undefined
  }
}

/** Follows var bindings: a value, or the (term, frame) pair an unbound or non-ground var stands for. */
export function deref(t: PTerm, frame: Frame): Value | TermBinding {
  let term = t
  let f = frame
  for (;;) {
    if (term.k !== K.Var) return new TermBinding(term, f)
    const b: Slot = f.s[term.slot]
    if (b === undefined) return new TermBinding(term, f)
    if (!(b instanceof TermBinding)) return b
    term = b.term
    f = b.frame
  }
}

/** True when the two values are equal (OPA's term equality). */
export function same(a: Value, b: Value): boolean {
  return a === b || equalValues(a, b)
}
