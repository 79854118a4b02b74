/**
 * What regent knows of the types of a rule body's terms, for the type checker: literals, object
 * literals with vars and comprehensions (from their bodies); local vars bound to a term of known
 * type (`x := 1`, patterns such as `[a, b] := f(1)` part by part), to a call's output or to the
 * members of a typed collection (`some x in [1, 2]`; not `every k, v in ...`, as OPA); and `data` refs to
 * rules, from the value of each definition read after its body (`p := 1`, `default p := false`,
 * `n := count(input.xs)`, `s contains x if some x in ["a"]`, `o[k] := v` as an object keyed by
 * k's type), likewise user functions' results and arguments (from the body's first use of each, as
 * OPA's checker binds an unbound var); `input` from a JSON Schema when one is given (`-s`), and
 * `input` and `data` paths from the `# METADATA schemas:` annotations in the rule's scope
 * (compiler/annotation-schemas.ts). Everything else is `any`: OPA's checker also types a few corners (see
 * docs/conformance.md), so regent reports a subset of OPA's type errors and never one OPA would not.
 *
 * Bodies are read in order after CheckSafety has put every expression after the ones that bind its
 * vars, and after RewriteLocalVars gave every local var a name of its own, so one map of var names
 * serves a rule body and the comprehensions and `every` bodies inside it.
 */
import type { Expr, Term } from '../syntax/ast.js'
import {
  type FunctionType,
  type ObjectType,
  type StaticProperty,
  type Type,
  t,
  typeOf,
  unionOf,
  unwrap,
} from '../types/index.js'
import { elementType, isSubtype, keysOf, overlaps, propertyType, valuesOf } from '../types/lattice.js'
import {
  compareValues,
  equalValues,
  formatValue,
  isArray,
  isObject,
  isSet,
  typeName,
  type Value,
} from '../values/index.js'
import { dataSchemaAt, type SchemaScope } from './annotation-schemas.js'
import type { Compiler } from './compiler.js'
import { constantValue } from './constant-value.js'
import type { RuleTypes } from './rule-types.js'
import { isComprehension, isConstant, isOperator, ROOT_DOCUMENTS, refName, walkTerms } from './terms.js'

/** A ref that cannot refer to anything: `ref[at]` is a key the type before it cannot have. */
export interface RefMiss {
  at: number
  have: Type
}

/** The parts of a composite term: an array's or set's members, an object's keys and values. */
function partsOf(term: Term): Term[] {
  if (term.type === 'array' || term.type === 'set') return term.value
  if (term.type === 'object') return term.value.flat()
  return []
}

/** The type of a constant term's value, or undefined when `term` is not constant. */
export function constantType(term: Term): Type | undefined {
  const value = isConstant(term) ? constantValue(term) : undefined
  return value === undefined ? undefined : literalType(value)
}

/**
 * The type OPA's checker gives a literal: its value's type, except that an empty array is
 * `array[any]` and an empty object `object[any: any]` (so `xs == []` checks against any array).
 */
function literalType(value: Value): Type {
  if (isArray(value)) return value.length ? t.tuple(...value.map(literalType)) : t.array(t.any)
  if (isObject(value)) {
    const entries = value.entries()
    if (entries.length === 0) return t.object(t.any, t.any)
    return { kind: 'object', static: entries.map(([key, v]) => ({ key, value: literalType(v) })) }
  }
  if (isSet(value)) {
    const members = [...value.values()].map(literalType)
    return t.set(members.length ? unionOf(...members) : t.any)
  }
  return typeOf(value)
}

/** True for the top type (any value), which tells nothing. */
function isTop(type: Type): boolean {
  const x = unwrap(type)
  return x.kind === 'any' && x.of.length === 0
}

