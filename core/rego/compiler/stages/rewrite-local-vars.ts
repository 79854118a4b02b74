/**
 * RewriteLocalVars: gives every variable declared with `:=`, `some` or `every` (and every function
 * argument) a unique generated name, turns `:=` into `=`, and rejects redeclarations (`var x
 * assigned above`), assignment to non-vars, assignment inside `not`, and unused `some` vars. Scopes
 * follow OPA: each comprehension and `every` body opens a new one.
 */
import { compileError, type RegoError } from '../../errors.js'
import type { Body, Expr, NotBody, Rule, Term, With } from '../../syntax/ast.js'
import { copyExpr, copyTerm } from '../../syntax/copy.js'
import type { Compiler } from '../compiler.js'
import type { LocalVarGenerator } from '../local-vars.js'
import { outputVarsForExprEq } from '../safety.js'
import {
  booleanTerm,
  isAssignment,
  isEvery,
  isGeneratedVar,
  isScalar,
  isSomeDecl,
  isWildcard,
  operatorTerm,
  refTerm,
  walkTerms,
} from '../terms.js'
import { varsOf } from '../vars.js'
import { declaredVars, isRootDocRef } from './resolve-refs.js'

enum Occ {
  New = 0,
  Arg = 1,
  Seen = 2,
  Assigned = 3,
  Declared = 4,
}

class Scope {
  readonly vs = new Map<string, string>()
  readonly occurrence = new Map<string, Occ>()
  readonly count = new Map<string, number>()
}

/** The declared-variable scopes of one rule or query. */
export class LocalDeclaredVars {
  scopes: Scope[] = [new Scope()]
  /** generated → original */
  readonly rewritten = new Map<string, string>()

  push(): void {
    this.scopes.push(new Scope())
  }
  pop(): void {
    this.scopes.pop()
  }
  peek(): Scope {
    return this.scopes[this.scopes.length - 1] as Scope
  }
  insert(x: string, y: string, occ: Occ): void {
    const s = this.peek()
    s.vs.set(x, y)
    s.occurrence.set(x, occ)
    s.count.set(x, 1)
    if (x !== y) this.rewritten.set(y, x)
  }
  declared(x: string): string | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const y = this.scopes[i]?.vs.get(x)
      if (y !== undefined) return y
    }
    return undefined
  }
  occurrence(x: string): Occ {
    return this.peek().occurrence.get(x) ?? Occ.New
  }
  globalOccurrence(x: string): Occ | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const o = this.scopes[i]?.occurrence.get(x)
      if (o !== undefined) return o
    }
    return undefined
  }
  seen(x: string): void {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i] as Scope
      const c = s.count.get(x)
      if (c !== undefined) {
        s.count.set(x, c + 1)
        return
      }
    }
    this.peek().count.set(x, 1)
  }
  countOf(x: string): number {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const c = this.scopes[i]?.count.get(x)
      if (c !== undefined) return c
    }
    return 0
  }
  /** A flat copy (one scope holding everything), as OPA copies the args stack per rule. */
  copy(): LocalDeclaredVars {
    const out = new LocalDeclaredVars()
    const s = out.peek()
    for (const scope of this.scopes) {
      for (const [k, v] of scope.vs) s.vs.set(k, v)
      for (const [k, v] of scope.occurrence) s.occurrence.set(k, v)
      for (const [k, v] of scope.count) s.count.set(k, v)
    }
    for (const [k, v] of this.rewritten) out.rewritten.set(k, v)
    return out
  }
}

/** Rewrites local vars of one body in a fresh or given scope stack. */
export class LocalVarRewriter {
  readonly errors: RegoError[] = []

  constructor(
    readonly gen: LocalVarGenerator,
    readonly strict: boolean,
  ) {}

  /** `rewriteLocalVars`: returns the new body and the top scope's declarations. */
  rewriteBody(
    stack: LocalDeclaredVars,
    used: Set<string>,
    body: Body,
  ): { body: Body; declared: Map<string, string> } {
    const out = this.rewriteDeclaredVarsInBody(stack, used, body)
    return { body: out, declared: stack.peek().vs }
  }

