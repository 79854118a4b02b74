/**
 * Copy propagation on residual queries (OPA's `topdown/copypropagation`): partial evaluation leaves
 * chains such as `__local0__1 = input.x; __local0__1 > 1`; this removes the intermediate vars
 * (`input.x > 1`), folds calls whose output is used once into their use (`gt(equal(…), 0)`), and
 * keeps an equality only where it still binds a live var or makes a var safe.
 */
import { isConstant } from '../compiler/terms.js'
import type { Body, Expr, Term } from '../syntax/ast.js'
import { eqOperator } from './partial-plug.js'
import {
  addOutputVars,
  bodyVars,
  containedIn,
  isEqOperator,
  isGround,
  RESERVED,
  refOutputVars,
  sameTerm,
  walk,
} from './residual-terms.js'

/** What copy propagation needs to know besides the query. */
export interface CopyPropagationOptions {
  /** Vars the caller reads after evaluation (query vars, unknown roots): never removed. */
  live: ReadonlySet<string>
  /** Arity of a call operator (built-in or function), or -1 when unknown. */
  arity: (operator: Term) => number
  /** Return `true` instead of an empty body (support rules, negations). */
  ensureNonEmpty?: boolean
}

interface Root {
  key: string
  constant: Term | undefined
}

/** Removes redundant vars from `query`; returns the query unchanged when that would be unsafe. */
export function copyPropagate(query: Body, options: CopyPropagationOptions): Body {
  const simple = propagateLocals(query, options)
  if (simple) return simple
  const { live } = options
  const uf = disjointSets(live, query)
  if (!uf) return query
  const headvars = new Set<string>()
  for (const expr of query) {
    walk(expr, (t) => {
      if (t.type === 'ref' && t.value[0]?.type === 'var') {
        const v = t.value[0].value
        const root = uf.find(v)
        if (root) {
          root.constant = undefined
          headvars.add(root.key)
        } else headvars.add(v)
      }
    })
  }
  // An equality put back below is a new expression without a location, as OPA's copy propagation
  // builds it: the compile API's fragment checks report an error about it without one.
  const removed = new Map<string, Term>()
  let cpVars = 0
  const result: Body = []
  for (const original of query) {
    const ctx: PlugContext = { removed, uf, negated: original.negated === true }
    const expr = plugExpr(original, ctx)
    if (keep(expr)) result.push(expr)
  }

  function keep(expr: Expr): boolean {
    if (expr.negated || (expr.with && expr.with.length > 0)) return true
    const terms = expr.terms
    if (Array.isArray(terms)) {
      const [op, ...args] = terms
      if (isEqOperator(op) && args.length === 2) {
        const [a, b] = args as [Term, Term]
        if (sameTerm(a, b)) {
          if (a.type === 'ref' && a.value[0]?.type === 'var' && live.has(a.value[0].value)) {
            removed.set(`__localcp${cpVars++}__`, a)
          }
          return false
        }
        const binding = eqBinding(a, b, live) ?? eqBinding(b, a, live)
        if (binding) {
          removed.set(binding[0], binding[1])
          return false
        }
      } else if (op && options.arity(op) === args.length - 1) {
        const output = args[args.length - 1] as Term
        if (output.type === 'var' && !live.has(output.value) && !headvars.has(output.value)) {
          removed.set(output.value, { type: 'call', value: [op, ...args.slice(0, -1)] })
          return false
        }
      }
    }
    return !isNoop(expr)
  }

  // Live vars must stay bound.
  for (const v of [...live].sort()) {
    const root = uf.find(v)
    if (!root) continue
    if (root.constant) result.push(eqExpr({ type: 'var', value: v }, root.constant))
    else if (removed.has(root.key))
      result.push(eqExpr({ type: 'var', value: v }, removed.get(root.key) as Term))
    else if (root.key !== v) result.push(eqExpr({ type: 'var', value: v }, { type: 'var', value: root.key }))
  }

  // Removed equalities come back where they make a var safe or their value is read nowhere else.
  const safe = new Set<string>([...RESERVED, ...live])
  addOutputVars(result, safe, options.arity)
  let unsafe = new Set([...bodyVars(result)].filter((v) => !safe.has(v)))
  const sorted = [...removed.entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
  for (const [k, v] of sorted) {
    const eq = eqExpr({ type: 'var', value: k }, v)
    const out = new Set<string>()
    addOutputVars([eq], new Set(safe), options.arity, out)
    const providesSafety = [...unsafe].some((x) => out.has(x))
    if (providesSafety) unsafe = new Set([...unsafe].filter((x) => !out.has(x)))
    const safeVarRef =
      v.type === 'ref' && v.value.length === 1 && v.value[0]?.type === 'var' && safe.has(v.value[0].value)
    const trivialVar = v.type === 'var' && safe.has(v.value)
    // The removed equality failed when `v` is undefined: it comes back unless an expression that
    // fails then too still reads `v` (negation-definedness.ts).
    if (providesSafety || (!safeVarRef && !trivialVar && !containedIn(v, result, true))) {
      result.push(eq)
      for (const x of out) safe.add(x)
    }
  }
  if (unsafe.size > 0) return query
  if (options.ensureNonEmpty && result.length === 0) {
    return [{ type: 'expr', index: 0, terms: { type: 'boolean', value: true } }]
  }
  return result.map((e, i) => ({ ...e, index: i }))
}

// ---------------------------------------------------------------------------------------------
// The common residual: `__local0__1 = input.t.b; __local0__1 != "y"`, generated locals bound once
// to a ground ref and read as whole operands afterwards. For it the general algorithm above has no
// union-find set, no call output to fold and no unsafe var; what it does reduces to substituting
// each local's ref into its uses and putting back a binding whose ref is read nowhere else. This
// does exactly that in one pass, without the sets and maps the general one builds per residual
// (copy propagation was two fifths of a 1,000-rule compile's allocations, docs/performance.md).

/** A generated local removed from a residual of the one-pass shape, with the ref it was bound to. */
export interface LocalBinding {
  name: string
  value: Term
}

/** The general algorithm's answer for the simple shape above, or undefined for any other query. */
function propagateLocals(query: Body, options: CopyPropagationOptions): Body | undefined {
  const { live } = options
  const bound: LocalBinding[] = []
  const result: Body = []
  for (const expr of query) {
    const terms = expr.terms
    if (expr.negated || expr.with || !Array.isArray(terms) || terms.length < 2) return undefined
    const op = terms[0] as Term
    if (op.type !== 'ref') return undefined
    if (isEqOperator(op)) {
      if (terms.length !== 3) return undefined
      const a = terms[1] as Term
      const b = terms[2] as Term
      const local = a.type === 'var' ? a : b.type === 'var' ? b : undefined
      if (local) {
        // A binding `local = ref`: the local is new, the other side a ground ref of input or data.
        const value = local === a ? b : a
        if (value.type !== 'ref' || value.value.length < 2 || !plainGround(value)) return undefined
        if (!isLocal(local.value, live) || findLocal(bound, local.value)) return undefined
        bound.push({ name: local.value, value })
        continue
      }
      if (!plainGround(a) || !plainGround(b) || sameTerm(a, b)) return undefined
      if (!isNoop(expr)) result.push(atIndex(expr, result.length))
      continue
    }
    // Any other call: operands are ground or locals bound before; no output var to fold.
    if (options.arity(op) === terms.length - 2) return undefined
    let plugged: Term[] | undefined
    for (let i = 1; i < terms.length; i++) {
      const t = terms[i] as Term
      if (t.type === 'var') {
        const b = isLocal(t.value, live) ? findLocal(bound, t.value) : undefined
        if (!b) return undefined
        plugged ??= terms.slice()
        plugged[i] = b.value
      } else if (!plainGround(t)) return undefined
    }
    const out = plugged ? { ...expr, terms: plugged, index: result.length } : expr
    if (!isNoop(out)) result.push(atIndex(out, result.length))
  }
  putBack(bound, result)
  if (options.ensureNonEmpty && result.length === 0) {
    return [{ type: 'expr', index: 0, terms: { type: 'boolean', value: true } }]
  }
  return result
}

// `expr` numbered `index` in the result: itself when it already is (nothing changes an expression
// once a residual is built), else a copy. Numbering as expressions are kept, instead of copying all of
// them at the end, saves an object per kept expression (copy propagation's allocations were a tenth
// of a 1,000-rule compile's, docs/performance.md).
function atIndex(expr: Expr, index: number): Expr {
  return expr.index === index ? expr : { ...expr, index }
}

/**
 * Puts back, numbered in order, each removed binding whose ref `result` reads nowhere (it failed when
 * the ref was undefined), in the general algorithm's order (names descending).
 */
export function putBack(bound: LocalBinding[], result: Body): void {
  bound.sort((x, y) => (x.name < y.name ? 1 : x.name > y.name ? -1 : 0))
  for (const b of bound) {
    if (!containedIn(b.value, result, true)) {
      const eq = eqExpr({ type: 'var', value: b.name }, b.value)
      eq.index = result.length
      result.push(eq)
    }
  }
}

/** A var copy propagation may remove: neither `input`, `data` nor live. */
export function isLocal(name: string, live: ReadonlySet<string>): boolean {
  return !RESERVED.has(name) && !live.has(name)
}

/** The binding of local `name`, if any. */
export function findLocal(bound: readonly LocalBinding[], name: string): LocalBinding | undefined {
  for (const b of bound) if (b.name === name) return b
  return undefined
}

/** A term without vars other than the head of a ref into input or data (no comprehension, no call). */
export function plainGround(t: Term): boolean {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true
    case 'ref': {
      const head = t.value[0]
      if (head?.type !== 'var' || !RESERVED.has(head.value)) return false
      for (let i = 1; i < t.value.length; i++) if (!plainGround(t.value[i] as Term)) return false
      return true
    }
    case 'array':
    case 'set':
      for (const x of t.value) if (!plainGround(x)) return false
      return true
    case 'object':
      for (const [k, v] of t.value) if (!plainGround(k) || !plainGround(v)) return false
      return true
    default:
      return false
  }
}