/**
 * True when no value of `type` can have the constant key `key`: scalars have no keys, an object
 * its static ones and keys of its dynamic part's key type (OPA's `types.Select`: `o[1]` for
 * `object[string: number]` is undefined), an array only integer keys within its bounds when it has
 * a fixed length (`[1, 2][5]`), a set only members its element type can hold (OPA wants the exact
 * type; regent only rejects a member whose type cannot overlap, `{"a"}[1]`).
 */
function cannotHave(type: Type, key: Value): boolean {
  const x = unwrap(type)
  switch (x.kind) {
    case 'any':
      return x.of.length > 0 && x.of.every((m) => cannotHave(m, key))
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true
    case 'object':
      return !hasStaticKey(x, key) && (!x.dynamic || !isSubtype(typeOf(key), x.dynamic.key))
    case 'array':
      return !isIndexOf(x, key)
    case 'set':
      return !overlaps(typeOf(key), x.of)
    default:
      return false
  }
}

/** True when `key` is an integer index an array of type `array` can have. */
function isIndexOf(array: Type & { kind: 'array' }, key: Value): boolean {
  if (typeName(key) !== 'number') return false
  const n = Number(formatValue(key))
  if (!Number.isInteger(n) || n < 0) return false
  return array.dynamic !== undefined || n < array.static.length
}

function hasStaticKey(o: ObjectType, key: Value): boolean {
  return o.static.some((p) => equalValues(p.key, key))
}

/** The type of `type[key]` for a key the type may have (any element of an array, for a number). */
function keyed(type: Type, key: Value): Type {
  const x = unwrap(type)
  if (x.kind === 'object')
    return x.static.find((p) => equalValues(p.key, key))?.value ?? x.dynamic?.value ?? t.any
  return valuesOf(x) ?? t.any
}

/** The types of one rule body's (or query's) vars, learnt expression by expression. */
export class BodyTypes {
  readonly #compiler: Compiler
  readonly #rules: RuleTypes
  readonly #vars = new Map<string, Type>()
  /**
   * A function's argument vars, while their type is still unknown: bound by the body's first use
   * as OPA's checker binds them (a built-in's declared argument type, the other side of `=`), or
   * to `any` by a use that says nothing (a ref on them, a membership test).
   */
  readonly #params: Set<string>
  /** The comprehension bodies already read. */
  readonly #learnt = new WeakSet<Expr[]>()
  /** The comprehensions whose bodies have a type error: of unknown type, as OPA types them. */
  readonly #failed = new WeakSet<Term>()
  /** The types `# METADATA schemas:` annotations give `input` and `data` paths in this body. */
  readonly #schemas: SchemaScope | undefined

  constructor(compiler: Compiler, rules: RuleTypes, params: Iterable<string> = [], schemas?: SchemaScope) {
    this.#compiler = compiler
    this.#rules = rules
    this.#params = new Set(params)
    this.#schemas = schemas
  }

  /** True when `name` has been bound (a type learnt, possibly `any`) by what was read so far. */
  knows(name: string): boolean {
    return this.#vars.has(name)
  }

  /** The type of var `name`, or undefined while it is unbound (an argument not yet used). */
  varType(name: string): Type | undefined {
    return this.#vars.get(name)
  }

  /**
   * Records that the body of the comprehension `term` has a type error: OPA's checker then has no
   * type for it (`nil`, and errors that follow from that are not reported), regent reads it as
   * `any`, which likewise reports nothing more.
   */
  failed(term: Term): void {
    this.#failed.add(term)
  }