  rewriteDeclaredVarsInBody(stack: LocalDeclaredVars, used: Set<string>, body: Body): Body {
    const cpy: Body = []
    for (const e of body) {
      let expr: Expr | undefined
      if (isAssignment(e)) expr = this.rewriteDeclaredAssignment(stack, e)
      else if (isSomeDecl(e)) expr = this.rewriteSomeDecl(stack, e)
      else if (isEvery(e)) expr = this.rewriteEvery(stack, e)
      else if (!Array.isArray(e.terms) && e.terms.type === 'not') expr = this.rewriteNotBody(stack, e)
      else expr = this.rewriteDeclaredVarsInExpr(stack, e)
      if (expr) cpy.push(expr)
    }
    if (cpy.length === 0) {
      const loc = body[0]?.location
      const t: Expr = { type: 'expr', index: 0, terms: booleanTerm(true, loc) }
      if (loc) t.location = loc
      cpy.push(t)
    }
    this.checkUnusedAssignedVars(body, stack, used)
    this.checkUnusedDeclaredVars(body, stack, used, cpy)
    return cpy
  }

  private checkUnusedAssignedVars(body: Body, stack: LocalDeclaredVars, used: Set<string>): void {
    if (!this.strict || this.errors.length > 0) return
    const scope = stack.peek()
    const rewrittenUsed = new Set<string>()
    for (const v of used) rewrittenUsed.add(stack.declared(v) ?? v)
    const unused: string[] = []
    for (const [v, occ] of scope.occurrence) {
      if (occ !== Occ.Assigned || isWildcard(v) || stack.countOf(v) > 1) continue
      const gv = scope.vs.get(v) as string
      if (!rewrittenUsed.has(gv)) unused.push(gv)
    }
    const reversed = new Map([...scope.vs].map(([k, v]) => [v, k]))
    for (const gv of unused.sort()) {
      const at = body.find((e) => varsOf(e).has(gv)) ?? body[0]
      this.errors.push(compileError(at?.location, `assigned var ${reversed.get(gv)} unused`))
    }
  }

  private checkUnusedDeclaredVars(body: Body, stack: LocalDeclaredVars, used: Set<string>, cpy: Body): void {
    if (this.errors.length > 0) return
    const scope = stack.peek()
    const declared: string[] = []
    for (const [v, occ] of scope.occurrence)
      if (occ === Occ.Declared) declared.push(scope.vs.get(v) as string)
    if (declared.length === 0) return
    const bodyVars = varsOf(cpy)
    for (const v of used) bodyVars.add(stack.declared(v) ?? v)
    const reversed = new Map([...scope.vs].map(([k, v]) => [v, k]))
    for (const gv of declared.filter((d) => !bodyVars.has(d) && !used.has(d)).sort()) {
      const rv = reversed.get(gv) as string
      if (isGeneratedVar(rv)) continue
      const at = body.find((e) => declaredVars([e]).has(rv)) ?? body[0]
      this.errors.push(compileError(at?.location, `declared var ${rv} unused`))
    }
  }

  private rewriteEvery(
    stack: LocalDeclaredVars,
    expr: Expr & { terms: { type: 'every' } },
  ): Expr | undefined {
    const e: Expr = copyExpr(expr)
    const every = e.terms as Extract<Expr['terms'], { type: 'every' }>
    this.rewriteTermRecursive(stack, every.domain)
    stack.push()
    try {
      if (every.key) {
        const k = every.key
        if (k.type === 'var' && !isWildcard(k.value)) {
          const gv = this.declare(stack, k.value, Occ.Declared, every.location)
          if (gv === undefined) return undefined
          k.value = gv
        }
      } else {
        every.key = this.gen.generateTerm(every.location)
      }
      const v = every.value
      if (v.type === 'var' && !isWildcard(v.value)) {
        const gv = this.declare(stack, v.value, Occ.Declared, every.location)
        if (gv === undefined) return undefined
        v.value = gv
      }
      every.body = this.rewriteDeclaredVarsInBody(stack, new Set(), every.body)
      return this.rewriteDeclaredVarsInExpr(stack, e)
    } finally {
      stack.pop()
    }
  }

  /**
   * `not { ... }`: the body is a scope of its own, so what it declares or assigns stays inside.
   * The implicit body of `not x := y` keeps the rule for negated expressions: no assignment.
   */
  private rewriteNotBody(stack: LocalDeclaredVars, expr: Expr): Expr | undefined {
    const e: Expr = copyExpr(expr)
    const not = e.terms as NotBody
    const only = not.body[0]
    if (!not.explicitBody && only && isAssignment(only)) {
      this.errors.push(compileError(e.location, 'cannot assign vars inside negated expression'))
      return e
    }
    stack.push()
    try {
      not.body = this.rewriteDeclaredVarsInBody(stack, new Set(), not.body)
    } finally {
      stack.pop()
    }
    for (const w of e.with ?? []) this.rewriteWith(stack, w)
    return e
  }