interface PlugContext {
  removed: Map<string, Term>
  uf: UnionFind
  negated: boolean
}

// Plugging shares what it does not change: an expression or term without a var to replace is
// returned as is (the result is copied once at the end), instead of a deep copy of every residual
// (plugging was a quarter of copy propagation on a 1,000-rule compile, docs/performance.md).
function plugExpr(expr: Expr, ctx: PlugContext): Expr {
  const terms = expr.terms
  if (Array.isArray(terms) && !expr.with) {
    const plugged = mapShared(terms, (t, i) => (i === 0 ? t : plugTerm(t, ctx)))
    return plugged === terms ? expr : { ...expr, terms: plugged }
  }
  const out: Expr = { ...expr }
  if (Array.isArray(terms)) {
    out.terms = terms.map((t, i) => (i === 0 ? t : plugTerm(t, ctx)))
  } else if (terms.type === 'every') {
    // The body closes over the vars outside it: a removed var read there is replaced there too,
    // else the residual would read a var nothing binds (OPA plugs closures the same way).
    out.terms = { ...terms, domain: plugTerm(terms.domain, ctx), body: plugClosure(terms.body, ctx) }
  } else if (terms.type === 'not') {
    out.terms = { ...terms, body: terms.body.map((e) => plugExpr(e, ctx)) }
  } else if (terms.type !== 'somedecl' && terms.type !== 'and' && terms.type !== 'or') {
    out.terms = plugTerm(terms, ctx)
  }
  if (expr.with) out.with = expr.with.map((w) => ({ ...w, value: plugTerm(w.value, ctx) }))
  return out
}

