/**
 * Executes a parsed template as Go's text/template does (exec.go): the same evaluation order, the
 * same notion of the node being evaluated (for error contexts), variables scoped as Go scopes them,
 * `range` in Go's order (maps by sorted key, integers from 0), `break`/`continue`, `template` calls
 * with a depth limit, and missing keys as the invalid value (OPA sets no `missingkey` option).
 * Every node walked, command run and iteration costs one unit of the evaluation budget.
 */
import { chargeWork } from '../meter.js'
import { goQuote, TemplateError } from './errors.js'
import { FUNCTIONS, FuncError, type ParamKind } from './functions.js'
import {
  type AnyNode,
  type ArgNode,
  type BranchNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type ListNode,
  type Node,
  type NumberNode,
  nodeString,
  type PipeNode,
  type TemplateNode,
  type VariableNode,
} from './nodes.js'
import { TOP_NAME, type TreeSet } from './parser.js'
import {
  box,
  formatV,
  type GoValue,
  INVALID,
  sortedKeys,
  truth,
  typeName,
  unbox,
  ZeroValueError,
} from './values.js'

/** Go allows 100000 nested template calls; each costs several JS frames here, so we stop sooner. */
export const MAX_TEMPLATE_DEPTH = 1000

/** The "no argument from a previous pipeline stage" marker (Go's missingVal). */
const MISSING: GoValue = { k: 'invalid' }

class LoopSignal {
  constructor(readonly kind: 'break' | 'continue') {}
}

interface Variable {
  name: string
  value: GoValue
}

/** Byte offset of a UTF-16 index, as Go's positions count. */
function bytesBefore(text: string, pos: number): number {
  return Buffer.byteLength(text.slice(0, pos), 'utf8')
}

class State {
  node: AnyNode | undefined
  vars: Variable[]

  constructor(
    private readonly text: string,
    private readonly trees: TreeSet,
    private readonly name: string,
    private readonly out: string[],
    private readonly depth: number,
    dot: GoValue,
  ) {
    this.vars = [{ name: '$', value: dot }]
  }

  errorf(message: string): never {
    if (this.node === undefined) throw new TemplateError(`template: ${this.name}: ${message}`)
    const pos = this.node.pos
    const before = this.text.slice(0, pos)
    const nl = before.lastIndexOf('\n')
    const line = 1 + (before.match(/\n/g)?.length ?? 0)
    const col = nl < 0 ? bytesBefore(this.text, pos) : Buffer.byteLength(before.slice(nl + 1), 'utf8')
    throw new TemplateError(
      `template: ${TOP_NAME}:${line}:${col}: executing ${goQuote(this.name)} at <${nodeString(this.node)}>: ${message}`,
    )
  }

  private at(node: AnyNode): void {
    this.node = node
  }

  private varValue(name: string): GoValue {
    for (let i = this.vars.length - 1; i >= 0; i--)
      if ((this.vars[i] as Variable).name === name) return (this.vars[i] as Variable).value
    return this.errorf(`undefined variable: ${name}`)
  }

