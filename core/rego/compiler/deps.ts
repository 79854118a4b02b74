/**
 * Dependency analysis of a query, as OPA's `dependencies` package does for `opa deps`: the base
 * documents (data loaded from outside, and `input`) and the virtual documents (rules) a query
 * reads, found by walking the compiled rules reachable from it.
 *
 * The refs a body reads are found the way OPA's `ruleDeps` finds them: `x = ref` equalities are
 * joined, so `x = data.a; x.b > 1` depends on `data.a.b` and not on all of `data.a`; refs are
 * then cut at their first non-constant part (`data.a[x]` is `data.a`). Unlike OPA, the bodies of
 * a rule's `else` chain count as well (OPA reads only the first body of such a rule).
 */
import type { Body, Expr, Head, Rule, Term } from '../syntax/ast.js'
import type { Compiler } from './compiler.js'
import { compareUtf8, type RuleEntry, type RuleTreeNode, ruleRef } from './rule-tree.js'
import {
  groundPrefix,
  isConstant,
  isEquality,
  isWildcard,
  ROOT_DOCUMENTS,
  TERM_TYPE_ORDER,
  termKey,
  walkTerms,
} from './terms.js'
import { varsOf } from './vars.js'

/** A reference as a list of terms (`data.a.b` is `[var data, string a, string b]`). */
export type DependencyRef = Term[]

/** What a query depends on, each list sorted as OPA sorts refs and without duplicates. */
export interface QueryDependencies {
  /** Base documents: `input...` and `data...` refs that no rule defines. */
  base: DependencyRef[]
  /** Virtual documents: the rules (by their ground ref) the query reads, directly or not. */
  virtual: DependencyRef[]
}

// A var joined with more refs than this stops growing: `x = data.a; x = x.b` would grow forever.
const MAX_JOINED_REFS = 256

/**
 * The base and virtual documents `query` (a parsed, uncompiled body, as `opa deps` takes it)
 * depends on, through the rules of `compiler`.
 *
 * @example
 * const policy = compile({ 'p.rego': parseModule('package p\nallow if input.admin') })
 * queryDependencies(policy.compiler, parseQuery('data.p.allow'))
 * // base: [input.admin], virtual: [data.p.allow]
 */
export function queryDependencies(compiler: Compiler, query: Body): QueryDependencies {
  return { base: baseDependencies(compiler, query), virtual: virtualDependencies(compiler, query) }
}

function baseDependencies(compiler: Compiler, query: Body): DependencyRef[] {
  const out = new RefSet()
  const visited = new Set<Rule>()
  const visit = (refs: DependencyRef[]) => {
    for (const ref of refs) {
      const prefix = constantPrefix(ref)
      const rules = getRules(compiler, prefix)
      if (rules.length === 0) {
        out.add(prefix)
        continue
      }
      for (const entry of rules) {
        if (visited.has(entry.rule)) continue
        visited.add(entry.rule)
        visit(minimal(ruleRefs(entry.rule)))
      }
    }
  }
  visit(minimal(bodyRefs(query)))
  return dedup(out.values())
}

function virtualDependencies(compiler: Compiler, query: Body): DependencyRef[] {
  const out = new RefSet()
  const visited = new Set<Rule>()
  const visit = (refs: DependencyRef[]) => {
    for (const ref of refs) {
      for (const entry of getRules(compiler, constantPrefix(ref))) {
        if (visited.has(entry.rule)) continue
        visited.add(entry.rule)
        visit(minimal(ruleRefs(entry.rule)))
        out.add(groundPrefix(ruleRef(entry)))
      }
    }
  }
  visit(minimal(bodyRefs(query)))
  return dedup(out.values())
}

/** Refs a query body reads: every var of the body counts as an output (as OPA's `All`). */
function bodyRefs(body: Body): DependencyRef[] {
  const vars = [...varsOf(body)].filter((v) => !isWildcard(v))
  const head: Head = {
    type: 'head',
    ref: [{ type: 'var', value: '_' }],
    value: { type: 'array', value: vars.map((v) => ({ type: 'var', value: v })) },
  }
  return ruleDeps(head, body)
}

/** Refs a rule reads (its else chain included). */
function ruleRefs(rule: Rule): DependencyRef[] {
  const out: DependencyRef[] = []
  for (let r: Rule | undefined = rule; r; r = r.else) out.push(...ruleDeps(r.head, r.body))
  return out
}

