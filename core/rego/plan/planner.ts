/**
 * `planPolicy`: compiles the rules an entrypoint needs into OPA's intermediate representation
 * (`/plan.json` of `regent build -t plan`). Each entrypoint becomes a plan whose result set holds
 * `{"result": <value of data.<entrypoint>>}`, as `opa build -t plan` plans `result = data.<path>`;
 * each rule set it reaches becomes a function `g0.data.<path>` taking input and data (then the
 * arguments of a user function) and returning the document:
 *
 * - complete rules and functions: one block per definition assigns the head value once
 *   (`AssignVarOnceStmt`: two different values are a conflict), `else` chains try their branches
 *   in order through a local of the chain, `default` fills an undefined result;
 * - multi-value rules (`contains`): `SetAddStmt` into a set made first;
 * - single-key object rules (`p[k] := v`): `ObjectInsertOnceStmt` into an object made first.
 *
 * The subset and what is refused are listed in docs/plan.md.
 */
import type { Builtin } from '../builtins/define.js'
import type { Compiler } from '../compiler/compiler.js'
import { type RuleEntry, type RuleTreeNode, ruleRef } from '../compiler/rule-tree.js'
import { groundPrefix, stringTerm, varTerm } from '../compiler/terms.js'
import type { Location, Rule, Term } from '../syntax/ast.js'
import { BodyPlanner, hasRulesBelow, type RuleFunctions } from './body-planner.js'
import { Emitter, local } from './emitter.js'
import { PlanEntrypointError, PlanError } from './errors.js'
import { type Block, DATA_LOCAL, type Func, INPUT_LOCAL, type Local, type Plan, type Policy } from './ir.js'
import type { Vars } from './vars.js'

/** Entrypoints of a plan: the ones asked for, and rules that refer to them (planned when they are documents). */
export interface PlanEntrypoints {
  /** Slash paths (`authz/allow`) given with `-e` or annotated; each must name rules. */
  required: readonly string[]
  /** Extra slash paths (dependents); functions among them are skipped. */
  optional?: readonly string[]
}

type RuleKind = 'complete' | 'function' | 'set' | 'object'

interface FunctionInfo {
  name: string
  path: string[]
  arity: number
  kind: RuleKind
  node: RuleTreeNode
}

/**
 * Plans `entrypoints` of a compiled module set.
 * @throws PlanError for a construct outside the subset, PlanEntrypointError for an entrypoint naming no rule.
 */
export function planPolicy(
  compiler: Compiler,
  entrypoints: PlanEntrypoints,
  builtins: ReadonlyMap<string, Builtin>,
): Policy {
  return new Planner(compiler, builtins).plan(entrypoints)
}

function segmentText(t: Term): string {
  return t.type === 'string' ? t.value : JSON.stringify(t.value)
}

function nameOf(ref: readonly Term[]): string {
  return ref
    .map((t, i) => {
      if (i === 0) return String(t.value)
      if (t.type === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) return `.${t.value}`
      return `[${JSON.stringify(t.value)}]`
    })
    .join('')
}

class Planner implements RuleFunctions {
  readonly root: RuleTreeNode
  readonly #compiler: Compiler
  readonly #e = new Emitter()
  readonly #body: BodyPlanner
  readonly #functions = new Map<RuleTreeNode, FunctionInfo>()
  readonly #queue: FunctionInfo[] = []

  constructor(compiler: Compiler, builtins: ReadonlyMap<string, Builtin>) {
    this.#compiler = compiler
    this.root = compiler.ruleTree
    this.#body = new BodyPlanner(this.#e, this, builtins)
  }

