/**
 * ResolveRefs: rewrites references to rules of the same package and to imports into fully
 * qualified `data`/`input` refs (`bar[_]` with `import data.foo.bar` becomes `data.foo.bar[_]`;
 * `p` becomes `data.pkg.p`). Local declarations (`:=`, `some`, function args, `every` vars) shadow
 * globals. In strict mode, unused imports are errors.
 */
import { compileError } from '../../errors.js'
import type { Body, Expr, Import, Module, Package, Rule, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { groundPrefix, isAssignment, isSomeDecl, refTerm, stringTerm, termKey } from '../terms.js'
import { collectVars } from '../vars.js'

/** A global name and whether anything used it (for strict unused-import errors). */
interface Global {
  ref: Term[]
  used: boolean
}

type Globals = Map<string, Global>

/** Stack of sets of locally declared names that shadow globals. */
export class DeclaredVarStack {
  readonly #sets: Set<string>[] = []
  push(s: Set<string>): void {
    this.#sets.push(s)
  }
  pop(): void {
    this.#sets.pop()
  }
  has(v: string): boolean {
    for (let i = this.#sets.length - 1; i >= 0; i--) if (this.#sets[i]?.has(v)) return true
    return false
  }
}

/** The stage. */
export function resolveAllRefs(c: Compiler): void {
  // Each package's rule prefixes, once each (keyed, so 10,000 rules in a package stay linear).
  const exports = new Map<string, Map<string, Term[]>>()
  for (const m of c.sortedModules()) {
    const key = termKey(refTerm(m.package.path))
    let prefixes = exports.get(key)
    if (!prefixes) {
      prefixes = new Map()
      exports.set(key, prefixes)
    }
    for (const rule of m.rules) {
      const prefix = groundPrefix(rule.head.ref)
      const prefixKey = termKey(refTerm(prefix))
      if (!prefixes.has(prefixKey)) prefixes.set(prefixKey, prefix)
    }
  }
  for (const name of c.sorted) {
    const mod = c.modules.get(name) as Module
    const globals = getGlobals(
      mod.package,
      [...(exports.get(termKey(refTerm(mod.package.path)))?.values() ?? [])],
      mod.imports,
    )
    for (const rule of mod.rules) {
      let parentArgs: Term[] | undefined
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const err = resolveRefsInRule(globals, r, parentArgs)
        if (err && !c.err(compileError(r.location, err))) return
        parentArgs = r.head.args ?? parentArgs
      }
    }
    if (c.options.strict) {
      for (const imp of mod.imports) {
        const root = imp.path.value[0]
        if (root?.type === 'var' && (root.value === 'future' || root.value === 'rego')) continue
        const g = globals.get(importName(imp))
        if (g && !g.used && !c.err(compileError(imp.location, `${importString(imp)} unused`))) return
      }
    }
    c.imports.set(name, mod.imports)
  }
}

/** The name an import binds: its alias, or the last element of its path. */
export function importName(imp: Import): string {
  if (imp.alias) return imp.alias
  const path = imp.path.value
  const last = path[path.length - 1]
  if (!last) return ''
  if (path.length === 1 && last.type === 'var') return last.value
  return last.type === 'string' ? last.value : last.type === 'var' ? last.value : ''
}

function importString(imp: Import): string {
  const path = imp.path.value
    .map((t, i) =>
      i === 0 && t.type === 'var'
        ? t.value
        : t.type === 'string'
          ? /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)
            ? `.${t.value}`
            : `[${JSON.stringify(t.value)}]`
          : '',
    )
    .join('')
  return imp.alias ? `import ${path} as ${imp.alias}` : `import ${path}`
}

/** Globals of a module: its rules (by first head var) and its imports. */
export function getGlobals(pkg: Package | undefined, rules: Term[][], imports: Import[]): Globals {
  const globals: Globals = new Map()
  if (pkg) {
    for (const ref of rules) {
      const head = ref[0]
      if (head?.type !== 'var') continue
      globals.set(head.value, { ref: [...pkg.path, stringTerm(head.value)], used: false })
    }
  }
  for (const imp of imports) {
    const root = imp.path.value[0]
    if (root?.type === 'var' && (root.value === 'future' || root.value === 'rego')) continue
    globals.set(importName(imp), { ref: imp.path.value, used: false })
  }
  return globals
}

