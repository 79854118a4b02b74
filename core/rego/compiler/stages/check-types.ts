/**
 * CheckTypes: `rego_type_error`s for what is certainly wrong given the types regent infers
 * (compiler/type-inference.ts): a built-in argument whose type cannot overlap the declared one
 * (`count(x)` after `x := 1`: `count: invalid argument(s)`), and a ref into a value that cannot
 * have that key (`p.foo` where `p := 1`: `undefined ref: data.t.p.foo`). NOTE(regent): OPA
 * infers more (function arguments, partial objects, `data` schemas), so a policy regent accepts
 * may still be rejected by OPA, never the other way round. See docs/conformance.md.
 */
import { type RegoError, typeError } from '../../errors.js'
import type { Body, Expr, Term } from '../../syntax/ast.js'
import { overlaps, type Type, typeToString, unwrap } from '../../types/index.js'
import type { Compiler } from '../compiler.js'
import { isGeneratedVar, refName } from '../terms.js'
import { refString, termString } from '../text.js'
import { BodyTypes, RuleTypes } from '../type-inference.js'

/**
 * The rule types of a compiled module set, worked out once: queries compiled later against the
 * same modules (every compile request of the compile endpoint) reuse them.
 */
const ruleTypesByCompiler = new WeakMap<Compiler, RuleTypes>()

function ruleTypesOf(c: Compiler): RuleTypes {
  let rules = ruleTypesByCompiler.get(c)
  if (!rules) {
    rules = new RuleTypes(c)
    ruleTypesByCompiler.set(c, rules)
  }
  return rules
}

/** The stage. */
export function checkTypes(c: Compiler): void {
  const rules = ruleTypesOf(c)
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      for (let r: typeof rule | undefined = rule; r; r = r.else) {
        if (!c.err(...typeErrors(c, r.body, rules))) return
      }
    }
  }
}

/** The type errors of `body` (a rule body or a query). */
export function typeErrors(c: Compiler, body: Body, rules = ruleTypesOf(c)): RegoError[] {
  const checker = new BodyChecker(c, new BodyTypes(c, rules))
  checker.body(body)
  return checker.errors
}

/** Reads a body in order: checks each expression with the types known so far, then learns from it. */
class BodyChecker {
  readonly errors: RegoError[] = []
  readonly #compiler: Compiler
  readonly #types: BodyTypes

  constructor(compiler: Compiler, types: BodyTypes) {
    this.#compiler = compiler
    this.#types = types
  }

  body(body: Body): void {
    for (const expr of body) {
      this.#expr(expr)
      this.#types.learn(expr)
    }
  }

  #expr(expr: Expr): void {
    const terms = expr.terms
    if (Array.isArray(terms)) {
      const [op, ...args] = terms
      for (const arg of args) this.#term(arg, expr)
      if (op) this.#call(op, args, expr)
    } else if (terms.type === 'every') {
      this.#term(terms.domain, expr)
      this.#types.learn(expr)
      this.body(terms.body)
    } else if (terms.type === 'somedecl') {
      for (const symbol of terms.symbols) if (symbol.type === 'call') this.#term(symbol, expr)
    } else if (terms.type === 'not') {
      this.body(terms.body)
    } else {
      this.#term(terms, expr)
    }
    for (const w of expr.with ?? []) this.#term(w.value, expr)
  }

  /** Refs that cannot refer to anything, inside `term`; comprehension bodies are read in turn. */
  #term(term: Term, expr: Expr): void {
    switch (term.type) {
      case 'ref': {
        for (const part of term.value.slice(1)) this.#term(part, expr)
        const head = term.value[0] as Term
        if (head.type !== 'var') this.#term(head, expr)
        const { miss } = this.#types.refType(term.value)
        if (miss) this.#undefinedRef(term, miss.at, miss.have, expr)
        return
      }
      case 'array':
      case 'set':
        for (const x of term.value) this.#term(x, expr)
        return
      case 'object':
        for (const [k, v] of term.value) {
          this.#term(k, expr)
          this.#term(v, expr)
        }
        return
      case 'call':
        for (const x of term.value.slice(1)) this.#term(x, expr)
        this.#call(term.value[0] as Term, term.value.slice(1), expr)
        return
      default:
        if (term.type === 'arraycomprehension' || term.type === 'setcomprehension') {
          this.body(term.value.body)
          this.#term(term.value.term, expr)
        } else if (term.type === 'objectcomprehension') {
          this.body(term.value.body)
          this.#term(term.value.key, expr)
          this.#term(term.value.value, expr)
        }
    }
  }

  /** A built-in call whose argument types cannot overlap the declared ones. */
  #call(op: Term, args: Term[], expr: Expr): void {
    const decl = this.#types.builtinDecl(op)
    if (!decl) return
    const have = args.slice(0, decl.args.length).map((a) => this.#types.termType(a))
    const bad = have.some((type, i) => {
      const want = decl.args[i]
      return want !== undefined && !overlaps(type, want)
    })
    if (!bad) return
    this.errors.push(
      typeError(expr.location, `${refName(op)}: invalid argument(s)`, {
        have: `(${have.map(typeToString).join(', ')})`,
        want: `(${decl.args.map(typeToString).join(', ')})`,
      }),
    )
  }

  #undefinedRef(term: Term & { type: 'ref' }, at: number, have: Type, expr: Expr): void {
    // A ref on a value the compiler named (`f(x).foo` is `f(x, __local3__); __local3__.foo`)
    // has no name to show the user: left unreported rather than shown as `__local3__.foo`.
    const head = term.value[0] as Term
    if (head.type === 'var' && isGeneratedVar(head.value) && !this.#compiler.rewrittenVars.has(head.value))
      return
    const shown = term.value.map((p) =>
      p.type === 'var' ? { ...p, value: this.#compiler.rewrittenVars.get(p.value) ?? p.value } : p,
    )
    this.errors.push(
      typeError(
        term.location ?? expr.location,
        `undefined ref: ${refString(shown)}`,
        missDetails(term.value[at] as Term, have),
      ),
    )
  }
}

/**
 * What OPA prints under an undefined ref: the key and the keys an object has (`have: "kinds"`,
 * `want (one of): ["kind" "version"]`), or the type that has no keys (`have (type): number`).
 */
function missDetails(key: Term, have: Type): Record<string, string> {
  const x = unwrap(have)
  const objects = (x.kind === 'any' ? x.of.map(unwrap) : [x]).filter((m) => m.kind === 'object')
  const keys = [...new Set(objects.flatMap((o) => o.static.map((p) => JSON.stringify(p.key))))].sort()
  if (keys.length > 0) return { have: termString(key), 'want (one of)': `[${keys.join(' ')}]` }
  return { 'have (type)': typeToString(have) }
}