  /** The type of `term`, `any` when unknown. Reading a ref binds its unbound var keys. */
  termType(term: Term): Type {
    if (this.#failed.has(term)) return t.any
    const constant = constantType(term)
    if (constant) return constant
    switch (term.type) {
      case 'var':
        return this.#vars.get(term.value) ?? t.any
      case 'ref':
        return this.refType(term.value).type
      case 'array':
        return t.tuple(...term.value.map((x) => this.termType(x)))
      case 'set':
        return t.set(term.value.length ? unionOf(...term.value.map((x) => this.termType(x))) : t.any)
      case 'object':
        return this.#objectType(term.value)
      // A comprehension's type is its body's, read in place (OPA checks the body in a scope of its
      // own; here every local var has a name of its own, so the one map serves).
      case 'arraycomprehension':
        this.#learnBody(term.value.body)
        return t.array(this.termType(term.value.term))
      case 'setcomprehension':
        this.#learnBody(term.value.body)
        return t.set(this.termType(term.value.term))
      case 'objectcomprehension':
        this.#learnBody(term.value.body)
        return t.object(this.termType(term.value.key), this.termType(term.value.value))
      case 'templatestring':
        return t.string
      case 'call': {
        const op = term.value[0]
        const decl = op ? this.builtinDecl(op) : undefined
        if (decl?.result) return unwrap(decl.result)
        return (op && this.#userFunction(op)?.result) ?? t.any
      }
      default:
        return t.any
    }
  }

  /**
   * An object literal's type as OPA's checker makes it: a static property per constant key, the
   * other keys and their values in the dynamic part (OPA keeps the last of those; their union is
   * never narrower), sorted by key.
   */
  #objectType(pairs: [Term, Term][]): Type {
    const statics: StaticProperty[] = []
    const keys: Type[] = []
    const values: Type[] = []
    for (const [k, v] of pairs) {
      const key = isConstant(k) ? constantValue(k) : undefined
      if (key !== undefined) statics.push({ key, value: this.termType(v) })
      else {
        keys.push(this.termType(k))
        values.push(this.termType(v))
      }
    }
    statics.sort((a, b) => compareValues(a.key, b.key))
    return keys.length
      ? { kind: 'object', static: statics, dynamic: { key: unionOf(...keys), value: unionOf(...values) } }
      : { kind: 'object', static: statics }
  }

  /** Learns from every expression of a comprehension's body, once. */
  #learnBody(body: Expr[]): void {
    if (this.#learnt.has(body)) return
    this.#learnt.add(body)
    for (const expr of body) this.learn(expr)
  }

  /** The type of `ref`, and where it stops referring to anything, if it does. */
  refType(ref: Term[]): { type: Type; miss?: RefMiss } {
    const head = ref[0] as Term
    let type: Type = t.any
    let i = 1
    if (head.type === 'var' && head.value === 'data') {
      const rule =
        (this.#schemas && dataSchemaAt(this.#schemas, ref.slice(1))) ?? this.#rules.at(ref.slice(1))
      if (!rule) return { type: t.any }
      type = rule.type
      i = 1 + rule.length
    } else if (head.type === 'var' && head.value === 'input') {
      type = this.#schemas?.input ?? this.#compiler.inputType ?? t.any
    } else {
      if (head.type === 'var' && this.#params.has(head.value)) this.#bind(head, t.any)
      type = this.termType(head)
    }
    for (; i < ref.length; i++) {
      if (isTop(type)) return { type }
      const key = ref[i] as Term
      const value = isConstant(key) ? constantValue(key) : undefined
      if (value !== undefined) {
        if (cannotHave(type, value)) return { type: t.any, miss: { at: i, have: type } }
        type = keyed(type, value)
      } else {
        if (key.type === 'var' && !this.#vars.has(key.value)) this.#vars.set(key.value, keysOf(type) ?? t.any)
        type = valuesOf(type) ?? t.any
      }
    }
    return { type }
  }

  /**
   * Records the vars that `expr` binds. A negated expression is read as any other, as OPA's
   * checker reads it: its vars are its own or bound before it (CheckSafety), so what it teaches is
   * a function argument's type (`f(x) if not startswith(x, "a")` takes a string).
   */
  learn(expr: Expr): void {
    // As OPA's checker, an expression with `with` modifiers is read as any other: the types are
    // the program's, whatever the modifiers replace for one evaluation.
    this.#learnTerms(expr)
    // Whatever the expression binds and regent has no type for is bound all the same: `any`, so
    // that a later `=` or built-in call checks against it instead of binding it anew.
    const terms = expr.terms
    // An `every` body is read on its own. Its key and value stay untyped, as in OPA's checker
    // (which never types them from the domain): the body's first use gives them their type.
    const marked = !Array.isArray(terms) && terms.type === 'every' ? [terms.domain] : [expr]
    walkTerms(marked, (term) => {
      if (term.type === 'var' && !ROOT_DOCUMENTS.has(term.value)) this.#bind(term, t.any)
      // A comprehension's vars are learnt from its body, not bound blind.
      if (isComprehension(term)) this.termType(term)
      return isComprehension(term)
    })
  }

  #learnTerms(expr: Expr): void {
    const terms = expr.terms
    if (!Array.isArray(terms)) {
      if (terms.type === 'every') {
        this.termType(terms.domain)
      } else if (terms.type === 'somedecl') {
        for (const symbol of terms.symbols) if (symbol.type === 'call') this.#learnCall(symbol.value)
      }
      return
    }
    this.#learnCall(terms)
  }

  #learnCall(terms: Term[]): void {
    const [op, ...args] = terms
    if (!op) return
    if (isOperator(op, 'eq') || isOperator(op, 'assign')) {
      const [a, b] = args as [Term, Term]
      this.#unify(a, b)
      return
    }
    if (isOperator(op, 'internal.member_2')) {
      const collection = this.termType(args[1] as Term)
      this.#bindParams(args, t.any)
      this.#bind(args[0] as Term, valuesOf(collection) ?? t.any)
      return
    }
    if (isOperator(op, 'internal.member_3')) {
      const collection = this.termType(args[2] as Term)
      this.#bindParams(args, t.any)
      this.#bind(args[0] as Term, keysOf(collection) ?? t.any)
      this.#bind(args[1] as Term, valuesOf(collection) ?? t.any)
      return
    }
    const wants = this.callTypes(op)
    if (!wants) {
      this.#bindParams(args, t.any)
      return
    }
    for (const [i, arg] of args.entries()) this.#unifyWith(arg, unwrap(wants[i] ?? t.any))
  }

  /**
   * What a call to `op` takes, its result last: a built-in's declaration or a user function's
   * inferred argument and result types; undefined for anything else.
   */
  callTypes(op: Term): Type[] | undefined {
    const decl = this.builtinDecl(op)
    if (decl) return decl.result ? [...decl.args, decl.result] : [...decl.args]
    const fn = this.#userFunction(op)
    return fn ? [...fn.args, fn.result] : undefined
  }

  /** Binds the still unbound function arguments among `terms` to `type`. */
  #bindParams(terms: Term[], type: Type): void {
    for (const term of terms) if (term.type === 'var' && this.#params.has(term.value)) this.#bind(term, type)
  }

  /** The type of the user function `ref` names exactly (`data.pkg.f`), if it names one. */
  functionType(ref: Term[]): FunctionType | undefined {
    if (ref[0]?.type !== 'var' || ref[0].value !== 'data' || !ref.slice(1).every(isConstant)) return undefined
    const fn = this.#rules.functionAt(ref.slice(1))
    return fn && { kind: 'function', args: fn.args, result: fn.result }
  }

  /** The type of the rule (not function) `ref` names exactly, when regent knows it. */
  ruleType(ref: Term[]): Type | undefined {
    if (ref[0]?.type !== 'var' || ref[0].value !== 'data' || !ref.slice(1).every(isConstant)) return undefined
    const rule = this.#rules.at(ref.slice(1))
    return rule && rule.length === ref.length - 1 ? rule.type : undefined
  }

  /** The user function `op` calls (`data.pkg.f` once refs are resolved), if it is one. */
  #userFunction(op: Term): { args: Type[]; result: Type; arity: number } | undefined {
    if (op.type !== 'ref' || op.value[0]?.type !== 'var' || op.value[0].value !== 'data') return undefined
    return this.#rules.functionAt(op.value.slice(1))
  }

  /**
   * `a = b` (or `:=`), as OPA's checker unifies: a side with unbound vars takes the other side's
   * type, element by element for array and object patterns (`[x, y] := [1, "a"]`,
   * `{"a": x} := o`); two such sides are matched part by part.
   */
  #unify(a: Term, b: Term): void {
    const freeA = this.#hasUnbound(a)
    const freeB = this.#hasUnbound(b)
    if (freeA && !freeB) this.#unifyWith(a, this.termType(b))
    else if (freeB && !freeA) this.#unifyWith(b, this.termType(a))
    else if (!freeA || !freeB) return
    else if (a.type === 'array' && b.type === 'array' && a.value.length === b.value.length) {
      for (const [i, x] of a.value.entries()) this.#unify(x, b.value[i] as Term)
    } else if (a.type === 'object' && b.type === 'object' && a.value.length === b.value.length) {
      for (const [k, v] of a.value) {
        const key = isConstant(k) ? constantValue(k) : undefined
        const other = b.value.find(([k2]) => {
          const key2 = key !== undefined && isConstant(k2) ? constantValue(k2) : undefined
          return key2 !== undefined && equalValues(key as Value, key2)
        })
        if (other) this.#unify(v, other[1])
      }
    } else if (a.type === 'var') {
      this.#bind(a, t.any)
      this.#unifyWith(b, t.any)
    } else if (b.type === 'var') {
      this.#bind(b, t.any)
      this.#unifyWith(a, t.any)
    }
  }

