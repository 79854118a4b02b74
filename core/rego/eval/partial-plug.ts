/**
 * Residual AST from the evaluator's terms: bound vars are replaced by their values, unbound vars are
 * namespaced by the query they belong to (`x` of query 3 becomes `x3`, as OPA's `PlugNamespaced`
 * does; vars of the top-level query keep their names), constants keep their source terms.
 */
import type { Body, Expr, Term } from '../syntax/ast.js'
import { isArray, isObject, isSet, numberText, type RegoNumber, type Value } from '../values/index.js'
import { type Frame, TermBinding } from './bindings.js'
import { K, type PExpr, type PTerm, Root, X } from './ir.js'
import type { SavedEntry } from './partial-stack.js'

/** Names frames: the top-level query keeps its var names, every other frame gets a number. */
export class FrameNames {
  readonly #ids = new Map<Frame, number>()
  readonly #kept = new Set<Frame>()
  #next = 0
  readonly top: Frame

  constructor(top: Frame) {
    this.top = top
    this.#ids.set(top, this.#next++)
  }

  /** Registers a frame in creation order (rule bodies, function calls), as OPA numbers its queries. */
  register(frame: Frame): Frame {
    if (!this.#ids.has(frame)) this.#ids.set(frame, this.#next++)
    return frame
  }

  /** Marks a frame whose vars keep their names (generated vars that are unique already). */
  keep(frame: Frame): void {
    this.#kept.add(frame)
  }

  /** A fresh query number (negations). */
  next(): number {
    return this.#next++
  }

  /** The query number of `frame`. */
  id(frame: Frame): number {
    let id = this.#ids.get(frame)
    if (id === undefined) {
      id = this.#next++
      this.#ids.set(frame, id)
    }
    return id
  }

  /** The residual name of var `name` of `frame`. */
  varName(name: string, frame: Frame): string {
    if (frame === this.top || this.#kept.has(frame) || name === 'input' || name === 'data') return name
    return `${name}${this.id(frame)}`
  }
}

/** The AST term of a value. */
export function valueToTerm(v: Value): Term {
  if (v === null) return { type: 'null', value: null }
  if (typeof v === 'boolean') return { type: 'boolean', value: v }
  if (typeof v === 'string') return { type: 'string', value: v }
  if (isArray(v)) return { type: 'array', value: v.map(valueToTerm) }
  if (isSet(v)) return { type: 'set', value: v.values().map(valueToTerm) }
  if (isObject(v)) {
    return {
      type: 'object',
      value: v.entries().map(([k, x]) => [valueToTerm(k), valueToTerm(x)] as [Term, Term]),
    }
  }
  return { type: 'number', value: numberText(v as RegoNumber) }
}

/** Plugs terms and saved entries for one partial evaluation. */
export class Plugger {
  constructor(readonly names: FrameNames) {}

  /** The AST of a value. */
  value(v: Value): Term {
    return valueToTerm(v)
  }

  /**
   * The residual name of `t` when it is a var unbound in its frame (directly or through the vars it
   * is bound to), else undefined. Names the var as {@link term} would, without building its term.
   */
  unboundName(t: PTerm, frame: Frame): string | undefined {
    let x = t
    let f = frame
    while (x.k === K.Var) {
      const b = f.s[x.slot]
      if (b === undefined) return this.names.varName(x.name, f)
      if (!(b instanceof TermBinding)) return undefined
      x = b.term
      f = b.frame
    }
    return undefined
  }

  /** The AST of `t` read in `frame`. */
  term(t: PTerm, frame: Frame): Term {
    switch (t.k) {
      case K.Value:
        return t.src.type === 'var' || t.src.type === 'ref' ? valueToTerm(t.v) : t.src
      case K.Var: {
        const b = frame.s[t.slot]
        if (b === undefined) {
          const value = this.names.varName(t.name, frame)
          const location = t.src.location
          return location ? { type: 'var', value, location } : { type: 'var', value }
        }
        if (b instanceof TermBinding) return this.term(b.term, b.frame)
        return valueToTerm(b)
      }
      case K.Ref: {
        // Locations come from the prepared term (not its source AST), and every node is built
        // with its location: a property added later changes the object's hidden class.
        const headLoc = t.headLoc
        const parts: Term[] = []
        if (t.root === Root.Data || t.root === Root.Input) {
          const value = t.root === Root.Data ? 'data' : 'input'
          parts.push(headLoc ? { type: 'var', value, location: headLoc } : { type: 'var', value })
        } else {
          const head = this.term(t.head as PTerm, frame)
          // A head bound to a ref (`x = input.a; x.b`) continues that ref.
          if (head.type === 'ref') parts.push(...head.value)
          else parts.push(withLocation(head, firstPart(t.src)))
        }
        for (const p of t.path) parts.push(this.term(p, frame))
        const location = t.loc
        return location ? { type: 'ref', value: parts, location } : { type: 'ref', value: parts }
      }
      case K.Array:
        return withLocation({ type: 'array', value: t.items.map((x) => this.term(x, frame)) }, t.src)
      case K.Set:
        return withLocation({ type: 'set', value: t.items.map((x) => this.term(x, frame)) }, t.src)
      case K.Object:
        return withLocation(
          {
            type: 'object',
            value: t.entries.map(([a, b]) => [this.term(a, frame), this.term(b, frame)] as [Term, Term]),
          },
          t.src,
        )
      case K.ArrayCompr:
      case K.SetCompr:
        return withLocation(
          {
            type: t.k === K.ArrayCompr ? 'arraycomprehension' : 'setcomprehension',
            value: { term: this.term(t.term, frame), body: this.body(t.body, frame) },
          },
          t.src,
        )
      case K.ObjectCompr:
        return withLocation(
          {
            type: 'objectcomprehension',
            value: {
              key: this.term(t.key, frame),
              value: this.term(t.value, frame),
              body: this.body(t.body, frame),
            },
          },
          t.src,
        )
    }
  }

  /** A prepared body (comprehensions, `every`) plugged in `frame`. */
  body(body: readonly PExpr[], frame: Frame): Body {
    return body.map((e, i) => this.expr(e, frame, i))
  }

  /**
   * A prepared expression plugged in `frame`, numbered `index` (its own by default); a top-level `==`
   * becomes `=` as OPA's compiler writes it.
   */
  expr(e: PExpr, frame: Frame, index = e.src.index): Expr {
    const out: Expr = { type: 'expr', index, terms: e.src.terms }
    if (e.src.location) out.location = e.src.location
    if (e.negated) out.negated = true
    switch (e.kind) {
      case X.Unify:
        out.terms = [eqOperator(), this.term(e.a as PTerm, frame), this.term(e.b as PTerm, frame)]
        break
      case X.Call: {
        const call = e.call as NonNullable<PExpr['call']>
        const src = e.src.terms as Term[]
        // One array for operator and operands: this runs for every saved call of every residual.
        const topLevelEqual = call.name === 'equal' && !call.output && call.args.length === 2
        const terms: Term[] = [topLevelEqual ? eqOperator() : (src[0] as Term)]
        for (const a of call.args) terms.push(this.term(a, frame))
        if (call.output) terms.push(this.term(call.output, frame))
        out.terms = terms
        break
      }
      case X.Term:
        out.terms = this.term(e.term as PTerm, frame)
        break
      case X.Every: {
        const ev = e.every as NonNullable<PExpr['every']>
        const srcEvery = e.src.terms as Extract<Expr['terms'], { type: 'every' }>
        out.terms = {
          ...srcEvery,
          key: srcEvery.key === null ? null : this.term(ev.key, frame),
          value: this.term(ev.value, frame),
          domain: this.term(ev.domain, frame),
          body: this.body(ev.body, frame),
        }
        break
      }
      case X.Not: {
        // The expression is `not { body }` itself, not a negation of something else; a one-expression
        // body prints as the plain `not expr`, which reads back without the import.
        const body = this.body(e.notBody as PExpr[], frame)
        const only = body[0]
        if (body.length === 1 && only && !only.negated && !only.with) out.terms = only.terms
        else {
          out.terms = { type: 'not', body, explicitBody: true }
          delete out.negated
        }
        break
      }
    }
    // A function replacement (`with count as mock_count`) is a name, not a value: its source ref.
    if (e.with)
      out.with = e.with.map((w) => ({ ...w.src, value: w.fnValue ? w.src.value : this.term(w.value, frame) }))
    return out
  }

  /** One saved entry as an expression. */
  entry(s: SavedEntry, index: number): Expr {
    switch (s.kind) {
      case 'unify':
        return located(
          { type: 'expr', index, terms: [eqOperator(), this.term(s.a, s.fa), this.term(s.b, s.fb)] },
          s,
        )
      case 'unify-ast':
        return located({ type: 'expr', index, terms: [eqOperator(), s.left(), this.term(s.b, s.fb)] }, s)
      case 'term':
        return located({ type: 'expr', index, terms: this.term(s.term, s.frame) }, s)
      case 'call-ast':
        return located(
          { type: 'expr', index, terms: [s.operator, ...s.args.map((a) => this.term(a, s.frame))] },
          s,
        )
      case 'expr':
        return this.expr(s.expr, s.frame, index)
      case 'ast':
        return { ...s.expr, index }
    }
  }

  /** A saved query as a body. */
  query(entries: readonly SavedEntry[]): Body {
    return entries.map((s, i) => this.entry(s, i))
  }
}

/** The unification operator of saved `a = b` expressions (no location, as OPA's `Equality.Expr`). */
export function eqOperator(): Term {
  return { type: 'ref', value: [{ type: 'var', value: 'eq' }] }
}

function located(expr: Expr, s: { location?: Expr['location'] | undefined }): Expr {
  if (s.location) expr.location = s.location
  return expr
}

function withLocation<T extends Term>(t: T, src: Term | undefined): T {
  if (src?.location && !t.location) t.location = src.location
  return t
}

function firstPart(src: Term): Term | undefined {
  return src.type === 'ref' ? src.value[0] : undefined
}
