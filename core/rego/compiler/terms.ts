/**
 * Small constructors and predicates over AST terms that every compiler stage uses. They mirror the
 * helpers OPA's `ast` package hangs off `Term`/`Ref` (IsGround, IsConstant, GroundPrefix, ...), so the
 * stages read like OPA's compiler, which is the behavioural spec.
 */
import type {
  Body,
  Every,
  Expr,
  Location,
  LogicalExpr,
  NotBody,
  ObjectTerm,
  RefTerm,
  SomeDecl,
  Term,
  VarTerm,
  With,
} from '../syntax/ast.js'
import { isTerm, WILDCARD_PREFIX } from '../syntax/ast.js'

/** Prefix of compiler-generated local variables, as OPA names them. */
export const LOCAL_VAR_PREFIX = '__local'

/** The root documents a ref can start with. */
export const ROOT_DOCUMENTS: ReadonlySet<string> = new Set(['data', 'input'])

/** A var term. */
export function varTerm(name: string, location?: Location): VarTerm {
  return location ? { type: 'var', value: name, location } : { type: 'var', value: name }
}

/** A string term. */
export function stringTerm(value: string, location?: Location): Term {
  return location ? { type: 'string', value, location } : { type: 'string', value }
}

/** A boolean term. */
export function booleanTerm(value: boolean, location?: Location): Term {
  return location ? { type: 'boolean', value, location } : { type: 'boolean', value }
}

/** A ref term over `parts`. */
export function refTerm(parts: Term[], location?: Location): RefTerm {
  return location ? { type: 'ref', value: parts, location } : { type: 'ref', value: parts }
}

/** The operator term of a builtin call, such as `eq` or `internal.member_2`. */
export function operatorTerm(name: string, location?: Location): RefTerm {
  const [head, ...rest] = name.split('.')
  return refTerm([varTerm(head ?? name, location), ...rest.map((s) => stringTerm(s, location))], location)
}

/** A generated `a = b` expression. */
export function equalityExpr(a: Term, b: Term, location?: Location): Expr {
  const expr: Expr = { type: 'expr', index: 0, terms: [operatorTerm('eq', location), a, b], generated: true }
  if (location) expr.location = location
  return expr
}

/** A call expression `operator(args...)`. */
export function callExpr(operator: Term, args: Term[], location?: Location): Expr {
  const expr: Expr = { type: 'expr', index: 0, terms: [operator, ...args] }
  if (location) expr.location = location
  return expr
}

/** A body made of one `true` expression (OPA never keeps empty bodies). */
export function trueBody(location?: Location): Body {
  const expr: Expr = { type: 'expr', index: 0, terms: booleanTerm(true, location) }
  if (location) expr.location = location
  return [expr]
}

/** True for wildcard vars (`_`, renamed `$0`, `$1`, ... by the parser). */
export function isWildcard(name: string): boolean {
  return name.startsWith(WILDCARD_PREFIX)
}

/** True for vars the compiler generated (`__local3__`) or wildcards. */
export function isGeneratedVar(name: string): boolean {
  return name.startsWith(LOCAL_VAR_PREFIX)
}

/** OPA's order of term kinds, the first key when it sorts values and refs. */
export const TERM_TYPE_ORDER: Readonly<Record<string, number>> = {
  null: 0,
  boolean: 1,
  number: 2,
  string: 3,
  var: 4,
  ref: 5,
  array: 6,
  object: 7,
  set: 8,
  arraycomprehension: 9,
  objectcomprehension: 10,
  setcomprehension: 11,
  call: 12,
  templatestring: 13,
}

/** True for scalar terms (null, booleans, numbers, strings). */
export function isScalar(t: Term): boolean {
  return t.type === 'null' || t.type === 'boolean' || t.type === 'number' || t.type === 'string'
}

/** True for comprehension terms. */
export function isComprehension(t: Term): boolean {
  return t.type === 'arraycomprehension' || t.type === 'setcomprehension' || t.type === 'objectcomprehension'
}

/** True when the expression is `a = b` (three terms, operator `eq`). */
export function isEquality(expr: Expr): boolean {
  const terms = expr.terms
  return Array.isArray(terms) && terms.length === 3 && isOperator(terms[0], 'eq')
}

