/**
 * The type checker of one body (a rule's, a function's or a query's): reads it in order, checks
 * each expression with the types known so far (compiler/type-inference.ts), then learns from it.
 * It reports, with OPA's message and detail lines, a built-in or user function argument whose type
 * cannot overlap the one it takes (`upper: invalid argument(s)`), a `match error` between the two
 * sides of `=`/`:=` (rule-body `==` included), a function used as a value or a rule called as one,
 * a ref into a value that cannot have that key (`undefined ref: data.t.p.foo`), and a function
 * replaced by a function of another arity or argument types (`count: arity mismatch`).
 * compiler/rule-types.ts runs it on every rule body (a rule whose body has an error is typed
 * `any`, as OPA types it); stages/check-types.ts reports what it found.
 */
import { type RegoError, typeError } from '../errors.js'
import type { Body, Expr, Term, With } from '../syntax/ast.js'
import { stringifyOpaJson } from '../syntax/json.js'
import { keysOf, overlaps, type Type, typeToJSON, typeToString, unwrap } from '../types/index.js'
import { formatValue, toJS } from '../values/index.js'
import type { Compiler } from './compiler.js'
import {
  isComprehension,
  isConstant,
  isGeneratedVar,
  isOperator,
  ROOT_DOCUMENTS,
  refName,
  walkTerms,
} from './terms.js'
import { refString, termString } from './text.js'
import type { BodyTypes } from './type-inference.js'