/** OPA's `ruleDeps`: the root-document refs of one head and body, equalities joined. */
function ruleDeps(head: Head, body: Body): DependencyRef[] {
  const { vars, others } = extractEq(body)
  const joined = joinVarRefs(vars)
  const headVars = headVarsOf(head)
  const resolved: DependencyRef[] = []
  const resolveRef = (r: DependencyRef) => {
    resolved.push(...expandRef(r, joined))
  }
  const headRefs: DependencyRef[] = []
  const usedVars = new Set<string>()
  for (const expr of others) {
    const t = expr.terms
    if (!Array.isArray(t) && t.type === 'ref') {
      const last = t.value[t.value.length - 1]
      if (last?.type === 'var' && headVars.has(last.value)) {
        headRefs.push(...expandRef(t.value, joined))
        continue
      }
    }
    eachRef(expr, resolveRef)
    for (const v of varsOf(expr, { skipRefHead: true })) usedVars.add(v)
  }
  for (const r of headRefs) {
    if (!resolved.some((x) => hasPrefix(x, r))) resolved.push(r)
    eachNestedRef(r, resolveRef)
  }
  // Vars used inside refs (`data.a[x]`) count as used.
  eachRef(body, (r) => {
    for (let i = 1; i < r.length; i++) {
      const t = r[i] as Term
      if (t.type === 'var') usedVars.add(t.value)
    }
  })
  for (const [v, refs] of joined) {
    const whole = headVars.has(v) || refs.size > 1 || usedVars.has(v)
    for (const r of refs.values()) {
      if (whole) resolveRef(r)
      eachNestedRef(r, resolveRef)
    }
  }
  return resolved
}

/** Splits a body into `var = ref` equalities (by var) and the other expressions. */
function extractEq(body: Body): { vars: Map<string, DependencyRef[]>; others: Expr[] } {
  const vars = new Map<string, DependencyRef[]>()
  for (const v of varsOf(body)) vars.set(v, [])
  const others: Expr[] = []
  for (const expr of body) {
    if (!isEquality(expr)) {
      others.push(expr)
      continue
    }
    const [, left, right] = expr.terms as Term[]
    if (left?.type === 'var') {
      if (right?.type === 'ref') {
        vars.get(left.value)?.push(right.value)
        continue
      }
    } else if (right?.type === 'var' && left?.type === 'ref') {
      vars.get(right.value)?.push(left.value)
      continue
    }
    others.push(expr)
  }
  return { vars, others }
}

/** Each var's refs rewritten onto root documents (`y = x.b; x = data.a` gives y: data.a.b). */
function joinVarRefs(vars: Map<string, DependencyRef[]>): Map<string, RefSet> {
  const joined = new Map<string, RefSet>()
  for (const v of vars.keys()) joined.set(v, new RefSet())
  let done = false
  while (!done) {
    done = true
    for (const [v, refs] of vars) {
      const target = joined.get(v) as RefSet
      for (const r of refs) {
        const head = r[0]
        if (head?.type !== 'var') continue
        if (ROOT_DOCUMENTS.has(head.value)) {
          if (target.add(r)) done = false
          continue
        }
        for (const jr of joined.get(head.value)?.values() ?? []) {
          if (target.size >= MAX_JOINED_REFS) break
          if (target.add([...jr, ...r.slice(1)])) done = false
        }
      }
    }
  }
  return joined
}

/** A ref on a root document as is; a ref on a joined var as the var's refs extended by it. */
function expandRef(r: DependencyRef, joined: Map<string, RefSet>): DependencyRef[] {
  const head = r[0]
  if (head?.type !== 'var') return []
  if (ROOT_DOCUMENTS.has(head.value)) return [r]
  const refs = joined.get(head.value)
  if (!refs) return []
  return refs.values().map((jr) => [...jr, ...r.slice(1)])
}

/** OPA's `Head.Vars()`: vars of the arguments, key, value and ref operands. */
function headVarsOf(head: Head): Set<string> {
  const out = new Set<string>()
  const add = (t: Term | undefined) => {
    if (t) for (const v of varsOf(t)) out.add(v)
  }
  for (const a of head.args ?? []) add(a)
  add(head.key)
  add(head.value)
  for (const t of head.ref.slice(1)) add(t)
  return out
}