  /**
   * Binds the vars of `term` to the parts of `type` they stand for, as OPA's `unify1` does: an
   * element of an array, the value under a constant key of an object, a member of a set. Against
   * a union, each member of the pattern's kind is tried with `union` set, and then a var already
   * bound is widened to the union of its type and the member's part (OPA's checker does so: after
   * `x := 1; count([x])`, x is `any`). Where the type says nothing or cannot hold the pattern, the
   * vars are left for `learn` to bind to `any`; the mismatch itself is the checker's business.
   */
  #unifyWith(term: Term, type: Type, union = false): void {
    const want = unwrap(type)
    if (term.type === 'var') {
      if (!union) this.#bind(term, type)
      else if (!ROOT_DOCUMENTS.has(term.value)) {
        const have = this.#vars.get(term.value)
        this.#vars.set(term.value, have ? unionOf(have, type) : type)
      }
      return
    }
    if (term.type !== 'array' && term.type !== 'object' && term.type !== 'set') return
    if (want.kind === 'any') {
      if (want.of.length === 0) for (const part of partsOf(term)) this.#unifyWith(part, t.any, true)
      else
        for (const member of want.of)
          if (unwrap(member).kind === term.type) this.#unifyWith(term, member, true)
      return
    }
    if (want.kind === 'array' && term.type === 'array') {
      if (!want.dynamic && want.static.length !== term.value.length) return
      for (const [i, x] of term.value.entries()) this.#unifyWith(x, elementType(want, i) ?? t.any, union)
    } else if (want.kind === 'object' && term.type === 'object') {
      for (const [k, v] of term.value) {
        const key = isConstant(k) ? constantValue(k) : undefined
        this.#unifyWith(v, key === undefined ? t.any : (propertyType(want, key) ?? t.any), union)
      }
    } else if (want.kind === 'set' && term.type === 'set') {
      for (const x of term.value) this.#unifyWith(x, want.of, union)
    }
  }

  /**
   * True when `term` can take a value of `type`, as OPA's checker decides for a call's argument
   * (its `unify1`): a composite literal part by part, where against a union a var always fits (so
   * `concat(",", [n, "a"])` passes with `n` a number, as in OPA); a var by its type (an unbound
   * one fits and will be bound); anything else by whether the types overlap.
   */
  fits(term: Term, type: Type, union = false): boolean {
    const want = unwrap(type)
    switch (term.type) {
      case 'var': {
        if (union) return true
        const have = this.#vars.get(term.value)
        return have === undefined || overlaps(have, want)
      }
      case 'array':
      case 'object':
      case 'set':
        if (want.kind === 'any') return want.of.length === 0 || want.of.some((m) => this.fits(term, m, true))
        return this.#fitsComposite(term, want, union)
      default:
        return overlaps(this.termType(term), want)
    }
  }

  #fitsComposite(term: Term & { type: 'array' | 'object' | 'set' }, want: Type, union: boolean): boolean {
    if (term.type === 'array') {
      if (want.kind !== 'array') return false
      if (!want.dynamic && want.static.length !== term.value.length) return false
      return term.value.every((x, i) => this.fits(x, elementType(want, i) ?? t.any, union))
    }
    if (term.type === 'set')
      return want.kind === 'set' && term.value.every((x) => this.fits(x, want.of, union))
    if (want.kind !== 'object') return false
    return term.value.every(([k, v]) => {
      const key = isConstant(k) ? constantValue(k) : undefined
      if (key === undefined) return true
      const child = propertyType(want, key)
      return child !== undefined && this.fits(v, child, union)
    })
  }

  /**
   * True when `a = b` can hold, as OPA's checker decides it (`unify2`): two sides without unbound
   * vars by whether their types overlap; a side with unbound vars against the other's type part
   * by part, so the constant parts of a pattern are checked (`[x, 1] = [2, "a"]` cannot hold);
   * two such sides element by element when both are arrays or objects of the same shape.
   */
  matches(a: Term, b: Term): boolean {
    const freeA = this.#hasUnbound(a)
    const freeB = this.#hasUnbound(b)
    if (!freeA && !freeB) return overlaps(this.termType(a), this.termType(b))
    if (!freeB) return this.fits(a, this.termType(b))
    if (!freeA) return this.fits(b, this.termType(a))
    if (a.type === 'array' && b.type === 'array')
      return a.value.length === b.value.length && a.value.every((x, i) => this.matches(x, b.value[i] as Term))
    if (a.type === 'object' && b.type === 'object') return this.#objectsMatch(a.value, b.value)
    // A var against anything, and shapes OPA rejects but regent cannot be sure of, pass.
    return a.type === 'var' || b.type === 'var' || (a.type !== 'array' && a.type !== 'object')
  }

  /** Two object patterns with unbound vars: the same constant keys, the values matching. */
  #objectsMatch(a: [Term, Term][], b: [Term, Term][]): boolean {
    if (a.length !== b.length) return false
    return a.every(([k, v]) => {
      const key = isConstant(k) ? constantValue(k) : undefined
      if (key === undefined) return true
      const other = b.find(([k2]) => {
        const key2 = isConstant(k2) ? constantValue(k2) : undefined
        return key2 !== undefined && equalValues(key, key2)
      })
      return other !== undefined && this.matches(v, other[1])
    })
  }

  /**
   * True when `term` holds a var not bound yet (refs, calls and comprehensions aside: reading a
   * ref binds its keys, and a comprehension's vars are its own).
   */
  #hasUnbound(term: Term): boolean {
    let free = false
    walkTerms(term, (x) => {
      if (x.type === 'var' && !ROOT_DOCUMENTS.has(x.value) && !this.#vars.has(x.value)) free = true
      return free || x.type === 'ref' || x.type === 'call' || isComprehension(x)
    })
    return free
  }

  /** Binds `term` when it is a var not seen before (a var seen before keeps its first type). */
  #bind(term: Term, type: Type): void {
    if (term.type === 'var' && !this.#vars.has(term.value)) this.#vars.set(term.value, type)
  }

  /** The declaration of the built-in `op` names, when it has one and a fixed arity. */
  builtinDecl(op: Term): FunctionType | undefined {
    const name = refName(op)
    const builtin = name === undefined ? undefined : this.#compiler.builtin(name)
    return builtin && builtin.arity >= 0 ? builtin.decl : undefined
  }
}
