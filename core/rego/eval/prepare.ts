/**
 * Turns the compiler's output (rewritten AST, rule tree, rule indices) into the evaluator's form
 * (ir.ts): constants become values, vars become frame slots, calls are resolved to built-ins or
 * rule sets, and every rule set gets its kind and index. Runs once per compiled policy (and once
 * per prepared query).
 */
import type { Builtin } from '../builtins/define.js'
import { DEFAULT_BUILTINS, indexBuiltins } from '../builtins/registry.js'
import type { Compiler } from '../compiler/compiler.js'
import { constantValue } from '../compiler/constant-value.js'
import type { RuleIndex } from '../compiler/rule-index.js'
import { type RuleEntry, type RuleTreeNode, ruleRef } from '../compiler/rule-tree.js'
import { isEquality, refName, varTerm } from '../compiler/terms.js'
import { refString } from '../compiler/text.js'
import type { Body, Expr, Rule, Term, With } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import { comparisonOf } from './calls.js'
import { internalError } from './errors.js'
import { fastStep, hoistInvariants } from './fast.js'
import { indexGenerators } from './fast-index.js'
import {
  type FunctionRef,
  K,
  type PConstraint,
  type PExpr,
  type PRule,
  type PTerm,
  type PVar,
  type PWith,
  Root,
  type RuleSet,
  SetKind,
  VNode,
  WithKind,
  X,
} from './ir.js'

export { constantValue }

/** Var name → slot, for one frame (a rule or a query). */
export class Scope {
  readonly slots = new Map<string, number>()
  readonly names: string[] = []

  slot(name: string): number {
    let s = this.slots.get(name)
    if (s === undefined) {
      s = this.names.length
      this.slots.set(name, s)
      this.names.push(name)
    }
    return s
  }
}

/** What preparing needs to resolve calls and `with` targets. */
export interface PrepareContext {
  root: VNode
  builtins: ReadonlyMap<string, Builtin>
  /** Names the evaluator implements itself (`internal.print`, `print`, `trace`). */
  isLanguageBuiltin: (name: string) => boolean
  /** The compiler's comprehension indices (rule bodies only; queries have none). */
  comprehensionIndices?: ReadonlyMap<Term, readonly string[]>
}

function refTerm(root: Root, head: PTerm | undefined, path: PTerm[], src: Term): PTerm {
  const headLoc = src.type === 'ref' ? src.value[0]?.location : undefined
  return { k: K.Ref, root, head, path, src, loc: src.location, headLoc }
}

/** Prepares a term in `scope`. */
export function prepareTerm(ctx: PrepareContext, scope: Scope, t: Term): PTerm {
  const v = constantValue(t)
  if (v !== undefined) return { k: K.Value, v, src: t }
  switch (t.type) {
    case 'var':
      if (t.value === 'data') return refTerm(Root.Data, undefined, [], t)
      if (t.value === 'input') return refTerm(Root.Input, undefined, [], t)
      return { k: K.Var, slot: scope.slot(t.value), name: t.value, src: t }
    case 'ref': {
      const [head, ...rest] = t.value
      if (!head) throw internalError('empty ref', t.location)
      const path = rest.map((x) => prepareTerm(ctx, scope, x))
      if (head.type === 'var' && head.value === 'data') return refTerm(Root.Data, undefined, path, t)
      if (head.type === 'var' && head.value === 'input') return refTerm(Root.Input, undefined, path, t)
      return refTerm(Root.Term, prepareTerm(ctx, scope, head), path, t)
    }
    case 'array':
      return { k: K.Array, items: t.value.map((x) => prepareTerm(ctx, scope, x)), src: t }
    case 'set':
      return { k: K.Set, items: t.value.map((x) => prepareTerm(ctx, scope, x)), src: t }
    case 'object':
      return {
        k: K.Object,
        entries: t.value.map(
          ([a, b]) => [prepareTerm(ctx, scope, a), prepareTerm(ctx, scope, b)] as [PTerm, PTerm],
        ),
        src: t,
      }
    case 'arraycomprehension':
    case 'setcomprehension':
      return {
        k: t.type === 'arraycomprehension' ? K.ArrayCompr : K.SetCompr,
        term: prepareTerm(ctx, scope, t.value.term),
        body: prepareBody(ctx, scope, t.value.body),
        index: indexKeys(ctx, scope, t),
        src: t,
      }
    case 'objectcomprehension':
      return {
        k: K.ObjectCompr,
        key: prepareTerm(ctx, scope, t.value.key),
        value: prepareTerm(ctx, scope, t.value.value),
        body: prepareBody(ctx, scope, t.value.body),
        index: indexKeys(ctx, scope, t),
        src: t,
      }
    default:
      throw internalError(`unexpected ${t.type} term after compilation`, t.location)
  }
}