  plan(entrypoints: PlanEntrypoints): Policy {
    // Files first, in module order, so `static.files` lists every source and index 0 exists.
    for (const name of this.#compiler.sorted) this.#e.file(name)
    const plans: Plan[] = []
    const seen = new Set<string>()
    for (const path of entrypoints.required) {
      if (seen.has(path)) continue
      seen.add(path)
      plans.push(this.#bounded(() => this.#planEntrypoint(path, true), undefined) as Plan)
    }
    for (const path of entrypoints.optional ?? []) {
      if (seen.has(path)) continue
      seen.add(path)
      const plan = this.#bounded(() => this.#planEntrypoint(path, false), undefined)
      if (plan) plans.push(plan)
    }
    const funcs: Func[] = []
    for (let info = this.#queue.shift(); info; info = this.#queue.shift())
      funcs.push(this.#bounded(() => this.#planFunction(info), info.node.rules[0]?.rule.location))
    return { static: this.#e.static(), plans: { plans }, funcs: { funcs } }
  }

  /**
   * Runs one planning step; a stack overflow becomes a refusal naming the rule. Planning recurses
   * once per expression of a body (continuation-passing), so a body of many hundreds of
   * expressions exhausts the stack: refused in one line rather than crashing the build.
   */
  #bounded<T>(plan: () => T, location: Location | undefined): T {
    try {
      return plan()
    } catch (err) {
      if (!(err instanceof RangeError)) throw err
      throw new PlanError(
        'a rule body this long (the planner recurses once per expression: split the rule)',
        location ?? this.#e.location,
      )
    }
  }

  /** The node an entrypoint names and the ref of it; undefined when nothing is there. */
  #planEntrypoint(path: string, required: boolean): Plan | undefined {
    const parts = path
      .replace(/^\//, '')
      .split('/')
      .filter((p) => p !== '')
    const ref: Term[] = [varTerm('data'), ...parts.map((p) => stringTerm(p))]
    const { node, tail } = this.root.find(ref.slice(1))
    const named = tail.length === 0 ? hasRulesBelow(node) : node.rules.length > 0
    if (!named) {
      if (!required) return undefined
      throw new PlanEntrypointError(`entrypoint "${path}" does not refer to a rule or policy decision`)
    }
    if (node.rules.length > 0 && node.rules.some((r) => r.rule.head.args)) {
      if (!required) return undefined
      throw new PlanEntrypointError(`entrypoint "${path}" names a function, which a plan cannot query`)
    }
    this.#e.startFunction()
    this.#e.location = node.rules[0]?.rule.location
    const block = this.#e.nested(() =>
      this.#body.planTerm({ type: 'ref', value: ref }, new Map(), (op) => {
        const object = this.#e.newLocal()
        this.#e.emit('MakeObjectStmt', { target: object })
        this.#e.emit('ObjectInsertStmt', { key: this.#e.string('result'), value: op, object })
        this.#e.emit('ResultSetAddStmt', { value: object })
      }),
    )
    return { name: parts.join('/'), blocks: [block] }
  }

  functionFor(node: RuleTreeNode, location: Location | undefined): { name: string; arity: number } {
    let info = this.#functions.get(node)
    if (!info) {
      const first = node.rules[0] as RuleEntry
      const ref = groundPrefix(ruleRef(first))
      const kind = this.#kindOf(node, location)
      info = {
        name: `g0.${nameOf(ref)}`,
        path: ['g0', ...ref.slice(1).map(segmentText)],
        arity: kind === 'function' ? (first.rule.head.args?.length ?? 0) : 0,
        kind,
        node,
      }
      this.#functions.set(node, info)
      this.#queue.push(info)
    }
    return { name: info.name, arity: info.arity }
  }

  #kindOf(node: RuleTreeNode, location: Location | undefined): RuleKind {
    const kinds = new Set<RuleKind>()
    for (const { rule, module } of node.rules) {
      const ref = ruleRef({ rule, module })
      const variable = ref.length - groundPrefix(ref).length
      if (rule.head.args) kinds.add('function')
      else if (rule.head.key && rule.head.value === undefined) {
        if (variable > 0)
          throw new PlanError('a multi-value rule with a variable in its reference', rule.location)
        kinds.add('set')
      } else if (variable > 1)
        throw new PlanError('a rule head reference with more than one variable part', rule.location)
      else if (variable === 1) kinds.add('object')
      else kinds.add('complete')
    }
    if (kinds.size !== 1) throw new PlanError('rules of different kinds at one path', location)
    if (node.children.size > 0 && [...node.children.values()].some(hasRulesBelow))
      throw new PlanError('rules nested below another rule', node.rules[0]?.rule.location)
    return [...kinds][0] as RuleKind
  }