function resolveRefsInRule(globals: Globals, rule: Rule, parentArgs: Term[] | undefined): string | undefined {
  const args = rule.head.args ?? parentArgs
  const vars = new Set<string>()
  let err: string | undefined
  const visitArg = (t: Term): void => {
    if (err) return
    switch (t.type) {
      case 'var':
        vars.add(t.value)
        return
      case 'object':
        for (const [, v] of t.value) visitArg(v)
        return
      case 'ref':
        if (isRootDocRef(t)) {
          err = `args must not shadow ${(t.value[0] as { value: string }).value} (use a different variable name)`
          return
        }
        for (const x of t.value) visitArg(x)
        return
      case 'array':
        for (const x of t.value) visitArg(x)
        return
    }
  }
  for (const a of args ?? []) visitArg(a)
  if (err) return err
  const ignore = new DeclaredVarStack()
  ignore.push(vars)
  ignore.push(declaredVars(rule.body))
  const ref = rule.head.ref
  for (let i = 1; i < ref.length; i++) ref[i] = resolveRefsInTerm(globals, ignore, ref[i] as Term)
  if (rule.head.key) rule.head.key = resolveRefsInTerm(globals, ignore, rule.head.key)
  if (rule.head.value) rule.head.value = resolveRefsInTerm(globals, ignore, rule.head.value)
  rule.body = resolveRefsInBody(globals, ignore, rule.body)
  return undefined
}

/** True for the refs `input` and `data` (a bare root document). */
export function isRootDocRef(t: Term): boolean {
  if (t.type === 'var') return t.value === 'input' || t.value === 'data'
  if (t.type !== 'ref' || t.value.length !== 1) return false
  const h = t.value[0]
  return h?.type === 'var' && (h.value === 'input' || h.value === 'data')
}

/** Vars declared in a body by `:=` or `some` (not descending into closures). */
export function declaredVars(body: Body): Set<string> {
  const out = new Set<string>()
  for (const expr of body) declaredVarsInExpr(expr, out)
  return out
}

function declaredVarsInExpr(expr: Expr, out: Set<string>): void {
  if (isAssignment(expr)) {
    collectVars((expr.terms as Term[])[1] as Term, {}, out)
  } else if (isSomeDecl(expr)) {
    for (const s of expr.terms.symbols) {
      if (s.type === 'var') out.add(s.value)
      else if (s.type === 'call') {
        const args = s.value.slice(1)
        if (args.length === 3) collectVars(args[1] as Term, {}, out)
        collectVars(args[0] as Term, {}, out)
      }
    }
  }
}

/** Resolves refs in each expression of a body (returns new expressions). */
export function resolveRefsInBody(globals: Globals, ignore: DeclaredVarStack, body: Body): Body {
  return body.map((e) => resolveRefsInExpr(globals, ignore, e))
}

function resolveRefsInExpr(globals: Globals, ignore: DeclaredVarStack, expr: Expr): Expr {
  const cpy: Expr = { ...expr }
  const ts = expr.terms
  if (Array.isArray(ts)) {
    cpy.terms = ts.map((t) => resolveRefsInTerm(globals, ignore, t))
  } else if (ts.type === 'somedecl') {
    const first = ts.symbols[0]
    if (first?.type === 'call') {
      cpy.terms = { ...ts, symbols: [resolveRefsInTerm(globals, ignore, first)] }
    }
  } else if (ts.type === 'every') {
    const locals = new Set<string>()
    if (ts.key) collectVars(ts.key, {}, locals)
    collectVars(ts.value, {}, locals)
    ignore.push(locals)
    cpy.terms = {
      ...ts,
      domain: resolveRefsInTerm(globals, ignore, ts.domain),
      body: resolveRefsInBody(globals, ignore, ts.body),
    }
    ignore.pop()
  } else if (ts.type === 'not') {
    cpy.terms = { ...ts, body: resolveRefsInBody(globals, ignore, ts.body) }
  } else if (ts.type === 'and' || ts.type === 'or') {
    const lhs = resolveRefsInBody(globals, ignore, ts.lhs)
    cpy.terms = { ...ts, lhs, rhs: resolveRefsInBody(globals, ignore, ts.rhs) }
  } else {
    cpy.terms = resolveRefsInTerm(globals, ignore, ts)
  }
  if (expr.with) {
    cpy.with = expr.with.map((w) => ({
      ...w,
      target: resolveRefsInTerm(globals, ignore, w.target),
      value: resolveRefsInTerm(globals, ignore, w.value),
    }))
  }
  return cpy
}