/** The slots of a comprehension's index keys, if the compiler indexed it. */
function indexKeys(ctx: PrepareContext, scope: Scope, t: Term): PVar[] | undefined {
  const keys = ctx.comprehensionIndices?.get(t)
  if (keys === undefined) return undefined
  return keys.map((name) => ({ k: K.Var, slot: scope.slot(name), name, src: varTerm(name) }))
}

/** Prepares a body. */
export function prepareBody(ctx: PrepareContext, scope: Scope, body: Body): PExpr[] {
  return body.map((e) => prepareExpr(ctx, scope, e))
}

function emptyExpr(kind: X, e: Expr): PExpr {
  return {
    kind,
    negated: e.negated === true,
    with: undefined,
    a: undefined,
    b: undefined,
    call: undefined,
    term: undefined,
    every: undefined,
    notBody: undefined,
    fast: undefined,
    src: e,
  }
}

function prepareExpr(ctx: PrepareContext, scope: Scope, e: Expr): PExpr {
  const ts = e.terms
  let out: PExpr
  if (Array.isArray(ts)) {
    if (isEquality(e) || (refName(ts[0] as Term) === 'eq' && ts.length === 3)) {
      out = emptyExpr(X.Unify, e)
      out.a = prepareTerm(ctx, scope, ts[1] as Term)
      out.b = prepareTerm(ctx, scope, ts[2] as Term)
    } else {
      out = emptyExpr(X.Call, e)
      out.call = prepareCall(ctx, scope, ts, e)
    }
  } else if (ts.type === 'every') {
    out = emptyExpr(X.Every, e)
    out.every = {
      key: prepareTerm(ctx, scope, ts.key ?? { type: 'var', value: `$every_key_${scope.names.length}` }),
      value: prepareTerm(ctx, scope, ts.value),
      domain: prepareTerm(ctx, scope, ts.domain),
      body: prepareBody(ctx, scope, ts.body),
    }
  } else if (ts.type === 'not') {
    // Negated, so evaluation goes through `evalNot` (and partial evaluation through its
    // `evalNotPartial`), whose positive side runs the body (evaluator.ts, X.Not).
    out = emptyExpr(X.Not, e)
    out.negated = true
    out.notBody = prepareBody(ctx, scope, ts.body)
  } else if (ts.type === 'and' || ts.type === 'or') {
    // The compiler lowers these to not-bodies (lower-logical-exprs.ts) before anything runs.
    throw new Error(`internal error: unlowered \`${ts.type}\` expression`)
  } else if (ts.type === 'somedecl') {
    out = emptyExpr(X.Term, e)
    out.term = { k: K.Value, v: true, src: { type: 'boolean', value: true } }
  } else {
    out = emptyExpr(X.Term, e)
    out.term = prepareTerm(ctx, scope, ts)
  }
  if (e.with && e.with.length > 0) out.with = e.with.map((w) => prepareWith(ctx, scope, w))
  out.fast = fastStep(out, ctx.root) as PExpr['fast']
  return out
}