/** True when the expression is `a := b`. */
export function isAssignment(expr: Expr): boolean {
  const terms = expr.terms
  return Array.isArray(terms) && terms.length === 3 && isOperator(terms[0], 'assign')
}

/** True when `t` is the operator ref of builtin `name` (e.g. `eq`, `internal.member_2`). */
export function isOperator(t: Term | undefined, name: string): boolean {
  return t !== undefined && refName(t) === name
}

/** The dotted name of a ref made of a var and strings (`io.jwt.decode`), else undefined. */
export function refName(t: Term): string | undefined {
  if (t.type === 'var') return t.value
  if (t.type !== 'ref') return undefined
  let out = ''
  for (const [i, part] of t.value.entries()) {
    if (i === 0) {
      if (part.type !== 'var') return undefined
      out = part.value
    } else {
      if (part.type !== 'string') return undefined
      out += `.${part.value}`
    }
  }
  return out
}

/** True when the expression holds a `some` declaration. */
export function isSomeDecl(expr: Expr): expr is Expr & { terms: SomeDecl } {
  const t = expr.terms
  return !Array.isArray(t) && t.type === 'somedecl'
}

/** True when the expression holds an `every`. */
export function isEvery(expr: Expr): expr is Expr & { terms: Every } {
  const t = expr.terms
  return !Array.isArray(t) && t.type === 'every'
}

/** The single term of a term expression, or undefined. */
export function exprTerm(expr: Expr): Term | undefined {
  const t = expr.terms
  return !Array.isArray(t) && isTerm(t) ? t : undefined
}

/** The operands of a call expression (everything after the operator). */
export function operands(expr: Expr): Term[] {
  return Array.isArray(expr.terms) ? expr.terms.slice(1) : []
}

/** True when `t` contains no vars (refs are ground when all their parts are). */
export function isGround(t: Term): boolean {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true
    case 'var':
      return false
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      return t.value.every(isGround)
    case 'object':
      return t.value.every(([k, v]) => isGround(k) && isGround(v))
    default:
      return false
  }
}

/** True when `t` contains no vars, refs, calls or comprehensions: a literal value. */
export function isConstant(t: Term): boolean {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true
    case 'array':
    case 'set':
      return t.value.every(isConstant)
    case 'object':
      return t.value.every(([k, v]) => isConstant(k) && isConstant(v))
    default:
      return false
  }
}

/** The longest prefix of a ref whose parts (after the head) are ground. */
export function groundPrefix(ref: Term[]): Term[] {
  let i = 1
  while (i < ref.length && isGround(ref[i] as Term)) i++
  return ref.slice(0, i)
}

/** True when any part of `t` (deeply, including closures) is a ref. */
export function containsRefs(t: Term): boolean {
  return someTerm(t, (x) => x.type === 'ref')
}

/** True when `t` contains a comprehension anywhere. */
export function containsComprehensions(t: Term): boolean {
  return someTerm(t, isComprehension)
}

/** True when a head term needs evaluation (it holds refs or comprehensions). */
export function requiresEval(t: Term | undefined): boolean {
  return t !== undefined && (containsRefs(t) || containsComprehensions(t))
}

type Visitable = Term | Expr | Body | With | SomeDecl | Every | NotBody | LogicalExpr | Term[]

/**
 * Visits every term under `node` depth-first (into refs, composites, calls, comprehension bodies,
 * `every`, `some` and `with`). `f` returns true to skip the children of the term it was given.
 */
export function walkTerms(node: Visitable, f: (t: Term) => boolean | undefined): void {
  if (Array.isArray(node)) {
    for (const x of node) walkTerms(x, f)
    return
  }
  switch (node.type) {
    case 'expr': {
      const t = node.terms
      if (Array.isArray(t)) for (const x of t) walkTerms(x, f)
      else walkTerms(t, f)
      if (node.with) for (const w of node.with) walkTerms(w, f)
      return
    }
    case 'with':
      walkTerms(node.target, f)
      walkTerms(node.value, f)
      return
    case 'somedecl':
      for (const s of node.symbols) walkTerms(s, f)
      return
    case 'every':
      if (node.key) walkTerms(node.key, f)
      walkTerms(node.value, f)
      walkTerms(node.domain, f)
      walkTerms(node.body, f)
      return
    case 'not':
      walkTerms(node.body, f)
      return
    case 'and':
    case 'or':
      walkTerms(node.lhs, f)
      walkTerms(node.rhs, f)
      return
  }
  if (f(node)) return
  walkTermChildren(node, f)
}