/** Resolves refs in one term (returns a new term when anything changed). */
export function resolveRefsInTerm(globals: Globals, ignore: DeclaredVarStack, term: Term): Term {
  switch (term.type) {
    case 'var': {
      const g = globals.get(term.value)
      if (g && !ignore.has(term.value)) {
        g.used = true
        return refTerm(relocate(g.ref, term), term.location)
      }
      return term
    }
    case 'ref':
      return { ...term, value: resolveRef(globals, ignore, term.value) }
    case 'object':
      return {
        ...term,
        value: term.value.map(
          ([k, v]) =>
            [resolveRefsInTerm(globals, ignore, k), resolveRefsInTerm(globals, ignore, v)] as [Term, Term],
        ),
      }
    case 'array':
    case 'set':
    case 'call':
      return { ...term, value: term.value.map((t) => resolveRefsInTerm(globals, ignore, t)) } as Term
    case 'arraycomprehension':
    case 'setcomprehension': {
      ignore.push(declaredVars(term.value.body))
      const out = {
        ...term,
        value: {
          term: resolveRefsInTerm(globals, ignore, term.value.term),
          body: resolveRefsInBody(globals, ignore, term.value.body),
        },
      }
      ignore.pop()
      return out
    }
    case 'objectcomprehension': {
      ignore.push(declaredVars(term.value.body))
      const out = {
        ...term,
        value: {
          key: resolveRefsInTerm(globals, ignore, term.value.key),
          value: resolveRefsInTerm(globals, ignore, term.value.value),
          body: resolveRefsInBody(globals, ignore, term.value.body),
        },
      }
      ignore.pop()
      return out
    }
    case 'templatestring':
      return {
        ...term,
        value: {
          ...term.value,
          parts: term.value.parts.map((p) => (p.type === 'expr' ? resolveRefsInExpr(globals, ignore, p) : p)),
        },
      }
    default:
      return term
  }
}

function resolveRef(globals: Globals, ignore: DeclaredVarStack, ref: Term[]): Term[] {
  let out: Term[] = []
  for (const [i, x] of ref.entries()) {
    if (x.type === 'var') {
      const g = globals.get(x.value)
      if (g && !ignore.has(x.value)) {
        g.used = true
        const cpy = relocate(g.ref, x)
        if (i === 0) out = cpy
        else out.push(refTerm(cpy, x.location))
        continue
      }
      out.push(x)
    } else if (
      x.type === 'ref' ||
      x.type === 'array' ||
      x.type === 'object' ||
      x.type === 'set' ||
      x.type === 'call' ||
      x.type === 'arraycomprehension' ||
      x.type === 'setcomprehension' ||
      x.type === 'objectcomprehension'
    ) {
      out.push(resolveRefsInTerm(globals, ignore, x))
    } else {
      out.push(x)
    }
  }
  return out
}

function relocate(ref: Term[], at: Term): Term[] {
  return ref.map((t) => {
    const c = { ...t }
    if (at.location) c.location = at.location
    return c
  })
}

/** Full rule refs exported by a module, for query contexts. */
export function exportsOf(modules: Module[], pkg: Package): Term[][] {
  const key = termKey(refTerm(pkg.path))
  const out: Term[][] = []
  for (const m of modules) {
    if (termKey(refTerm(m.package.path)) !== key) continue
    for (const rule of m.rules) {
      const prefix = groundPrefix(rule.head.ref)
      if (!out.some((r) => termKey(refTerm(r)) === termKey(refTerm(prefix)))) out.push(prefix)
    }
  }
  return out
}