function prepareCall(ctx: PrepareContext, scope: Scope, ts: Term[], e: Expr): PExpr['call'] {
  const op = ts[0] as Term
  const operands = ts.slice(1)
  if (op.type === 'ref' && op.value[0]?.type === 'var' && op.value[0].value === 'data') {
    const path = op.value.slice(1).map((t) => constantValue(t))
    const node = path.every((p) => p !== undefined) ? lookup(ctx.root, path as Value[]) : undefined
    const set = node?.ruleSet
    if (!set) throw internalError(`undefined function ${refString(op.value)}`, e.location)
    const arity = set.arity
    return {
      name: refString(op.value),
      fn: node,
      builtin: undefined,
      arity,
      args: operands.slice(0, arity).map((x) => prepareTerm(ctx, scope, x)),
      output: operands[arity] ? prepareTerm(ctx, scope, operands[arity] as Term) : undefined,
      compare: undefined,
    }
  }
  const name = refName(op)
  if (name === undefined) throw internalError('illegal call operator', e.location)
  const builtin = ctx.builtins.get(name)
  if (!builtin && !ctx.isLanguageBuiltin(name))
    throw internalError(`unsupported built-in function: ${name}`, e.location)
  const arity = builtin ? builtin.arity : name === 'print' ? operands.length : 1
  return {
    name,
    fn: undefined,
    builtin,
    arity,
    args: operands.slice(0, arity).map((x) => prepareTerm(ctx, scope, x)),
    output: operands[arity] ? prepareTerm(ctx, scope, operands[arity] as Term) : undefined,
    compare: builtin && builtin === DEFAULT_BY_NAME.get(name) ? comparisonOf(name) : undefined,
  }
}

/** The registry's own built-ins: only those get the evaluator's in-place fast paths. */
const DEFAULT_BY_NAME = indexBuiltins(DEFAULT_BUILTINS)

function prepareWith(ctx: PrepareContext, scope: Scope, w: With): PWith {
  const t = w.target
  const parts = t.type === 'ref' ? t.value : [t]
  const head = parts[0]
  const fn = (fnKey: string, path: Value[]): PWith => {
    const fnValue = functionRef(ctx, w.value)
    const value: PTerm = fnValue ? { k: K.Value, v: null, src: w.value } : prepareTerm(ctx, scope, w.value)
    return { kind: WithKind.Function, path, fnKey, value, fnValue, src: w }
  }
  if (head?.type === 'var' && (head.value === 'input' || head.value === 'data')) {
    const rest = parts.slice(1).map((x) => constantValue(x))
    const kind = head.value === 'data' ? WithKind.Data : WithKind.Input
    if (!rest.every((x) => x !== undefined)) {
      const value = prepareTerm(ctx, scope, w.value)
      return { kind, path: [], fnKey: '', value, fnValue: undefined, nonGround: true, src: w }
    }
    const path = rest as Value[]
    if (head.value === 'data' && lookup(ctx.root, path)?.ruleSet?.kind === SetKind.Function) {
      return fn(refString(parts), path)
    }
    return { kind, path, fnKey: '', value: prepareTerm(ctx, scope, w.value), fnValue: undefined, src: w }
  }
  return fn(refName(t) ?? '', [])
}

/** The function a `with` value names, if it names one (a user function or a built-in). */
function functionRef(ctx: PrepareContext, t: Term): FunctionRef | undefined {
  if (t.type === 'ref' && t.value[0]?.type === 'var' && t.value[0].value === 'data') {
    const path = t.value.slice(1).map((x) => constantValue(x))
    if (!path.every((p) => p !== undefined)) return undefined
    const node = lookup(ctx.root, path as Value[])
    if (node?.ruleSet?.kind === SetKind.Function)
      return { name: refString(t.value), fn: node, builtin: undefined }
    return undefined
  }
  if (t.type !== 'ref' && t.type !== 'var') return undefined
  const name = refName(t)
  if (name === undefined) return undefined
  const builtin = ctx.builtins.get(name)
  if (builtin || ctx.isLanguageBuiltin(name)) return { name, fn: undefined, builtin }
  return undefined
}

/** The node at `path` under `root`. */
export function lookup(root: VNode, path: readonly Value[]): VNode | undefined {
  let node: VNode | undefined = root
  for (const p of path) {
    node = node.child(p)
    if (!node) return undefined
  }
  return node
}