  private rewriteSomeDecl(
    stack: LocalDeclaredVars,
    expr: Expr & { terms: { type: 'somedecl' } },
  ): Expr | undefined {
    const e: Expr = copyExpr(expr)
    const decl = e.terms as Extract<Expr['terms'], { type: 'somedecl' }>
    for (const sym of decl.symbols) {
      if (sym.type === 'var') {
        if (this.declare(stack, sym.value, Occ.Declared, decl.location) === undefined) return undefined
        continue
      }
      if (sym.type !== 'call') continue
      const v = sym.value
      let key: Term
      let val: Term
      let container: Term
      if (v.length === 4) {
        key = v[1] as Term
        val = v[2] as Term
        container = v[3] as Term
      } else {
        key = this.gen.generateTerm(sym.location)
        val = v[1] as Term
        container = v[2] as Term
      }
      const rhs: Term =
        container.type === 'ref'
          ? refTerm([...container.value, key], container.location)
          : refTerm([container, key], container.location)
      e.terms = [operatorTerm('eq', sym.location), val, rhs]
      const outputs = outputVarsForExprEq(e, varsOf(container))
      for (const o of [...outputs].sort()) {
        if (this.declare(stack, o, Occ.Declared, decl.location) === undefined) return undefined
      }
      return this.rewriteDeclaredVarsInExpr(stack, e)
    }
    return undefined
  }

  private rewriteDeclaredAssignment(stack: LocalDeclaredVars, expr: Expr): Expr {
    if (expr.negated) {
      this.errors.push(compileError(expr.location, 'cannot assign vars inside negated expression'))
      return expr
    }
    const terms = expr.terms as Term[]
    if (terms.length !== 3) return expr
    const before = this.errors.length
    this.rewriteTermRecursive(stack, terms[2] as Term)
    for (const w of expr.with ?? []) this.rewriteTermRecursive(stack, w.value)
    const visit = (t: Term): boolean => {
      switch (t.type) {
        case 'var': {
          const gv = this.declare(stack, t.value, Occ.Assigned, t.location)
          if (gv !== undefined) t.value = gv
          return true
        }
        case 'array':
          return false
        case 'object':
          for (const [, v] of t.value) walkTerms(v, visit)
          return true
        case 'ref':
          if (isRootDocRef(t)) {
            const name = (t.value[0] as { value: string }).value
            const gv = this.declare(stack, name, Occ.Assigned, t.location)
            if (gv !== undefined) Object.assign(t, { type: 'var', value: gv })
            return true
          }
      }
      this.errors.push(compileError(t.location, `cannot assign to ${valueName(t)}`))
      return true
    }
    walkTerms(terms[1] as Term, visit)
    if (this.errors.length === before) {
      const op = terms[0] as Term
      terms[0] = operatorTerm('eq', op.location)
    }
    return expr
  }

  /** Walks an expression rewriting var occurrences (declared vars renamed, others marked seen). */
  rewriteDeclaredVarsInExpr(stack: LocalDeclaredVars, expr: Expr): Expr {
    const ts = expr.terms
    if (Array.isArray(ts)) {
      for (const t of ts) this.rewriteTermRecursive(stack, t)
    } else if (ts.type === 'every') {
      if (ts.key) this.rewriteTermRecursive(stack, ts.key)
      this.rewriteTermRecursive(stack, ts.value)
      this.rewriteTermRecursive(stack, ts.domain)
      for (const e of ts.body) this.rewriteDeclaredVarsInExpr(stack, e)
    } else if (ts.type === 'not') {
      for (const e of ts.body) this.rewriteDeclaredVarsInExpr(stack, e)
    } else if (ts.type === 'and' || ts.type === 'or') {
      for (const e of [...ts.lhs, ...ts.rhs]) this.rewriteDeclaredVarsInExpr(stack, e)
    } else if (ts.type === 'somedecl') {
      for (const s of ts.symbols) this.rewriteTermRecursive(stack, s)
    } else {
      this.rewriteTermRecursive(stack, ts)
    }
    for (const w of expr.with ?? []) this.rewriteWith(stack, w)
    return expr
  }

  private rewriteWith(stack: LocalDeclaredVars, w: With): void {
    this.rewriteTermRecursive(stack, w.target)
    const shadowed = stack.declared('input')
    if (shadowed !== undefined) {
      const t = w.target
      if (t.type === 'var' && t.value === shadowed) {
        Object.assign(t, { type: 'ref', value: [{ type: 'var', value: 'input' }] })
      } else if (t.type === 'ref' && t.value[0]?.type === 'var' && t.value[0].value === shadowed) {
        t.value[0].value = 'input'
      }
    }
    this.rewriteTermRecursive(stack, w.value)
  }