/** A closure's body (comprehension, `every`) plugged with the bindings of the query around it. */
function plugClosure(body: Body, ctx: PlugContext): Body {
  return body.map((e) => plugExpr(e, { ...ctx, negated: ctx.negated || e.negated === true }))
}

function plugVar(name: string, ctx: PlugContext): Term | undefined {
  let result: Term | undefined
  const root = ctx.uf.find(name)
  if (root) result = root.constant ?? (root.key === name ? undefined : { type: 'var', value: root.key })
  const v = result === undefined ? name : result.type === 'var' ? result.value : undefined
  if (v === undefined) return result
  const b = ctx.removed.get(v)
  if (b === undefined) return result
  if (ctx.negated && !isGround(b)) return result
  if (b.type === 'ref' && refOutputVars(b).has(v)) return result
  return b
}

function plugTerm(t: Term, ctx: PlugContext, depth = 0): Term {
  if (depth > 64) return t
  switch (t.type) {
    case 'var': {
      const r = plugVar(t.value, ctx)
      if (r === undefined) return t
      return r.type === 'var' ? keepLocation(r, t) : plugTerm(r, ctx, depth + 1)
    }
    case 'ref': {
      let parts = t.value
      const head = parts[0]
      if (head?.type === 'var') {
        const root = ctx.uf.find(head.value)
        let h: Term = head
        // A head that is its own root stays the same term (same name, same location).
        if (root && (root.constant || root.key !== head.value)) {
          h = keepLocation(root.constant ?? { type: 'var', value: root.key }, head)
          parts = [h, ...parts.slice(1)]
        }
        const b = h.type === 'var' ? ctx.removed.get(h.value) : undefined
        if (b && (!ctx.negated || isGround(b))) {
          const base = b.type === 'ref' ? b.value : [b]
          return keepLocation(
            { type: 'ref', value: [...base, ...parts.slice(1).map((p) => plugTerm(p, ctx, depth + 1))] },
            b,
          )
        }
      }
      const value = mapShared(parts, (p, i) =>
        i === 0 && p.type === 'var' ? p : plugTerm(p, ctx, depth + 1),
      )
      return value === t.value ? t : { ...t, value }
    }
    case 'array':
    case 'set': {
      const value = mapShared(t.value, (x) => plugTerm(x, ctx, depth + 1))
      return value === t.value ? t : { ...t, value }
    }
    case 'object':
      return {
        ...t,
        value: t.value.map(([k, v]): [Term, Term] => [
          plugTerm(k, ctx, depth + 1),
          plugTerm(v, ctx, depth + 1),
        ]),
      }
    case 'call': {
      const value = mapShared(t.value, (x, i) => (i === 0 ? x : plugTerm(x, ctx, depth + 1)))
      return value === t.value ? t : { ...t, value }
    }
    case 'arraycomprehension':
    case 'setcomprehension':
      return {
        ...t,
        value: { term: plugTerm(t.value.term, ctx, depth + 1), body: plugClosure(t.value.body, ctx) },
      }
    case 'objectcomprehension':
      return {
        ...t,
        value: {
          key: plugTerm(t.value.key, ctx, depth + 1),
          value: plugTerm(t.value.value, ctx, depth + 1),
          body: plugClosure(t.value.body, ctx),
        },
      }
    default:
      return t
  }
}