  private setVar(name: string, value: GoValue): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as Variable
      if (v.name === name) {
        v.value = value
        return
      }
    }
    this.errorf(`undefined variable: ${name}`)
  }

  private setTopVar(n: number, value: GoValue): void {
    ;(this.vars[this.vars.length - n] as Variable).value = value
  }

  walk(dot: GoValue, node: Node): void {
    chargeWork(1)
    this.at(node)
    switch (node.type) {
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe)
        if (node.pipe.decl.length === 0) this.printValue(node, val)
        return
      }
      case 'break':
      case 'continue':
        throw new LoopSignal(node.type)
      case 'if':
      case 'with':
        this.walkIfOrWith(dot, node)
        return
      case 'list':
        for (const n of node.nodes) this.walk(dot, n)
        return
      case 'range':
        this.walkRange(dot, node)
        return
      case 'template':
        this.walkTemplate(dot, node)
        return
      case 'text':
        this.write(node.text)
        return
      default:
        this.errorf(`unknown node: ${nodeString(node)}`)
    }
  }

  private write(s: string): void {
    chargeWork(s.length >> 6)
    this.out.push(s)
  }

  private walkIfOrWith(dot: GoValue, node: BranchNode): void {
    const mark = this.vars.length
    try {
      const val = this.evalPipeline(dot, node.pipe)
      if (truth(val)) this.walk(node.type === 'with' ? val : dot, node.list)
      else if (node.elseList) this.walk(dot, node.elseList)
    } finally {
      this.vars.length = mark
    }
  }

  private walkRange(dot: GoValue, r: BranchNode): void {
    this.at(r)
    const outer = this.vars.length
    try {
      const val = unbox(this.evalPipeline(dot, r.pipe))
      const mark = this.vars.length
      const decl = r.pipe.decl
      const one = (index: GoValue, elem: GoValue): boolean => {
        chargeWork(1)
        if (decl.length > 0) {
          if (r.pipe.isAssign) this.setVar(decl[0]?.ident[0] as string, decl.length > 1 ? index : elem)
          else this.setTopVar(1, elem)
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1]?.ident[0] as string, elem)
          else this.setTopVar(2, index)
        }
        try {
          this.walk(elem, r.list)
        } catch (e) {
          if (e instanceof LoopSignal) return e.kind === 'break'
          throw e
        } finally {
          this.vars.length = mark
        }
        return false
      }
      let ran = false
      switch (val.k) {
        case 'int':
        case 'uint8': {
          if (decl.length > 1) this.errorf(`can't use ${formatV(val)} to iterate over more than one variable`)
          const n = val.k === 'int' ? val.v : BigInt(val.v)
          for (let i = 0n; i < n; i++) {
            ran = true
            if (one(INVALID, val.k === 'int' ? { k: 'int', v: i } : { k: 'uint8', v: Number(i) })) break
          }
          break
        }
        case 'slice':
          for (let i = 0; i < val.v.length; i++) {
            ran = true
            if (one({ k: 'int', v: BigInt(i) }, box(val.v[i]))) break
          }
          break
        case 'map':
          for (const key of sortedKeys(val.v)) {
            ran = true
            if (one({ k: 'string', v: key }, box(val.v.get(key)))) break
          }
          break
        case 'invalid':
          break
        default:
          this.errorf(`range can't iterate over ${formatV(val)}`)
      }
      if (!ran && r.elseList) this.walk(dot, r.elseList)
    } finally {
      this.vars.length = outer
    }
  }

  private walkTemplate(dot: GoValue, t: TemplateNode): void {
    this.at(t)
    const tree = this.trees.get(t.name)
    if (tree === undefined) this.errorf(`template ${goQuote(t.name)} not defined`)
    if (this.depth >= MAX_TEMPLATE_DEPTH)
      this.errorf(`exceeded maximum template depth (${MAX_TEMPLATE_DEPTH})`)
    const newDot = this.evalPipeline(dot, t.pipe)
    new State(this.text, this.trees, t.name, this.out, this.depth + 1, newDot).walk(newDot, tree as ListNode)
  }

  private printValue(node: AnyNode, v: GoValue): void {
    this.at(node)
    this.write(v.k === 'invalid' ? '<no value>' : formatV(v))
  }

  evalPipeline(dot: GoValue, pipe: PipeNode | undefined): GoValue {
    if (pipe === undefined) return INVALID
    this.at(pipe)
    let value = MISSING
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value)
      // A value of type interface{} is looked into: a nil one becomes the invalid value.
      if (value.k === 'iface') value = unbox(value)
    }
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0] as string, value)
      else this.vars.push({ name: v.ident[0] as string, value })
    }
    return value
  }

  private notAFunction(args: readonly ArgNode[], final: GoValue): void {
    if (args.length > 1 || final !== MISSING)
      this.errorf(`can't give argument to non-function ${nodeString(args[0] as ArgNode)}`)
  }

  private evalCommand(dot: GoValue, cmd: CommandNode, final: GoValue): GoValue {
    chargeWork(1)
    const first = cmd.args[0] as ArgNode
    switch (first.type) {
      case 'field':
        return this.evalFieldNode(dot, first, cmd.args, final)
      case 'chain':
        return this.evalChainNode(dot, first, cmd.args, final)
      case 'identifier':
        return this.evalFunction(dot, first, cmd, cmd.args, final)
      case 'pipe':
        this.notAFunction(cmd.args, final)
        return this.evalPipeline(dot, first)
      case 'variable':
        return this.evalVariableNode(first, cmd.args, final)
    }
    this.at(first)
    this.notAFunction(cmd.args, final)
    switch (first.type) {
      case 'bool':
        return { k: 'bool', v: first.value }
      case 'dot':
        return dot
      case 'nil':
        return this.errorf('nil is not a command')
      case 'number':
        return this.idealConstant(first)
      case 'string':
        return { k: 'string', v: first.text }
    }
  }

  private idealConstant(c: NumberNode): GoValue {
    this.at(c)
    const t = c.text
    const hexInt = t.length > 2 && t[0] === '0' && (t[1] === 'x' || t[1] === 'X') && !/[pP]/.test(t)
    if (c.info.isFloat && !hexInt && t[0] !== "'" && /[.eEpP]/.test(t)) return { k: 'float', v: c.info.float }
    if (c.info.isInt) return { k: 'int', v: c.info.int }
    if (c.info.isUint) this.errorf(`${t} overflows int`)
    return INVALID
  }

  private evalFieldNode(dot: GoValue, field: FieldNode, args: readonly ArgNode[], final: GoValue): GoValue {
    this.at(field)
    return this.evalFieldChain(dot, field.ident, args, final)
  }

  private evalChainNode(dot: GoValue, chain: ChainNode, args: readonly ArgNode[], final: GoValue): GoValue {
    this.at(chain)
    if (chain.node.type === 'nil') this.errorf(`indirection through explicit nil in ${nodeString(chain)}`)
    const pipe = this.evalArg(dot, undefined, chain.node)
    return this.evalFieldChain(pipe, chain.field, args, final)
  }

  private evalVariableNode(v: VariableNode, args: readonly ArgNode[], final: GoValue): GoValue {
    this.at(v)
    const value = this.varValue(v.ident[0] as string)
    if (v.ident.length === 1) {
      this.notAFunction(args, final)
      return value
    }
    return this.evalFieldChain(value, v.ident.slice(1), args, final)
  }

  private evalFieldChain(
    receiver: GoValue,
    ident: readonly string[],
    args: readonly ArgNode[],
    final: GoValue,
  ): GoValue {
    const n = ident.length
    // No `at` here: an error names the node Go last evaluated (the field, variable or pipeline).
    for (let i = 0; i < n - 1; i++) receiver = this.evalField(ident[i] as string, [], MISSING, receiver)
    return this.evalField(ident[n - 1] as string, args, final, receiver)
  }

  private evalField(name: string, args: readonly ArgNode[], final: GoValue, receiver: GoValue): GoValue {
    if (receiver.k === 'invalid') return INVALID
    const typ = typeName(receiver)
    if (receiver.k === 'iface' && receiver.v === undefined)
      this.errorf(`nil pointer evaluating ${typ}.${name}`)
    const r = unbox(receiver)
    const hasArgs = args.length > 1 || final !== MISSING
    if (r.k === 'map') {
      if (hasArgs) this.errorf(`${name} is not a method but has arguments`)
      return r.v.has(name) ? box(r.v.get(name)) : INVALID
    }
    return this.errorf(`can't evaluate field ${name} in type ${typ}`)
  }

  private evalFunction(
    dot: GoValue,
    node: IdentifierNode,
    cmd: AnyNode,
    args: readonly ArgNode[] | undefined,
    final: GoValue,
  ): GoValue {
    this.at(node)
    const name = node.ident
    const fn = FUNCTIONS.get(name)
    if (fn === undefined) this.errorf(`${goQuote(name)} is not a defined function`)
    const rest = args ? args.slice(1) : []
    const numIn = rest.length + (final !== MISSING ? 1 : 0)
    const numFixed = fn.fixed.length
    if (fn.variadic) {
      if (numIn < numFixed)
        this.errorf(`wrong number of args for ${name}: want at least ${numFixed} got ${rest.length}`)
    } else if (numIn !== numFixed)
      this.errorf(`wrong number of args for ${name}: want ${numFixed} got ${numIn}`)

    if (name === 'and' || name === 'or') {
      let v: GoValue = INVALID
      for (const arg of rest) {
        v = this.evalArg(dot, 'value', arg)
        if (truth(v) === (name === 'or')) return v
      }
      if (final !== MISSING) v = final
      return v
    }

    const argv: GoValue[] = []
    let i = 0
    for (; i < numFixed && i < rest.length; i++) argv.push(this.evalArg(dot, fn.fixed[i], rest[i] as ArgNode))
    for (; i < rest.length; i++) argv.push(this.evalArg(dot, fn.variadic, rest[i] as ArgNode))
    if (final !== MISSING) {
      const kind = numIn - 1 < numFixed ? fn.fixed[numIn - 1] : fn.variadic
      argv.push(this.validateType(final, kind))
    }

    try {
      if (name === 'call') {
        const callee = rest.length === 0 ? final : (argv[0] as GoValue)
        const calleeName = rest.length === 0 ? reflectString(final) : nodeString(rest[0] as ArgNode)
        const f = unbox(callee)
        if (f.k === 'invalid') throw new FuncError('call of nil')
        throw new FuncError(`non-function ${calleeName} of type ${typeName(f)}`)
      }
      return fn.impl(argv)
    } catch (e) {
      if (e instanceof FuncError || e instanceof ZeroValueError) {
        this.at(cmd)
        this.errorf(`error calling ${name}: ${e.message}`)
      }
      throw e
    }
  }

  /** validateType for the three parameter kinds a built-in function has. */
  private validateType(value: GoValue, kind: ParamKind | undefined): GoValue {
    if (kind !== 'string') return value
    if (value.k === 'invalid') this.errorf('invalid value; expected string')
    const x = value.k === 'iface' && value.v !== undefined ? value.v : value
    if (x.k !== 'string') this.errorf(`wrong type for value; expected string; got ${typeName(x)}`)
    return x
  }

  private evalArg(dot: GoValue, kind: ParamKind | undefined, n: ArgNode): GoValue {
    this.at(n)
    switch (n.type) {
      case 'dot':
        return this.validateType(dot, kind)
      case 'nil':
        if (kind === 'string') this.errorf('cannot assign nil to string')
        return INVALID
      case 'field':
        return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), kind)
      case 'variable':
        return this.validateType(this.evalVariableNode(n, [], MISSING), kind)
      case 'pipe':
        return this.validateType(this.evalPipeline(dot, n), kind)
      case 'identifier':
        return this.validateType(this.evalFunction(dot, n, n, undefined, MISSING), kind)
      case 'chain':
        return this.validateType(this.evalChainNode(dot, n, [], MISSING), kind)
    }
    if (kind === 'string') {
      if (n.type === 'string') return { k: 'string', v: n.text }
      return this.errorf(`expected string; found ${nodeString(n)}`)
    }
    switch (n.type) {
      case 'bool':
        return { k: 'bool', v: n.value }
      case 'number':
        return this.idealConstant(n)
      case 'string':
        return { k: 'string', v: n.text }
    }
  }
}

/** reflect.Value.String(): the string of a string kind, `<T Value>` otherwise. */
function reflectString(v: GoValue): string {
  const x = unbox(v)
  if (x.k === 'string' || x.k === 'number') return x.v
  if (x.k === 'invalid') return '<invalid Value>'
  return `<${typeName(v)} Value>`
}

/** Executes the top-level template over `dot` and returns what it wrote. */
export function execute(text: string, trees: TreeSet, dot: GoValue): string {
  const root = trees.get(TOP_NAME)
  const out: string[] = []
  const state = new State(text, trees, TOP_NAME, out, 0, dot)
  if (root === undefined) state.errorf(`${goQuote(TOP_NAME)} is an incomplete or empty template`)
  state.walk(dot, root as ListNode)
  return out.join('')
}