  /** OPA's rewriteDeclaredVarsInTermRecursive. */
  rewriteTermRecursive(stack: LocalDeclaredVars, term: Term): void {
    walkTerms(term, (t) => this.rewriteTerm(stack, t))
  }

  private rewriteTerm(stack: LocalDeclaredVars, term: Term): boolean {
    switch (term.type) {
      case 'var': {
        const gv = stack.declared(term.value)
        if (gv !== undefined) {
          stack.seen(term.value)
          term.value = gv
        } else if (stack.occurrence(term.value) === Occ.New) {
          stack.insert(term.value, term.value, Occ.Seen)
        }
        return true
      }
      case 'ref':
        if (isRootDocRef(term)) {
          const x = (term.value[0] as { value: string }).value
          const occ = stack.globalOccurrence(x)
          if (occ !== undefined && occ !== Occ.Seen) {
            const gv = stack.declared(x)
            if (gv !== undefined) Object.assign(term, { type: 'var', value: gv })
          }
          return true
        }
        return false
      case 'call': {
        const op = term.value[0]
        if (op) {
          for (const v of varsOf(op)) {
            const gv = stack.declared(v)
            if (gv !== undefined && gv !== v) {
              this.errors.push(compileError(term.location, `called function ${refText(op)} shadowed`))
              break
            }
          }
        }
        return false
      }
      case 'object':
        for (const [k, v] of term.value) {
          this.rewriteTermRecursive(stack, k)
          this.rewriteTermRecursive(stack, v)
        }
        return true
      case 'set':
        for (const x of term.value) this.rewriteTermRecursive(stack, x)
        return true
      case 'arraycomprehension':
      case 'setcomprehension': {
        const used = varsOf(term.value.term)
        stack.push()
        term.value.body = this.rewriteDeclaredVarsInBody(stack, used, term.value.body)
        this.rewriteTermRecursive(stack, term.value.term)
        stack.pop()
        return true
      }
      case 'objectcomprehension': {
        const used = varsOf(term.value.key)
        for (const v of varsOf(term.value.value)) used.add(v)
        stack.push()
        term.value.body = this.rewriteDeclaredVarsInBody(stack, used, term.value.body)
        this.rewriteTermRecursive(stack, term.value.key)
        this.rewriteTermRecursive(stack, term.value.value)
        stack.pop()
        return true
      }
      case 'templatestring':
        for (const p of term.value.parts) {
          if (p.type !== 'expr') continue
          stack.push()
          this.rewriteDeclaredVarsInExpr(stack, p)
          stack.pop()
        }
        return true
    }
    return false
  }

  /** OPA's rewriteDeclaredVar: a fresh name, or an error when `v` already occurs in this scope. */
  declare(stack: LocalDeclaredVars, v: string, occ: Occ, location: Term['location']): string | undefined {
    const msg = (
      {
        [Occ.Seen]: `var ${v} referenced above`,
        [Occ.Assigned]: `var ${v} assigned above`,
        [Occ.Declared]: `var ${v} declared above`,
        [Occ.Arg]: `arg ${v} redeclared`,
      } as Record<number, string>
    )[stack.occurrence(v)]
    if (msg) {
      this.errors.push(compileError(location, msg))
      return undefined
    }
    const gv = this.gen.generate()
    stack.insert(v, gv, occ)
    return gv
  }

  /** Renames the vars of function arguments (declared as args in `stack`). */
  rewriteArgs(stack: LocalDeclaredVars, args: Term[]): void {
    const visit = (t: Term): void => {
      switch (t.type) {
        case 'var': {
          let gv = stack.declared(t.value)
          if (gv !== undefined) stack.seen(t.value)
          else {
            gv = this.gen.generate()
            stack.insert(t.value, gv, Occ.Arg)
          }
          t.value = gv
          return
        }
        case 'object':
          for (const [, v] of t.value) visit(v)
          return
        case 'call':
          this.errors.push(compileError(t.location, 'rule arguments cannot contain calls'))
          return
        case 'ref':
        case 'array':
          for (const x of t.value) visit(x)
          return
      }
    }
    for (const a of args) visit(a)
  }
}

function valueName(t: Term): string {
  switch (t.type) {
    case 'arraycomprehension':
      return 'arraycomprehension'
    case 'setcomprehension':
      return 'setcomprehension'
    case 'objectcomprehension':
      return 'objectcomprehension'
    default:
      return t.type
  }
}

function refText(t: Term): string {
  if (t.type === 'var') return t.value
  if (t.type !== 'ref') return t.type
  return t.value
    .map((p, i) => (i === 0 && p.type === 'var' ? p.value : p.type === 'string' ? `.${p.value}` : ''))
    .join('')
}