/** Reads a body in order: checks each expression with the types known so far, then learns from it. */
export class BodyChecker {
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
      if (op && (isOperator(op, 'eq') || isOperator(op, 'assign')))
        this.#match(args[0] as Term, args[1] as Term, expr)
      else if (op) this.#call(op, args, expr)
    } else if (terms.type === 'every') {
      this.#term(terms.domain, expr)
      this.#types.learn(expr)
      this.body(terms.body)
    } else if (terms.type === 'somedecl') {
      for (const symbol of terms.symbols) if (symbol.type === 'call') this.#term(symbol, expr)
    } else if (terms.type === 'not') {
      this.body(terms.body)
    } else if (terms.type === 'and' || terms.type === 'or') {
      this.body(terms.lhs)
      this.body(terms.rhs)
    } else {
      this.#term(terms, expr)
    }
    for (const w of expr.with ?? []) {
      // A function replacing a function (`with count as f`) is checked as a replacement; any
      // other value as a term.
      if (this.#functionOf(w.value)) this.#replacement(w)
      else this.#term(w.value, expr)
    }
  }

  /**
   * `with f as g` where both are functions: as OPA's checker, g must take as many arguments as f
   * and each must be able to hold what f takes (`count: arity mismatch`, at the `with`).
   */
  #replacement(w: With): void {
    const target = this.#functionOf(w.target)
    const value = this.#functionOf(w.value)
    if (!target || !value) return
    const fits =
      target.args.length === value.args.length &&
      target.args.every((a, i) => overlaps(a, value.args[i] as Type))
    if (fits) return
    const name = w.target.type === 'ref' ? refString(w.target.value) : refName(w.target)
    this.errors.push(
      typeError(w.location, `${name}: arity mismatch`, {
        have: `(${value.args.map((a) => typeToString(unwrap(a))).join(', ')})`,
        want: `(${target.args.map(typeToString).join(', ')})`,
      }),
    )
  }

  /** The type of the built-in or user function `term` names, if it names one. */
  #functionOf(term: Term): { args: readonly Type[] } | undefined {
    return (
      this.#types.builtinDecl(term) ??
      (term.type === 'ref' ? this.#types.functionType(term.value) : undefined)
    )
  }

  /** Refs that cannot refer to anything, inside `term`; comprehension bodies are read in turn. */
  #term(term: Term, expr: Expr): void {
    switch (term.type) {
      case 'ref': {
        for (const part of term.value.slice(1)) this.#term(part, expr)
        const head = term.value[0] as Term
        if (head.type !== 'var') this.#term(head, expr)
        if (this.#functionAsValue(term)) return
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
        if (!isComprehension(term)) return
        this.#comprehensionBody(term)
        if (term.type === 'objectcomprehension') {
          this.#term(term.value.key, expr)
          this.#term(term.value.value, expr)
        } else if (term.type === 'arraycomprehension' || term.type === 'setcomprehension') {
          this.#term(term.value.term, expr)
        }
    }
  }

  /** Checks a comprehension's body; one with an error makes the comprehension's type unknown. */
  #comprehensionBody(term: Term): void {
    if (
      term.type !== 'arraycomprehension' &&
      term.type !== 'setcomprehension' &&
      term.type !== 'objectcomprehension'
    )
      return
    const before = this.errors.length
    this.body(term.value.body)
    if (this.errors.length > before) this.#types.failed(term)
  }

  /**
   * A call to a built-in or a user function with an argument whose type cannot overlap the one
   * it takes. As OPA's checker, the result counts as the last argument: `have` shows an unbound
   * output as `???` and `want` ends with the result type (`upper(x) == "A"` after `x := 1`:
   * `have: (number, ???)`, `want: (x: string, y: string)`).
   */
  #call(op: Term, args: Term[], expr: Expr): void {
    // A rule called as a function (`p(1)` for `p := 1`) passes the arity check as `p` with an
    // output; OPA's checker then finds no function type there. A rule typed `any` or a union is
    // let through, as OPA lets it through.
    const ruleType = op.type === 'ref' ? this.#types.ruleType(op.value) : undefined
    if (ruleType && unwrap(ruleType).kind !== 'any' && op.type === 'ref') {
      this.errors.push(typeError(expr.location, `undefined function ${refString(op.value)}`))
      return
    }
    const wants = this.#types.callTypes(op)
    if (!wants || args.length > wants.length) return
    const bad = args.some((arg, i) => {
      const want = wants[i]
      return want !== undefined && !this.#types.fits(arg, want)
    })
    if (!bad) return
    const name = op.type === 'ref' && op.value[0]?.type === 'var' && op.value[0].value === 'data'
    this.errors.push(
      typeError(expr.location, `${name ? refString(op.value) : refName(op)}: invalid argument(s)`, {
        have: `(${args.map((a) => this.#shown(a)).join(', ')})`,
        want: `(${wants.map(typeToString).join(', ')})`,
      }),
    )
  }

  /**
   * `a = b` (and `:=`) that cannot hold: OPA's `match error`, with the two types under it (an
   * unbound var shown as `???`, as OPA prints a type it does not know yet). A side with unbound
   * vars binds them, so only its constant parts can fail (`[x, 1] = [2, "a"]`).
   */
  #match(a: Term, b: Term, expr: Expr): void {
    if (this.#types.matches(a, b)) return
    const left = this.#types.termType(a)
    const right = this.#types.termType(b)
    this.errors.push(
      typeError(expr.location, 'match error', { a: typeToJSON(left), b: typeToJSON(right) }, [
        `left  : ${this.#typeShown(a)}`,
        `right : ${this.#typeShown(b)}`,
      ]),
    )
  }

  /** A term's type as OPA prints it, `???` for each var not bound yet (`array<???, number>`). */
  #typeShown(term: Term): string {
    if (this.#bound(term)) return typeToString(this.#types.termType(term))
    if (term.type === 'var') return '???'
    if (term.type === 'array') return `array<${term.value.map((x) => this.#typeShown(x)).join(', ')}>`
    if (term.type === 'object' && term.value.every(([k]) => this.#bound(k))) {
      const pairs = term.value
        .map(([k, v]) => [termString(k), this.#typeShown(v)] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      return `object<${pairs.map(([k, v]) => `${k.replace(/^"(.*)"$/, '$1')}: ${v}`).join(', ')}>`
    }
    return typeToString(this.#types.termType(term))
  }

  /** True when `term` holds no var that is still unbound at this point of the body. */
  #bound(term: Term): boolean {
    let bound = true
    walkTerms(term, (x) => {
      if (x.type === 'var' && !ROOT_DOCUMENTS.has(x.value) && !this.#types.knows(x.value)) bound = false
      return !bound || isComprehension(x)
    })
    return bound
  }

  /** A term's type as OPA prints it in `have`: `???` for an unbound var. */
  #shown(term: Term): string {
    return term.type === 'var' && !this.#types.knows(term.value)
      ? '???'
      : typeToString(this.#types.termType(term))
  }

  /**
   * A ref to a user function used as a value (`x := f`): OPA's checker supports functions only
   * as call operators (and `with` targets), and reports `undefined ref` with the function's type.
   */
  #functionAsValue(term: Term & { type: 'ref' }): boolean {
    const ref = term.value
    const head = ref[0] as Term
    if (head.type !== 'var' || head.value !== 'data') return false
    // The function itself (`x := f`) or a ref into it (`f.x`, `f[i]`): a function has no keys.
    for (let end = 2; end <= ref.length; end++) {
      const prefix = ref.slice(0, end)
      if (!prefix.slice(1).every(isConstant)) return false
      const fn = this.#types.functionType(prefix)
      if (!fn) continue
      const text = refString(ref)
      this.errors.push(
        typeError(
          head.location ?? term.location,
          `undefined ref: ${text}`,
          { ref: refJSON(ref), pos: end - 1, have: typeToJSON(fn) },
          [text, '^'.repeat(refString(prefix).length), `have: ${typeToString(fn)}`],
        ),
      )
      return true
    }
    return false
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
    const text = refString(shown)
    const { details, lines } = missDetails(shown, at, have)
    this.errors.push(
      typeError(head.location ?? term.location ?? expr.location, `undefined ref: ${text}`, details, lines),
    )
  }
}

/**
 * What OPA prints under an undefined ref: the ref, a caret line, then for a value that has no keys
 * at all its type (`have: number`, the carets under everything before the key), and otherwise the
 * key and either the keys the object has (`want (one of): ["kind" "version"]`) or the type keys
 * must have (`want (type): number` for an array).
 */
function missDetails(
  ref: Term[],
  at: number,
  have: Type,
): { details: Record<string, unknown>; lines: string[] } {
  const text = refString(ref)
  const x = unwrap(have)
  const members = x.kind === 'any' ? x.of.map(unwrap) : [x]
  const keyTypes = keysOf(have)
  if (members.every((m) => !keysOf(m)) || !keyTypes) {
    const pos = at - 1
    return {
      details: { ref: refJSON(ref), pos, have: typeToJSON(have) },
      lines: [text, '^'.repeat(refString(ref.slice(0, at)).length), `have: ${typeToString(have)}`],
    }
  }
  const objects = members.filter((m) => m.kind === 'object')
  const oneOf = [
    ...new Map(objects.flatMap((o) => o.static.map((p) => [formatValue(p.key), p.key]))).entries(),
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const keys = oneOf.map(([text]) => text)
  const pad = ' '.repeat(refString(ref.slice(0, at)).length + 1)
  const lines = [text, `${pad}^`, `${pad}have: ${termString(ref[at] as Term)}`]
  lines.push(
    keys.length > 0
      ? `${pad}want (one of): [${keys.join(' ')}]`
      : `${pad}want (type): ${typeToString(keyTypes)}`,
  )
  return {
    details: {
      ref: refJSON(ref),
      pos: at,
      want: typeToJSON(keyTypes),
      oneOf: oneOf.map(([, key]) => toJS(key)),
    },
    lines,
  }
}

/** A ref in OPA's AST JSON (an array of terms), as OPA's error details carry it. */
function refJSON(ref: Term[]): unknown[] {
  return ref.map((term) => JSON.parse(stringifyOpaJson(term)))
}