  #planFunction(info: FunctionInfo): Func {
    this.#e.startFunction(info.arity)
    const params: Local[] = [INPUT_LOCAL, DATA_LOCAL]
    for (let i = 0; i < info.arity; i++) params.push(DATA_LOCAL + 1 + i)
    const ret = this.#e.newLocal()
    const blocks: Block[] = []
    const entries = info.node.rules
    this.#e.location = entries[0]?.rule.location
    if (info.kind === 'set' || info.kind === 'object') {
      blocks.push(
        this.#e.nested(() =>
          this.#e.emit(info.kind === 'set' ? 'MakeSetStmt' : 'MakeObjectStmt', { target: ret }),
        ),
      )
      for (const { rule } of entries) blocks.push(this.#multiValueBlock(rule, info.kind, ret))
    } else {
      for (const { rule } of entries)
        if (!rule.default) blocks.push(...this.#completeBlocks(rule, ret, params))
      const fallback = entries.find((e) => e.rule.default)?.rule
      if (fallback) {
        this.#e.location = fallback.location
        blocks.push(
          this.#e.nested(() => {
            this.#e.emit('IsUndefinedStmt', { source: ret })
            // The body holds what the compiler moved out of the head (comprehensions, calls).
            this.#body.planQuery(fallback.body, new Map(), (vars) =>
              this.#body.planTerm(fallback.head.value as Term, vars, (op) =>
                this.#e.emit('AssignVarStmt', { source: op, target: ret }),
              ),
            )
          }),
        )
      }
    }
    blocks.push(this.#e.nested(() => this.#e.emit('ReturnLocalStmt', { source: ret })))
    return { name: info.name, params, return: ret, blocks, path: info.path }
  }

  /** One block per branch of `rule`'s else chain; branches after the first run only while the chain is undefined. */
  #completeBlocks(rule: Rule, ret: Local, params: readonly Local[]): Block[] {
    const chain: Rule[] = []
    for (let r: Rule | undefined = rule; r; r = r.else) chain.push(r)
    if (chain.length === 1) return [this.#branchBlock(rule, ret, params, undefined)]
    const chainResult = this.#e.newLocal()
    const blocks = chain.map((branch, i) =>
      this.#branchBlock(branch, chainResult, params, i > 0 ? chainResult : undefined),
    )
    this.#e.location = rule.location
    blocks.push(
      this.#e.nested(() => {
        this.#e.emit('IsDefinedStmt', { source: chainResult })
        this.#e.emit('AssignVarOnceStmt', { source: local(chainResult), target: ret })
      }),
    )
    return blocks
  }

  #branchBlock(rule: Rule, target: Local, params: readonly Local[], unlessDefined: Local | undefined): Block {
    this.#e.location = rule.location
    return this.#e.nested(() => {
      if (unlessDefined !== undefined) this.#e.emit('IsUndefinedStmt', { source: unlessDefined })
      this.#planArgs(rule, params, (vars) =>
        this.#body.planQuery(rule.body, vars, (bound) => {
          this.#e.location = rule.head.location ?? rule.location
          this.#body.planTerm(rule.head.value ?? { type: 'boolean', value: true }, bound, (op) =>
            this.#e.emit('AssignVarOnceStmt', { source: op, target }),
          )
        }),
      )
    })
  }

  /** A function's arguments matched against its parameters (locals 2, 3, ...). */
  #planArgs(rule: Rule, params: readonly Local[], iter: (vars: Vars) => void): void {
    const args = rule.head.args ?? []
    const step = (i: number, vars: Vars): void => {
      const arg = args[i]
      if (!arg) {
        iter(vars)
        return
      }
      this.#body.planUnifyLocal(arg, local(params[i + 2] as Local), vars, (next) => step(i + 1, next))
    }
    step(0, new Map())
  }

  #multiValueBlock(rule: Rule, kind: 'set' | 'object', ret: Local): Block {
    this.#e.location = rule.location
    const ref = rule.head.ref
    const key = (kind === 'object' ? ref[ref.length - 1] : rule.head.key) as Term
    return this.#e.nested(() =>
      this.#body.planQuery(rule.body, new Map(), (vars) => {
        this.#e.location = rule.head.location ?? rule.location
        this.#body.planTerm(key, vars, (keyOp, afterKey) => {
          if (kind === 'set') {
            this.#e.emit('SetAddStmt', { value: keyOp, set: ret })
            return
          }
          this.#body.planTerm(rule.head.value as Term, afterKey, (value) =>
            this.#e.emit('ObjectInsertOnceStmt', { key: keyOp, value, object: ret }),
          )
        })
      }),
    )
  }
}
