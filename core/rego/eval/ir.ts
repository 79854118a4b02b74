/**
 * The evaluator's form of compiled policies: terms with constants already converted to values and
 * variables numbered into slots of a frame, expressions classified once (unify, call, term,
 * every), and the rule tree with each rule set's kind, index and early-exit flag. Building this
 * once at compile time is what keeps an evaluation from re-walking ASTs. Every node keeps its
 * source AST node (`src`) for locations, tracing and partial evaluation's residual queries.
 */
import type { Builtin } from '../builtins/define.js'
import type { RuleEntry } from '../compiler/rule-tree.js'
import type { Expr, Location, Term, With } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import { ValueMap } from '../values/index.js'

/** Term kinds. */
export enum K {
  Value = 0,
  Var = 1,
  Ref = 2,
  Array = 3,
  Object = 4,
  Set = 5,
  ArrayCompr = 6,
  SetCompr = 7,
  ObjectCompr = 8,
}

/** A ground constant. */
export interface PValue {
  k: K.Value
  v: Value
  src: Term
}

/** A variable: its slot in the frame of the rule or query it belongs to. */
export interface PVar {
  k: K.Var
  slot: number
  name: string
  src: Term
}

/** Where a ref starts. */
export enum Root {
  Data = 0,
  Input = 1,
  Term = 2,
}

/** A reference `head.path...`; for `data`/`input` roots the head is implied. */
export interface PRef {
  k: K.Ref
  root: Root
  head: PTerm | undefined
  path: PTerm[]
  src: Term
  /**
   * The locations residual refs get (the ref's, its first part's), copied from `src` when prepared:
   * plugging a residual then reads no source AST, which for a large policy is mostly out of cache
   * (a tenth of a 1,000-rule compile went to reading them, docs/performance.md).
   */
  loc: Location | undefined
  headLoc: Location | undefined
}

/** `[a, b]`. */
export interface PArray {
  k: K.Array
  items: PTerm[]
  src: Term
}

/** `{k: v}`. */
export interface PObject {
  k: K.Object
  entries: Array<[PTerm, PTerm]>
  src: Term
}

/** `{a, b}`. */
export interface PSet {
  k: K.Set
  items: PTerm[]
  src: Term
}

/** `[t | body]` or `{t | body}`. */
export interface PCompr {
  k: K.ArrayCompr | K.SetCompr
  term: PTerm
  body: PExpr[]
  /** The index keys, when the compiler found it can be grouped by them (comprehension-index.ts). */
  index?: PVar[]
  src: Term
}

/** `{k: v | body}`. */
export interface PObjectCompr {
  k: K.ObjectCompr
  key: PTerm
  value: PTerm
  body: PExpr[]
  /** As for {@link PCompr}. */
  index?: PVar[]
  src: Term
}

/** Any prepared term. */
export type PTerm = PValue | PVar | PRef | PArray | PObject | PSet | PCompr | PObjectCompr

/** Expression kinds. */
export enum X {
  Unify = 0,
  Call = 1,
  Term = 2,
  Every = 3,
  /** The positive side of a not-body (`not { ... }`): its body; the expression itself is negated. */
  Not = 4,
}

/** The callee of a call expression. */
export interface PCall {
  /** Dotted name (`count`) or data path text (`data.a.f`): the key for `with` mocks. */
  name: string
  /** A user function: its rule set node. */
  fn: VNode | undefined
  /** A built-in from the registry. */
  builtin: Builtin | undefined
  /** Declared argument count (the operand after them, if any, is the output). */
  arity: number
  args: PTerm[]
  output: PTerm | undefined
  /** Set for the comparison operators (`==`, `<`, ...), which the evaluator runs in place. */
  compare: ((a: Value, b: Value) => boolean) | undefined
}

/** `every k, v in domain { body }`. */
export interface PEvery {
  key: PTerm
  value: PTerm
  domain: PTerm
  body: PExpr[]
}