/** `items.map(f)`, or `items` itself when `f` returned every item unchanged. */
function mapShared(items: Term[], f: (t: Term, i: number) => Term): Term[] {
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Term
    const x = f(item, i)
    if (x === item) continue
    const out = items.slice(0, i)
    out.push(x)
    for (let j = i + 1; j < items.length; j++) out.push(f(items[j] as Term, j))
    return out
  }
  return items
}

function keepLocation(t: Term, from: Term): Term {
  if (t.location || !from.location) return t
  return { ...t, location: from.location }
}

// `k = v` can be removed when k is a var that is not live and v is a ref or a call.
function eqBinding(a: Term, b: Term, live: ReadonlySet<string>): [string, Term] | undefined {
  if (a.type !== 'var' || live.has(a.value)) return undefined
  return b.type === 'ref' || b.type === 'call' ? [a.value, b] : undefined
}

/** An expression that is always true (a constant other than `false`, `equal(x, x)`). */
export function isNoop(expr: Expr): boolean {
  const terms = expr.terms
  if (!Array.isArray(terms)) {
    if (
      terms.type === 'every' ||
      terms.type === 'somedecl' ||
      terms.type === 'not' ||
      terms.type === 'and' ||
      terms.type === 'or'
    )
      return false
    if (!isConstant(terms)) return false
    return !(terms.type === 'boolean' && terms.value === false)
  }
  const op = terms[0]
  if (
    op?.type === 'ref' &&
    op.value.length === 1 &&
    op.value[0]?.type === 'var' &&
    op.value[0].value === 'equal'
  ) {
    return terms.length === 3 && sameTerm(terms[1] as Term, terms[2] as Term)
  }
  return false
}

function eqExpr(a: Term, b: Term): Expr {
  return { type: 'expr', index: 0, terms: [eqOperator(), a, b] }
}

// ---------------------------------------------------------------------------------------------
// Union-find over vars, each set with at most one constant.

class UnionFind {
  readonly #parent = new Map<string, string>()
  readonly #roots = new Map<string, Root>()
  constructor(readonly live: ReadonlySet<string>) {}

  makeSet(v: string): Root {
    const r = this.find(v)
    if (r) return r
    this.#parent.set(v, v)
    const root: Root = { key: v, constant: undefined }
    this.#roots.set(v, root)
    return root
  }

  find(v: string): Root | undefined {
    let cur = this.#parent.get(v)
    if (cur === undefined) return undefined
    while (this.#parent.get(cur) !== cur) cur = this.#parent.get(cur) as string
    return this.#roots.get(cur)
  }

  merge(a: string, b: string): boolean {
    const r1 = this.makeSet(a)
    const r2 = this.makeSet(b)
    if (r1 === r2) return true
    // A live var stays the representative.
    const [root, child] = this.live.has(r1.key) ? [r1, r2] : [r2, r1]
    if (root.constant && child.constant && !sameTerm(root.constant, child.constant)) return false
    root.constant ??= child.constant
    this.#parent.set(child.key, root.key)
    this.#roots.delete(child.key)
    return true
  }
}

function disjointSets(live: ReadonlySet<string>, query: Body): UnionFind | undefined {
  const uf = new UnionFind(live)
  for (const expr of query) {
    const terms = expr.terms
    if (!Array.isArray(terms) || expr.negated || (expr.with && expr.with.length > 0)) continue
    if (!isEqOperator(terms[0]) || terms.length !== 3) continue
    const a = terms[1] as Term
    const b = terms[2] as Term
    if (a.type === 'var' && b.type === 'var') {
      if (!uf.merge(a.value, b.value)) return undefined
    } else if (a.type === 'var' && isConstant(b)) {
      const root = uf.makeSet(a.value)
      if (root.constant && !sameTerm(root.constant, b)) return undefined
      root.constant = b
    } else if (b.type === 'var' && isConstant(a)) {
      const root = uf.makeSet(b.value)
      if (root.constant && !sameTerm(root.constant, a)) return undefined
      root.constant = a
    }
  }
  return uf
}
