/**
 * Term and expression helpers for copy propagation (copy-propagation.ts, residual-locals.ts):
 * structural equality, walks, the vars a term or expression reads or binds, and containment. The
 * roots `input` and `data` are never vars of a residual.
 */
import type { Body, Expr, Term } from '../syntax/ast.js'
import { strictTerms } from './negation-definedness.js'

/** Roots that are documents, not vars. */
export const RESERVED: ReadonlySet<string> = new Set(['input', 'data'])

/** The `eq` operator of a unification. */
export function isEqOperator(t: Term | undefined): boolean {
  return t?.type === 'ref' && t.value.length === 1 && t.value[0]?.type === 'var' && t.value[0].value === 'eq'
}

/** True when `t` holds no var but the roots `input` and `data`. */
export function isGround(t: Term): boolean {
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

export function refOutputVars(ref: Extract<Term, { type: 'ref' }>): Set<string> {
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

export function walk(expr: Expr, f: (t: Term) => void): void {
  const terms = expr.terms
  if (Array.isArray(terms)) for (const t of terms) walkTerm(t, f)
  else if (terms.type === 'every') walkTerm(terms.domain, f)
  else if (terms.type === 'not') for (const e of terms.body) walk(e, f)
  else if (terms.type !== 'somedecl' && terms.type !== 'and' && terms.type !== 'or') walkTerm(terms, f)
  for (const w of expr.with ?? []) walkTerm(w.value, f)
}

// Vars a safety check looks at: not call operators, not inside comprehensions.
export function bodyVars(body: Body): Set<string> {
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
export function addOutputVars(
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
export function containedIn(value: Term, body: Body, strict = false): boolean {
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