/** Builds the prepared rule tree from the compiler's. */
export function prepareRuleTree(c: Compiler, ctx: Omit<PrepareContext, 'root'>): VNode {
  const root = new VNode('data', [])
  const full: PrepareContext = { ...ctx, root, comprehensionIndices: c.comprehensionIndices }
  const pairs: Array<[RuleTreeNode, VNode]> = []
  const build = (src: RuleTreeNode, dst: VNode): void => {
    pairs.push([src, dst])
    for (const child of src.sortedChildren()) {
      const key = constantValue(child.key)
      if (key === undefined) continue
      const node = new VNode(key, [...dst.path, key])
      node.hidden = child.hidden
      dst.addChild(node)
      dst.sortedKeys.push(key)
      build(child, node)
    }
  }
  build(c.ruleTree, root)
  // Rule sets are created first (without bodies) so calls between functions resolve.
  let nextId = 0
  const sets: Array<[RuleTreeNode, RuleSet]> = []
  for (const [src, dst] of pairs) {
    if (src.rules.length === 0) continue
    const set: RuleSet = {
      id: nextId++,
      kind: ruleSetKind(src.rules),
      node: dst,
      rules: [],
      constraints: [],
      defaultRule: undefined,
      earlyExit: false,
      arity: src.rules[0]?.rule.head.args?.length ?? 0,
      indexed: false,
      all: [],
    }
    dst.ruleSet = set
    sets.push([src, set])
  }
  for (const [src, set] of sets) fillRuleSet(full, c, src, set)
  return root
}

function ruleSetKind(rules: RuleEntry[]): SetKind {
  const first = rules[0]?.rule
  if (!first) return SetKind.Complete
  if (first.head.args !== undefined) return SetKind.Function
  const ground = rules.every((r) => r.rule.head.ref.slice(1).every((t) => constantValue(t) !== undefined))
  const multi = first.head.key !== undefined && first.head.value === undefined
  if (!ground) return SetKind.Object
  return multi ? SetKind.PartialSet : SetKind.Complete
}

function fillRuleSet(ctx: PrepareContext, c: Compiler, src: RuleTreeNode, set: RuleSet): void {
  const index: RuleIndex | undefined = c.ruleIndices.get(src)
  const depth = set.node.path.length + 1
  const own = index?.rules ?? src.rules.filter((r) => !r.rule.default)
  set.rules = own.map((r) => prepareRule(ctx, r, depth))
  set.constraints = (index?.constraints ?? own.map(() => [])).map((cs) =>
    cs.flatMap((x) => prepareConstraint(x)),
  )
  const def = index?.defaultRule ?? src.rules.find((r) => r.rule.default)
  set.defaultRule = def ? prepareRule(ctx, def, depth) : undefined
  set.earlyExit = index?.earlyExit ?? false
  if (set.kind === SetKind.Object) {
    for (const child of src.children.values()) {
      child.depthFirst((n) => {
        for (const r of n.rules) {
          set.rules.push(prepareRule(ctx, r, depth))
          set.constraints.push([])
        }
        return false
      })
    }
  }
  finishIndex(set)
}

function finishIndex(set: RuleSet): void {
  set.indexed = set.constraints.some((cs) => cs.length > 0)
  set.all = set.rules.map((_, i) => i)
}

function prepareConstraint(x: RuleIndex['constraints'][number][number]): PConstraint[] {
  const value = constantValue(x.value)
  const path = x.source.path.map((p) => constantValue(p))
  if (value === undefined || !path.every((p) => p !== undefined)) return []
  return [
    {
      root: x.source.root,
      arg: x.source.root === 'arg' ? x.source.index : -1,
      path: path as Value[],
      value,
    },
  ]
}

/** Prepares one rule (and its else chain) for a node at `depth` (length of the node's data path + 1). */
export function prepareRule(
  ctx: PrepareContext,
  entry: RuleEntry,
  depth: number,
  parentArgs?: Term[],
): PRule {
  const scope = new Scope()
  const rule: Rule = entry.rule
  const h = rule.head
  const argsSrc = h.args ?? parentArgs
  const args = argsSrc?.map((a) => prepareTerm(ctx, scope, a))
  const multiValue = h.key !== undefined && h.value === undefined
  const key = h.key ? prepareTerm(ctx, scope, h.key) : undefined
  const value = h.value ? prepareTerm(ctx, scope, h.value) : undefined
  const refTail = ruleRef(entry)
    .slice(depth)
    .map((t) => prepareTerm(ctx, scope, t))
  const body = prepareBody(ctx, scope, rule.body)
  const out: PRule = {
    src: entry,
    slots: 0,
    names: scope.names,
    args,
    key,
    value,
    refTail,
    multiValue,
    body,
    fastBody: indexGenerators(hoistInvariants(body, ctx.root), ctx.root),
    else: rule.else ? prepareRule(ctx, { rule: rule.else, module: entry.module }, depth, argsSrc) : undefined,
    isDefault: rule.default === true,
  }
  out.slots = scope.names.length
  return out
}
