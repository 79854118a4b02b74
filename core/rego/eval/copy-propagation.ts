/**
 * Copy propagation on residual queries (OPA's `topdown/copypropagation`): partial evaluation leaves
 * chains such as `__local0__1 = input.x; __local0__1 > 1`; this removes the intermediate vars
 * (`input.x > 1`), folds calls whose output is used once into their use (`gt(equal(…), 0)`), and
 * keeps an equality only where it still binds a live var or makes a var safe.
 */
import { isConstant } from '../compiler/terms.js'
import type { Body, Expr, Location, Term } from '../syntax/ast.js'
import { strictTerms } from './negation-definedness.js'
import { eqOperator } from './partial-plug.js'

/** What copy propagation needs to know besides the query. */
export interface CopyPropagationOptions {
  /** Vars the caller reads after evaluation (query vars, unknown roots): never removed. */
  live: ReadonlySet<string>
  /** Arity of a call operator (built-in or function), or -1 when unknown. */
  arity: (operator: Term) => number
  /** Return `true` instead of an empty body (support rules, negations). */
  ensureNonEmpty?: boolean
}

const RESERVED: ReadonlySet<string> = new Set(['input', 'data'])

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
  const removed = new Map<string, Term>()
  // Where each removed binding was written: an equality put back below keeps that location, so an
  // error about it (a fragment check of the compile API) points at the expression in the policy.
  const removedAt = new Map<string, Location>()
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
            const key = `__localcp${cpVars++}__`
            removed.set(key, a)
            if (expr.location) removedAt.set(key, expr.location)
          }
          return false
        }
        const binding = eqBinding(a, b, live) ?? eqBinding(b, a, live)
        if (binding) {
          removed.set(binding[0], binding[1])
          if (expr.location) removedAt.set(binding[0], expr.location)
          return false
        }
      } else if (op && options.arity(op) === args.length - 1) {
        const output = args[args.length - 1] as Term
        if (output.type === 'var' && !live.has(output.value) && !headvars.has(output.value)) {
          removed.set(output.value, { type: 'call', value: [op, ...args.slice(0, -1)] })
          if (expr.location) removedAt.set(output.value, expr.location)
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
      result.push(eqExpr({ type: 'var', value: v }, removed.get(root.key) as Term, removedAt.get(root.key)))
    else if (root.key !== v) result.push(eqExpr({ type: 'var', value: v }, { type: 'var', value: root.key }))
  }

  // Removed equalities come back where they make a var safe or their value is read nowhere else.
  const safe = new Set<string>([...RESERVED, ...live])
  addOutputVars(result, safe, options.arity)
  let unsafe = new Set([...bodyVars(result)].filter((v) => !safe.has(v)))
  const sorted = [...removed.entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
  for (const [k, v] of sorted) {
    const eq = eqExpr({ type: 'var', value: k }, v, removedAt.get(k))
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
  location: Location | undefined
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
        bound.push({ name: local.value, value, location: expr.location })
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
      const eq = eqExpr({ type: 'var', value: b.name }, b.value, b.location)
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
    out.terms = { ...terms, domain: plugTerm(terms.domain, ctx) }
  } else if (terms.type === 'not') {
    out.terms = { ...terms, body: terms.body.map((e) => plugExpr(e, ctx)) }
  } else if (terms.type !== 'somedecl' && terms.type !== 'and' && terms.type !== 'or') {
    out.terms = plugTerm(terms, ctx)
  }
  if (expr.with) out.with = expr.with.map((w) => ({ ...w, value: plugTerm(w.value, ctx) }))
  return out
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

function eqExpr(a: Term, b: Term, location?: Location): Expr {
  const expr: Expr = { type: 'expr', index: 0, terms: [eqOperator(), a, b] }
  if (location) expr.location = location
  return expr
}

/** The `eq` operator of a unification. */
export function isEqOperator(t: Term | undefined): boolean {
  return t?.type === 'ref' && t.value.length === 1 && t.value[0]?.type === 'var' && t.value[0].value === 'eq'
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

// ---------------------------------------------------------------------------------------------
// Term helpers.

function isGround(t: Term): boolean {
  let ground = true
  walkTerm(t, (x) => {
    if (x.type === 'var' && !RESERVED.has(x.value)) ground = false
  })
  return ground
}

/** Structural equality of terms (locations ignored). */
export function sameTerm(a: Term, b: Term): boolean {
  if (a === b) return true
  if (a.type !== b.type) return false
  switch (a.type) {
    case 'null':
      return true
    case 'boolean':
    case 'number':
    case 'string':
    case 'var':
      return a.value === b.value
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      return sameTerms(a.value, (b as typeof a).value)
    case 'object': {
      const bv = (b as typeof a).value
      return (
        a.value.length === bv.length &&
        a.value.every(([k, v], i) => sameTerm(k, bv[i]![0]) && sameTerm(v, bv[i]![1]))
      )
    }
    default:
      return JSON.stringify(strip(a)) === JSON.stringify(strip(b))
  }
}

function sameTerms(a: readonly Term[], b: readonly Term[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!sameTerm(a[i] as Term, b[i] as Term)) return false
  return true
}

function strip(t: unknown): unknown {
  if (Array.isArray(t)) return t.map(strip)
  if (t && typeof t === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(t)) if (k !== 'location') out[k] = strip(v)
    return out
  }
  return t
}

function refOutputVars(ref: Extract<Term, { type: 'ref' }>): Set<string> {
  const out = new Set<string>()
  for (const p of ref.value.slice(1)) walkTerm(p, (x) => x.type === 'var' && out.add(x.value))
  return out
}

/** Calls `f` on every term of `t` (comprehension bodies included). */
function walkTerm(t: Term, f: (t: Term) => void): void {
  f(t)
  switch (t.type) {
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      for (const x of t.value) walkTerm(x, f)
      return
    case 'object':
      for (const [k, v] of t.value) {
        walkTerm(k, f)
        walkTerm(v, f)
      }
      return
    default:
      return
  }
}

function walk(expr: Expr, f: (t: Term) => void): void {
  const terms = expr.terms
  if (Array.isArray(terms)) for (const t of terms) walkTerm(t, f)
  else if (terms.type === 'every') walkTerm(terms.domain, f)
  else if (terms.type === 'not') for (const e of terms.body) walk(e, f)
  else if (terms.type !== 'somedecl' && terms.type !== 'and' && terms.type !== 'or') walkTerm(terms, f)
  for (const w of expr.with ?? []) walkTerm(w.value, f)
}

// Vars a safety check looks at: not call operators, not inside comprehensions.
function bodyVars(body: Body): Set<string> {
  const out = new Set<string>()
  for (const expr of body) {
    const terms = expr.terms
    const ts = Array.isArray(terms)
      ? terms.slice(1)
      : terms.type === 'every'
        ? [terms.domain]
        : terms.type === 'somedecl' || terms.type === 'not' || terms.type === 'and' || terms.type === 'or'
          ? []
          : [terms]
    for (const t of ts) collectVars(t, out)
  }
  return out
}

function collectVars(t: Term, out: Set<string>): void {
  switch (t.type) {
    case 'var':
      if (!RESERVED.has(t.value)) out.add(t.value)
      return
    case 'ref':
    case 'array':
    case 'set':
      for (const x of t.value) collectVars(x, out)
      return
    case 'call':
      for (const x of t.value.slice(1)) collectVars(x, out)
      return
    case 'object':
      for (const [k, v] of t.value) {
        collectVars(k, out)
        collectVars(v, out)
      }
      return
    default:
      return
  }
}

// Vars an expression binds once the vars in `safe` are bound; repeated until nothing changes.
function addOutputVars(
  body: Body,
  safe: Set<string>,
  arity: (op: Term) => number,
  out: Set<string> = safe,
): void {
  // Only expressions with a var can bind one: the fixpoint's passes skip the others (most of a
  // copy-propagated residual: `input.t.a == 1`).
  const candidates: Expr[] = []
  for (const expr of body) if (!expr.negated && exprHasVar(expr)) candidates.push(expr)
  for (let changed = candidates.length > 0; changed; ) {
    changed = false
    for (const expr of candidates) {
      for (const v of exprOutputVars(expr, safe, arity)) {
        if (!safe.has(v)) {
          safe.add(v)
          out.add(v)
          changed = true
        }
      }
    }
  }
}

// Called for every expression on every pass of addOutputVars: one Set per call, no closures
// (the Set-per-term version was a tenth of a 1,000-rule compile request, docs/performance.md).
function exprOutputVars(expr: Expr, safe: ReadonlySet<string>, arity: (op: Term) => number): Set<string> {
  const out = new Set<string>()
  const terms = expr.terms
  if (Array.isArray(terms)) {
    const args = terms.length - 1
    for (let i = 1; i <= args; i++) refPartVars(terms[i] as Term, out)
    const op = terms[0]
    if (isEqOperator(op) && args === 2) {
      const a = terms[1] as Term
      const b = terms[2] as Term
      if (allVarsSafe(b, safe)) collectVars(a, out)
      if (allVarsSafe(a, safe)) collectVars(b, out)
    } else if (op && args >= 1 && arity(op) === args - 1) {
      let inputsSafe = true
      for (let i = 1; i < args && inputsSafe; i++) inputsSafe = allVarsSafe(terms[i] as Term, safe)
      if (inputsSafe) collectVars(terms[args] as Term, out)
    }
  } else if (
    terms.type !== 'every' &&
    terms.type !== 'somedecl' &&
    terms.type !== 'not' &&
    terms.type !== 'and' &&
    terms.type !== 'or'
  ) {
    refPartVars(terms, out)
  }
  return out
}

/** True when some operand of `expr` has a var collectVars would report (exprOutputVars finds nothing else). */
function exprHasVar(expr: Expr): boolean {
  const terms = expr.terms
  if (Array.isArray(terms)) {
    for (let i = 1; i < terms.length; i++) if (termHasVar(terms[i] as Term)) return true
    return false
  }
  return true // other shapes take the general path
}

function termHasVar(t: Term): boolean {
  switch (t.type) {
    case 'var':
      return !RESERVED.has(t.value)
    case 'ref':
    case 'array':
    case 'set':
      for (const x of t.value) if (termHasVar(x)) return true
      return false
    case 'call': // the operator too (conservative: refPartVars walks it)
      for (const x of t.value) if (termHasVar(x)) return true
      return false
    case 'object':
      for (const [k, v] of t.value) if (termHasVar(k) || termHasVar(v)) return true
      return false
    default:
      return false
  }
}

/** The vars of every ref operand (`x` of `a[x]`), at any depth of `t` outside comprehensions. */
function refPartVars(t: Term, out: Set<string>): void {
  switch (t.type) {
    case 'ref':
      for (let i = 1; i < t.value.length; i++) collectVars(t.value[i] as Term, out)
      for (const x of t.value) refPartVars(x, out)
      return
    case 'array':
    case 'set':
    case 'call':
      for (const x of t.value) refPartVars(x, out)
      return
    case 'object':
      for (const [k, v] of t.value) {
        refPartVars(k, out)
        refPartVars(v, out)
      }
      return
    default:
      return
  }
}

/** True when every var collectVars would find in `t` is in `safe`. */
function allVarsSafe(t: Term, safe: ReadonlySet<string>): boolean {
  switch (t.type) {
    case 'var':
      return RESERVED.has(t.value) || safe.has(t.value)
    case 'ref':
    case 'array':
    case 'set':
      for (const x of t.value) if (!allVarsSafe(x, safe)) return false
      return true
    case 'call':
      for (let i = 1; i < t.value.length; i++) if (!allVarsSafe(t.value[i] as Term, safe)) return false
      return true
    case 'object':
      for (const [k, v] of t.value) if (!allVarsSafe(k, safe) || !allVarsSafe(v, safe)) return false
      return true
    default:
      return true
  }
}

/**
 * True when `value` occurs in `body` (a ref also when a longer ref starts with it); with `strict`,
 * only where the expression fails when `value` is undefined (see strictTerms).
 */
function containedIn(value: Term, body: Body, strict = false): boolean {
  for (const expr of body) {
    const parts = strict ? strictTerms(expr) : undefined
    if (parts) {
      for (const t of parts) if (termContains(t, value)) return true
    } else if (exprContains(expr, value)) return true
  }
  return false
}

// containedIn's walk over an expression (as `walk` visits it), without a closure per call.
function exprContains(expr: Expr, value: Term): boolean {
  const terms = expr.terms
  if (Array.isArray(terms)) {
    for (const t of terms) if (termContains(t, value)) return true
  } else if (terms.type === 'every') {
    if (termContains(terms.domain, value)) return true
  } else if (terms.type === 'not') {
    for (const e of terms.body) if (exprContains(e, value)) return true
  } else if (terms.type !== 'somedecl' && terms.type !== 'and' && terms.type !== 'or') {
    if (termContains(terms, value)) return true
  }
  for (const w of expr.with ?? []) if (termContains(w.value, value)) return true
  return false
}

// `parts` begins with `prefix` (a loop, not `every` with a closure: this runs for every removed binding
// against every kept expression of every residual).
function refStartsWith(parts: readonly Term[], prefix: readonly Term[]): boolean {
  if (prefix.length > parts.length) return false
  for (let i = 0; i < prefix.length; i++) if (!sameTerm(prefix[i] as Term, parts[i] as Term)) return false
  return true
}

// `t` or a term inside it (as walkTerm visits them) is `value`, or a longer ref starting with it.
function termContains(t: Term, value: Term): boolean {
  if (t.type === 'ref' && value.type === 'ref') {
    if (refStartsWith(t.value, value.value)) return true
  } else if (sameTerm(t, value)) return true
  switch (t.type) {
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      for (const x of t.value) if (termContains(x, value)) return true
      return false
    case 'object':
      for (const [k, v] of t.value) if (termContains(k, value) || termContains(v, value)) return true
      return false
    default:
      return false
  }
}
