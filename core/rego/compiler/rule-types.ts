/**
 * The types of the rules and functions under `data`, for the type checker (compiler/stages/
 * check-types.ts): each worked out once per compiled module set, from the types
 * compiler/type-inference.ts reads in their bodies.
 */
import type { RegoError } from '../errors.js'
import type { Rule, Term } from '../syntax/ast.js'
import { type FunctionType, type Type, t, unionOf, unwrap } from '../types/index.js'
import { AnnotationSchemas } from './annotation-schemas.js'
import { BodyChecker } from './body-checker.js'
import type { Compiler } from './compiler.js'
import type { RuleTreeNode } from './rule-tree.js'
import { groundPrefix, walkTerms } from './terms.js'
import { BodyTypes, constantType } from './type-inference.js'

/** One rule body read: its vars' types after it, its errors, and its schema annotations' errors. */
interface Checked {
  types: BodyTypes
  errors: RegoError[]
  schemaErrors: RegoError[]
}

/**
 * Types of the rules under `data`: what every definition (defaults and `else`s included) produces,
 * its value's type read after its body, merged as OPA's type tree merges them (partial objects and
 * ref heads with vars as objects keyed by their var parts' types); and user functions' types.
 * Rules with rules below them are not typed; a rule or function any of whose definitions has a type
 * error in its body is `any`, as OPA's checker types it, so that its uses report nothing more.
 */
export class RuleTypes {
  readonly #compiler: Compiler
  /** null while a rule's type is being worked out (a rule that depends on itself is untyped). */
  readonly #cache = new Map<RuleTreeNode, Type | null>()
  readonly #functions = new Map<RuleTreeNode, FunctionType | null>()
  /** True while `#warm` works: the resolutions it starts find their dependencies known. */
  #warming = false
  #nodes: Map<Rule, RuleTreeNode> | undefined
  /** Each rule body checked, once: the types of its vars after it and the errors found in it. */
  readonly #checked = new Map<Rule, Checked>()
  /** The `# METADATA schemas:` annotations, when the compiler applies them. */
  readonly #schemas: AnnotationSchemas | undefined

  constructor(compiler: Compiler) {
    this.#compiler = compiler
    this.#schemas = compiler.schemas && new AnnotationSchemas(compiler, compiler.schemas)
  }

  /** The type of the rule that `path` (after `data`) starts with, and how many parts name it. */
  at(path: Term[]): { type: Type; length: number } | undefined {
    const { node, tail } = this.#compiler.ruleTree.find(path)
    const type = this.#typeOf(node)
    return type ? { type, length: path.length - tail.length } : undefined
  }

  /**
   * What the function at `path` (after `data`) returns, and how many arguments it takes: the union
   * of every definition's value read after its body (arguments are `any`).
   */
  functionAt(path: Term[]): { args: Type[]; result: Type; arity: number } | undefined {
    const node = this.#compiler.ruleTree.lookup(path)
    const first = node?.rules[0]?.rule.head.args
    if (!node || !first) return undefined
    const fn = this.#functionOf(node)
    return fn ? { args: [...fn.args], result: fn.result ?? t.any, arity: first.length } : undefined
  }