/** The stage. */
export function rewriteLocalVars(c: Compiler): void {
  const rw = new LocalVarRewriter(c.localVarGen, c.options.strict)
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      const argsStack = new LocalDeclaredVars()
      const strictArgs = new Set<string>()
      if (c.options.strict && rule.head.args) for (const v of varsOf(rule.head.args)) strictArgs.add(v)
      if (rule.head.args) rw.rewriteArgs(argsStack, rule.head.args)
      for (let r: Rule | undefined = rule.else; r; r = r.else) {
        if (rule.head.args) r.head.args = rule.head.args.map(copyTerm)
      }
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const stack = rewriteLocalVarsInRule(rw, r, strictArgs, argsStack)
        for (const [k, v] of stack.rewritten) c.rewrittenVars.set(k, v)
        for (const arg of [...strictArgs]) if (stack.countOf(arg) > 1) strictArgs.delete(arg)
      }
      if (c.options.strict) {
        for (const arg of strictArgs) {
          if (isWildcard(arg)) continue
          rw.errors.push(
            compileError(
              rule.head.location,
              `unused argument ${arg}. (hint: use _ (wildcard variable) instead)`,
            ),
          )
        }
      }
      if (rw.errors.length > 0) {
        const errs = rw.errors.splice(0)
        if (!c.err(...errs)) return
      }
    }
  }
}

function headMayHaveVars(rule: Rule): boolean {
  const h = rule.head
  if (h.args?.some((a) => !isScalar(a))) return true
  if (h.key && !isScalar(h.key)) return true
  if (h.value && !isScalar(h.value)) return true
  return h.ref.slice(1).some((t) => !isScalar(t))
}

function rewriteLocalVarsInRule(
  rw: LocalVarRewriter,
  rule: Rule,
  unusedArgs: Set<string>,
  argsStack: LocalDeclaredVars,
): LocalDeclaredVars {
  const onlyScalars = !headMayHaveVars(rule)
  let used = new Set<string>()
  if (!onlyScalars) {
    rewriteNestedHeadClosures(rw, rule)
    for (const t of rule.head.ref.slice(1)) if (!isScalar(t)) for (const v of varsOf(t)) used.add(v)
    if (rule.head.key && !isScalar(rule.head.key)) for (const v of varsOf(rule.head.key)) used.add(v)
    if (rule.head.value && !isScalar(rule.head.value)) {
      const vv = varsOf(rule.head.value)
      for (const v of vv) used.add(v)
      for (const a of [...unusedArgs]) if (vv.has(a)) unusedArgs.delete(a)
    }
  } else {
    used = new Set()
  }
  const stack = argsStack.copy()
  const { body, declared } = rw.rewriteBody(stack, used, rule.body)
  rule.body = body
  if (onlyScalars) return stack
  const xform = (t: Term): void =>
    walkTerms(t, (x) => {
      if (x.type === 'var') {
        const gv = declared.get(x.value)
        if (gv !== undefined) x.value = gv
      }
      return false
    })
  for (const a of rule.head.args ?? []) xform(a)
  for (const t of rule.head.ref.slice(1)) xform(t)
  if (rule.head.key) xform(rule.head.key)
  if (rule.head.value) xform(rule.head.value)
  return stack
}

/** Comprehensions in a rule head get their own scopes before the body is rewritten. */
function rewriteNestedHeadClosures(rw: LocalVarRewriter, rule: Rule): void {
  const visit = (t: Term): boolean => {
    switch (t.type) {
      case 'arraycomprehension':
      case 'setcomprehension':
      case 'objectcomprehension':
      case 'templatestring': {
        const stack = new LocalDeclaredVars()
        rw.rewriteTermRecursive(stack, t)
        return true
      }
    }
    return false
  }
  const h = rule.head
  for (const t of [...h.ref.slice(1), ...(h.args ?? []), h.key, h.value]) if (t) walkTerms(t, visit)
}

/** Rewrites the local vars of an ad-hoc query; returns the new body and generated → user names. */
export function rewriteQueryLocalVars(
  gen: LocalVarGenerator,
  body: Body,
  strict: boolean,
): { body: Body; rewritten: Map<string, string>; errors: RegoError[] } {
  const rw = new LocalVarRewriter(gen, strict)
  const stack = new LocalDeclaredVars()
  const out = rw.rewriteBody(stack, new Set(), body)
  return { body: out.body, rewritten: new Map(stack.rewritten), errors: rw.errors }
}