function walkTermChildren(t: Term, f: (t: Term) => boolean | undefined): void {
  switch (t.type) {
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      for (const x of t.value) walkTerms(x, f)
      return
    case 'object':
      for (const [k, v] of t.value) {
        walkTerms(k, f)
        walkTerms(v, f)
      }
      return
    case 'arraycomprehension':
    case 'setcomprehension':
      walkTerms(t.value.term, f)
      walkTerms(t.value.body, f)
      return
    case 'objectcomprehension':
      walkTerms(t.value.key, f)
      walkTerms(t.value.value, f)
      walkTerms(t.value.body, f)
      return
    case 'templatestring':
      for (const p of t.value.parts) walkTerms(p, f)
      return
  }
}

/** True when `pred` holds for some term under `node` (the walk stops descending once it does). */
export function someTerm(node: Visitable, pred: (t: Term) => boolean): boolean {
  let found = false
  walkTerms(node, (t) => {
    if (!found) found = pred(t)
    return found
  })
  return found
}

/** Visits every expression under `node`, including those inside closures. */
export function walkExprs(node: Visitable, f: (e: Expr) => boolean | undefined): void {
  if (Array.isArray(node)) {
    for (const x of node) walkExprs(x, f)
    return
  }
  if (node.type === 'expr') {
    if (f(node)) return
    const t = node.terms
    if (Array.isArray(t)) for (const x of t) walkExprs(x, f)
    else walkExprs(t, f)
    if (node.with) for (const w of node.with) walkExprs(w, f)
    return
  }
  switch (node.type) {
    case 'with':
      walkExprs(node.value, f)
      return
    case 'every':
      walkExprs(node.domain, f)
      walkExprs(node.body, f)
      return
    case 'not':
      walkExprs(node.body, f)
      return
    case 'and':
    case 'or':
      walkExprs(node.lhs, f)
      walkExprs(node.rhs, f)
      return
    case 'somedecl':
      for (const s of node.symbols) walkExprs(s, f)
      return
  }
  walkTerms(node, (t) => {
    switch (t.type) {
      case 'arraycomprehension':
      case 'setcomprehension':
        walkExprs(t.value.term, f)
        walkExprs(t.value.body, f)
        return true
      case 'objectcomprehension':
        walkExprs(t.value.key, f)
        walkExprs(t.value.value, f)
        walkExprs(t.value.body, f)
        return true
      case 'templatestring':
        for (const p of t.value.parts) walkExprs(p, f)
        return true
    }
    return false
  })
}

/** Object entries whose key equals `key` structurally. */
export function objectGet(obj: ObjectTerm, key: Term): Term | undefined {
  const k = termKey(key)
  for (const [ek, ev] of obj.value) if (termKey(ek) === k) return ev
  return undefined
}

/**
 * A canonical string for a term, ignoring locations: equal terms give equal keys. Used to compare
 * terms structurally and to key maps by ground terms (rule tree children, dedupe).
 */
export function termKey(t: Term): string {
  switch (t.type) {
    case 'null':
      return 'null'
    case 'boolean':
      return t.value ? 'true' : 'false'
    case 'number':
      return `n:${t.value}`
    case 'string':
      return JSON.stringify(t.value)
    case 'var':
      return `v:${t.value}`
    case 'ref':
      return `r(${t.value.map(termKey).join(',')})`
    case 'array':
      return `[${t.value.map(termKey).join(',')}]`
    case 'set':
      return `s{${t.value.map(termKey).sort().join(',')}}`
    case 'object':
      return `{${t.value
        .map(([k, v]) => `${termKey(k)}:${termKey(v)}`)
        .sort()
        .join(',')}}`
    case 'call':
      return `c(${t.value.map(termKey).join(',')})`
    default:
      return `${t.type}:${JSON.stringify(stripLocations(t))}`
  }
}

/** Structural term equality (locations ignored). */
export function termsEqual(a: Term, b: Term): boolean {
  return termKey(a) === termKey(b)
}

function stripLocations(x: unknown): unknown {
  return JSON.parse(JSON.stringify(x, (k, v) => (k === 'location' ? undefined : v)))
}