  #functionOf(node: RuleTreeNode): FunctionType | undefined {
    let fn = this.#functions.get(node)
    if (fn === undefined) {
      this.#warm(node)
      this.#functions.set(node, null)
      fn = this.#functionType(node) ?? null
      this.#functions.set(node, fn)
    }
    return fn ?? undefined
  }

  /**
   * Works out the types of the rules and functions `node` depends on before its own, the deepest
   * first, with a loop: resolving them on demand nests one resolution per link of a chain of rules
   * that read each other (`r0 := r1`, `r1 := r2`, ...), and 500 links overflowed the stack.
   */
  #warm(node: RuleTreeNode): void {
    if (this.#warming) return
    this.#warming = true
    try {
      const known = (n: RuleTreeNode) => this.#cache.has(n) || this.#functions.has(n)
      for (const dep of dependenciesFirst(node, this.#compiler.graph, this.#nodeOfRule(), known)) {
        if (dep === node) continue
        if (dep.rules[0]?.rule.head.args) this.#functionOf(dep)
        else this.#typeOf(dep)
      }
    } finally {
      this.#warming = false
    }
  }

  /** The rule tree node of every rule (`else` branches included). */
  #nodeOfRule(): Map<Rule, RuleTreeNode> {
    if (!this.#nodes) {
      const nodes = new Map<Rule, RuleTreeNode>()
      this.#compiler.ruleTree.depthFirst((node) => {
        for (const { rule } of node.rules)
          for (let r: Rule | undefined = rule; r; r = r.else) nodes.set(r, node)
        return false
      })
      this.#nodes = nodes
    }
    return this.#nodes
  }

  /**
   * A function's type: per argument position and for the result, the union over every definition
   * (`else`s included) of what its body makes of the argument (`any` when nothing) and of its value.
   */
  #functionType(node: RuleTreeNode): FunctionType | undefined {
    // A function with an error in its body is `any` in OPA: calls to it are not checked.
    if (this.#hasErrors(node)) return undefined
    const results: Type[] = []
    const args: Type[][] = []
    for (const { rule } of node.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const value = r.head.value
        const params = r.head.args
        if (!params || !value) return undefined
        const body = this.#afterBody(r)
        results.push(constantType(value) ?? body.termType(value))
        for (const [i, param] of params.entries()) {
          const type = param.type === 'var' ? (body.varType(param.value) ?? t.any) : body.termType(param)
          const position = args[i] ?? []
          position.push(type)
          args[i] = position
        }
      }
    }
    return { kind: 'function', args: args.map((ts) => unionOf(...ts)), result: unionOf(...results) }
  }

  /** The types of `rule`'s vars once its body is read (a function's arguments unbound at first). */
  #afterBody(rule: Rule): BodyTypes {
    return this.#check(rule).types
  }

  /**
   * The type errors of `rule` (one definition; `else` branches are rules of their own): its schema
   * annotations' (a schema the set lacks), then its body's.
   */
  errorsOf(rule: Rule): RegoError[] {
    const checked = this.#check(rule)
    return [...checked.schemaErrors, ...checked.errors]
  }

  #check(rule: Rule): Checked {
    let checked = this.#checked.get(rule)
    if (!checked) {
      const schemas = this.#schemas?.forRule(rule)
      const types = new BodyTypes(this.#compiler, this, paramVars(rule), schemas?.scope)
      const checker = new BodyChecker(this.#compiler, types)
      checker.body(rule.body)
      checked = { types, errors: checker.errors, schemaErrors: schemas?.errors ?? [] }
      this.#checked.set(rule, checked)
    }
    return checked
  }

  /**
   * True when a definition of the rule or function at `node` has a type error in its body (an
   * annotation's error does not count: OPA still types the rule).
   */
  #hasErrors(node: RuleTreeNode): boolean {
    return node.rules.some(({ rule }) => {
      for (let r: Rule | undefined = rule; r; r = r.else) if (this.#check(r).errors.length > 0) return true
      return false
    })
  }

  #valueAfterBody(rule: Rule, value: Term): Type {
    return this.#afterBody(rule).termType(value)
  }

  #typeOf(node: RuleTreeNode): Type | undefined {
    if (this.#cache.has(node)) return this.#cache.get(node) ?? undefined
    this.#warm(node)
    this.#cache.set(node, null)
    const type = this.#ruleSetType(node)
    if (type) this.#cache.set(node, type)
    return type
  }

  #ruleSetType(node: RuleTreeNode): Type | undefined {
    if (node.rules.length === 0 || node.children.size > 0) return undefined
    if (this.#hasErrors(node)) return t.any
    const types: Type[] = []
    for (const { rule } of node.rules) {
      for (let r: typeof rule | undefined = rule; r; r = r.else) {
        const type = this.#definitionType(r)
        if (!type) return undefined
        types.push(type)
      }
    }
    return mergeTypes(types)
  }

  /**
   * What one definition produces at its node: a complete rule's value, a partial set of its key,
   * or for a ref with vars (`p[k] := v`, `p[k].q[j] := v`) an object per var part, keyed by that
   * part's type (a constant part after a var is a string key), holding the value.
   */
  #definitionType(rule: Rule): Type | undefined {
    const head = rule.head
    if (head.args) return undefined
    const ground = groundPrefix(head.ref).length
    if (head.key && !head.value) {
      // A multi-value rule with vars in its ref (`p[x].q contains y`): OPA's checker files its set
      // under the var parts themselves, where no ref is looked up, so refs into it go unchecked.
      if (ground < head.ref.length) return undefined
      return t.set(this.#headTermType(rule, head.key))
    }
    if (!head.value) return undefined
    if (ground === head.ref.length) return this.#headTermType(rule, head.value)
    const body = this.#afterBody(rule)
    let type = body.termType(head.value)
    for (const part of head.ref.slice(ground).reverse()) type = t.object(body.termType(part), type)
    return type
  }

  #headTermType(rule: Rule, term: Term): Type {
    return constantType(term) ?? this.#valueAfterBody(rule, term)
  }
}

/**
 * The type of a node's definitions together, as OPA's checker merges them: objects that have only
 * a dynamic part merge key with key and value with value (recursively), anything else is a union.
 */
function mergeTypes(types: Type[]): Type {
  const dynamicOnly = (x: Type) => {
    const u = unwrap(x)
    return u.kind === 'object' && u.static.length === 0 && u.dynamic ? u.dynamic : undefined
  }
  const parts = types.map(dynamicOnly)
  if (types.length < 2 || parts.some((p) => !p)) return unionOf(...types)
  const dynamics = parts as { key: Type; value: Type }[]
  return t.object(unionOf(...dynamics.map((d) => d.key)), mergeTypes(dynamics.map((d) => d.value)))
}

/**
 * The rule tree nodes `start` depends on (through `compiler.graph`), each after the nodes it
 * depends on, `start` last; nodes for which `known` holds are neither listed nor followed.
 */
function dependenciesFirst(
  start: RuleTreeNode,
  graph: Map<Rule, Set<Rule>>,
  nodeOf: Map<Rule, RuleTreeNode>,
  known: (node: RuleTreeNode) => boolean,
): RuleTreeNode[] {
  const depsOf = (node: RuleTreeNode): RuleTreeNode[] => {
    const deps: RuleTreeNode[] = []
    for (const { rule } of node.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        for (const d of graph.get(r) ?? []) {
          const n = nodeOf.get(d)
          if (n && !known(n)) deps.push(n)
        }
      }
    }
    return deps
  }
  const order: RuleTreeNode[] = []
  const seen = new Set([start])
  const stack = [{ node: start, deps: depsOf(start), next: 0 }]
  for (let top = stack.at(-1); top; top = stack.at(-1)) {
    const dep = top.deps[top.next++]
    if (dep === undefined) {
      order.push(top.node)
      stack.pop()
    } else if (!seen.has(dep)) {
      seen.add(dep)
      stack.push({ node: dep, deps: depsOf(dep), next: 0 })
    }
  }
  return order
}

/** The vars in a function's arguments (none for other rules). */
export function paramVars(rule: Rule): string[] {
  const vars: string[] = []
  for (const arg of rule.head.args ?? [])
    walkTerms(arg, (term) => {
      if (term.type === 'var') vars.push(term.value)
      return false
    })
  return vars
}