/** Calls `f` with every ref in `node`, nested ones included. */
function eachRef(node: Expr | Body, f: (r: DependencyRef) => void): void {
  walkTerms(node, (t) => {
    if (t.type === 'ref') f(t.value)
    return false
  })
}

/** Calls `f` with the refs nested inside the parts of `r` (not `r` itself). */
function eachNestedRef(r: DependencyRef, f: (r: DependencyRef) => void): void {
  for (const t of r) {
    walkTerms(t, (x) => {
      if (x.type === 'ref') f(x.value)
      return false
    })
  }
}

/** The refs, deduplicated, without those that extend another one (`data.a.b` goes when `data.a` is there). */
function minimal(refs: DependencyRef[]): DependencyRef[] {
  const sorted = dedup(refs)
  const out: DependencyRef[] = []
  let last: DependencyRef | undefined
  for (const r of sorted) {
    if (last && hasPrefix(r, last)) continue
    out.push(r)
    last = r
  }
  return out
}

/** The rules a constant ref refers to: rules on its path and every rule below it (OPA's `GetRules`). */
function getRules(compiler: Compiler, ref: DependencyRef): RuleEntry[] {
  const head = ref[0]
  if (head?.type !== 'var' || head.value !== 'data') return []
  const out = new Set<RuleEntry>()
  let node: RuleTreeNode | undefined = compiler.ruleTree
  for (let i = 1; i < ref.length && node; i++) {
    node = node.child(ref[i] as Term)
    if (node && node.rules.length > 0) {
      for (const r of node.rules) out.add(r)
      break
    }
  }
  const below = compiler.ruleTree.lookup(ref.slice(1))
  const collect = (n: RuleTreeNode) => {
    for (const r of n.rules) out.add(r)
    for (const c of n.children.values()) if (!c.hidden) collect(c)
  }
  if (below) collect(below)
  return [...out]
}

/** The ref up to its first part that is not a constant (`data.a[x].b` is `data.a`). */
function constantPrefix(ref: DependencyRef): DependencyRef {
  let i = 1
  while (i < ref.length && isConstant(ref[i] as Term)) i++
  return ref.slice(0, i)
}

function hasPrefix(ref: DependencyRef, prefix: DependencyRef): boolean {
  if (prefix.length > ref.length) return false
  return prefix.every((t, i) => termKey(t) === termKey(ref[i] as Term))
}

/** Sorted as OPA's `RefCompare`, equal refs once. */
function dedup(refs: Iterable<DependencyRef>): DependencyRef[] {
  const sorted = [...refs].sort(compareRefs)
  return sorted.filter((r, i) => i === 0 || compareRefs(sorted[i - 1] as DependencyRef, r) !== 0)
}

function compareRefs(a: DependencyRef, b: DependencyRef): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const c = compareTerms(a[i] as Term, b[i] as Term)
    if (c !== 0) return c
  }
  return a.length - b.length
}

/** OPA's term order: by kind, then by value (strings by UTF-8 bytes, numbers numerically). */
function compareTerms(a: Term, b: Term): number {
  const ta = TERM_TYPE_ORDER[a.type] ?? 99
  const tb = TERM_TYPE_ORDER[b.type] ?? 99
  if (ta !== tb) return ta - tb
  if (a.type === 'boolean' && b.type === 'boolean') return Number(a.value) - Number(b.value)
  if (a.type === 'number' && b.type === 'number') return Number(a.value) - Number(b.value)
  if ((a.type === 'string' || a.type === 'var') && (b.type === 'string' || b.type === 'var'))
    return compareUtf8(a.value, b.value)
  if ((a.type === 'ref' || a.type === 'array' || a.type === 'call') && a.type === b.type)
    return compareRefs(a.value, b.value as Term[])
  return compareUtf8(termKey(a), termKey(b))
}

/** Refs keyed by their text, in insertion order. */
class RefSet {
  readonly #refs = new Map<string, DependencyRef>()

  get size(): number {
    return this.#refs.size
  }

  /** Adds `r`; true when it was not there yet. */
  add(r: DependencyRef): boolean {
    const key = r.map(termKey).join('\u0001')
    if (this.#refs.has(key)) return false
    this.#refs.set(key, r)
    return true
  }

  values(): DependencyRef[] {
    return [...this.#refs.values()]
  }
}