/** What a `with` replaces. */
export enum WithKind {
  Input = 0,
  Data = 1,
  Function = 2,
}

/** One `with target as value`. */
export interface PWith {
  kind: WithKind
  /** Path under `input`/`data` (for Input and Data). */
  path: Value[]
  /** Mock key (function name or data path text) for Function. */
  fnKey: string
  value: PTerm
  /** When the value names a function (`with f as g`, `with count as my_count`): the replacement. */
  fnValue: FunctionRef | undefined
  /**
   * The target has a var in its path (`with input[x] as 1`): OPA compiles it but does not plug the
   * var, so an input target fails at evaluation (`bad document path`) and a data target matches
   * nothing.
   */
  nonGround?: true
  src: With
}

/** A reference to a function used as a `with` replacement. */
export interface FunctionRef {
  name: string
  fn: VNode | undefined
  builtin: Builtin | undefined
}

/** One expression. Exactly the fields of its kind are set. */
export interface PExpr {
  kind: X
  negated: boolean
  with: PWith[] | undefined
  a: PTerm | undefined
  b: PTerm | undefined
  call: PCall | undefined
  term: PTerm | undefined
  every: PEvery | undefined
  /** The body of a not-body (kind Not). */
  notBody: PExpr[] | undefined
  /** A specialized step for common shapes (fast.ts), tried before the generic one. */
  fast: ((e: never, frame: never, iter: never) => boolean | undefined) | undefined
  src: Expr
}

/** One rule (or one `else` of a rule) ready to run in its own frame. */
export interface PRule {
  src: RuleEntry
  slots: number
  /** Slot names, for tracing and partial evaluation. */
  names: string[]
  args: PTerm[] | undefined
  /** For `contains` rules: the element. */
  key: PTerm | undefined
  value: PTerm | undefined
  /** The rule's ref below the node that evaluates it (object keys for ref-head rules). */
  refTail: PTerm[]
  multiValue: boolean
  body: PExpr[]
  /** `body` with loop-invariant input lookups first (fast.ts), for plain evaluation. */
  fastBody: PExpr[]
  else: PRule | undefined
  isDefault: boolean
}

/** How a rule set evaluates. */
export enum SetKind {
  Complete = 0,
  PartialSet = 1,
  Object = 2,
  Function = 3,
}

/** One prepared index constraint: `source = value`. */
export interface PConstraint {
  root: 'input' | 'data' | 'arg'
  arg: number
  path: Value[]
  value: Value
}

/** The rules that define one virtual document (or function). */
export interface RuleSet {
  id: number
  kind: SetKind
  node: VNode
  rules: PRule[]
  constraints: PConstraint[][]
  defaultRule: PRule | undefined
  earlyExit: boolean
  arity: number
  /** True when some rule has index constraints. */
  indexed: boolean
  /** Indices of every rule, for sets without constraints. */
  all: number[]
}

/** One node of the prepared rule tree. */
export class VNode {
  readonly key: Value
  readonly path: Value[]
  readonly children = new Map<string, VNode>()
  otherChildren: ValueMap<VNode> | undefined
  /** Child keys sorted as OPA sorts values. */
  sortedKeys: Value[] = []
  hidden = false
  ruleSet: RuleSet | undefined

  constructor(key: Value, path: Value[]) {
    this.key = key
    this.path = path
  }

  /** The child under `key`, if any. */
  child(key: Value): VNode | undefined {
    if (typeof key === 'string') return this.children.get(key)
    return this.otherChildren?.get(key)
  }

  /** Adds a child. */
  addChild(node: VNode): void {
    if (typeof node.key === 'string') this.children.set(node.key, node)
    else {
      this.otherChildren ??= new ValueMap()
      this.otherChildren.set(node.key, node)
    }
  }

  /** Every child. */
  allChildren(): VNode[] {
    const out = [...this.children.values()]
    if (this.otherChildren) for (const [, v] of this.otherChildren.entries()) out.push(v)
    return out
  }
}
