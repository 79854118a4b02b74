/**
 * The parser of Go's text/template (parse/parse.go), over the items of lexer.ts: the top-level
 * template named `template` (the name OPA gives it) plus every `{{define}}` and `{{block}}`, each
 * a list of nodes. Errors read as Go's: `template: template:LINE: MESSAGE`, LINE being the line of
 * the last item scanned.
 */
import { goQuote, TemplateError } from './errors.js'
import { type Item, type ItemType, itemString, lex } from './lexer.js'
import { parseNumber, unquote } from './literals.js'
import {
  type ArgNode,
  type BranchNode,
  type CommandNode,
  type ListNode,
  type Node,
  nodeString,
  type PipeNode,
  type TemplateNode,
  type VariableNode,
} from './nodes.js'

/** The name OPA's `template.New("template")` gives the top-level template. */
export const TOP_NAME = 'template'

/** Go's maxStackDepth for nested parentheses is 10000; ours is lower to keep the JS stack safe. */
export const MAX_PAREN_DEPTH = 1000
/** How deep `if`/`range`/`with` may nest (Go has no limit; ours keeps the JS stack safe). */
export const MAX_BLOCK_DEPTH = 1000

/** The functions a template may call: Go's built-ins (OPA adds none). */
export const FUNCTION_NAMES: ReadonlySet<string> = new Set([
  'and',
  'call',
  'html',
  'index',
  'slice',
  'js',
  'len',
  'not',
  'or',
  'print',
  'printf',
  'println',
  'urlquery',
  'eq',
  'ge',
  'gt',
  'le',
  'lt',
  'ne',
])

/** The parsed templates by name. */
export type TreeSet = Map<string, ListNode>

/** The item stream shared by the trees being parsed (Go shares its lexer the same way). */
class Stream {
  private i = 0
  /** Index of the last item scanned: Go's `token[0]`, whose line errors report. */
  private scanned = 0

  constructor(
    readonly text: string,
    private readonly items: Item[],
  ) {}

  next(): Item {
    const item = this.items[Math.min(this.i, this.items.length - 1)] as Item
    this.scanned = Math.max(this.scanned, this.i)
    this.i++
    return item
  }

  backup(n = 1): void {
    this.i -= n
  }

  peek(): Item {
    const item = this.next()
    this.backup()
    return item
  }

  nextNonSpace(): Item {
    let item = this.next()
    while (item.type === 'space') item = this.next()
    return item
  }

  peekNonSpace(): Item {
    const save = this.i
    const item = this.nextNonSpace()
    this.i = save
    return item
  }

  mark(): number {
    return this.i
  }

  reset(mark: number): void {
    this.i = mark
  }

  lastLine(): number {
    return (this.items[Math.min(this.scanned, this.items.length - 1)] as Item).line
  }
}

class TreeParser {
  private vars: string[] = ['$']
  private rangeDepth = 0
  private parenDepth = 0
  private blockDepth = 0
  private actionLine = 0

  constructor(
    private readonly s: Stream,
    private readonly trees: TreeSet,
    readonly name: string,
  ) {}

  errorf(message: string): never {
    throw new TemplateError(`template: ${TOP_NAME}:${this.s.lastLine()}: ${message}`)
  }

  private unexpected(item: Item, context: string): never {
    if (item.type === 'error') {
      let extra = ''
      if (this.actionLine !== 0 && this.actionLine !== item.line) {
        extra = ` in action started at ${TOP_NAME}:${this.actionLine}`
        if (item.val.endsWith(' action')) extra = extra.slice(' in action'.length)
      }
      this.errorf(`${itemString(item)}${extra}`)
    }
    this.errorf(`unexpected ${itemString(item)} in ${context}`)
  }

  private expect(type: ItemType, context: string): Item {
    const item = this.s.nextNonSpace()
    if (item.type !== type) this.unexpected(item, context)
    return item
  }

  /** Adds this tree to the set: a non-empty tree may not replace another non-empty one. */
  add(root: ListNode): void {
    const existing = this.trees.get(this.name)
    if (existing === undefined || isEmptyTree(existing)) {
      this.trees.set(this.name, root)
      return
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${goQuote(this.name)}`)
  }

  /** The top-level template, with its `{{define}}`s. */
  parseTop(): ListNode {
    const root: ListNode = { type: 'list', pos: this.s.peek().pos, nodes: [] }
    while (this.s.peek().type !== 'eof') {
      if (this.s.peek().type === 'leftDelim') {
        const mark = this.s.mark()
        this.s.next()
        if (this.s.nextNonSpace().type === 'define') {
          new TreeParser(this.s, this.trees, 'definition').parseDefinition()
          continue
        }
        this.s.reset(mark)
      }
      const n = this.textOrAction()
      if (n.type === 'end' || n.type === 'else') this.errorf(`unexpected ${nodeString(n)}`)
      root.nodes.push(n)
    }
    return root
  }

  private parseDefinition(): void {
    const context = 'define clause'
    const nameItem = this.s.nextNonSpace()
    if (nameItem.type !== 'string' && nameItem.type !== 'rawString') this.unexpected(nameItem, context)
    const name = this.unquoteOrFail(nameItem.val)
    this.expect('rightDelim', context)
    const defined = new TreeParser(this.s, this.trees, name)
    const [root, end] = defined.itemList()
    if (end.type !== 'end') defined.errorf(`unexpected ${nodeString(end)} in ${context}`)
    defined.add(root)
  }

  private unquoteOrFail(text: string): string {
    try {
      return unquote(text)
    } catch (e) {
      return this.errorf((e as Error).message)
    }
  }

  /** textOrAction* up to `{{end}}` or `{{else}}`, returned separately. */
  itemList(): [ListNode, Node] {
    const list: ListNode = { type: 'list', pos: this.s.peekNonSpace().pos, nodes: [] }
    while (this.s.peekNonSpace().type !== 'eof') {
      const n = this.textOrAction()
      if (n.type === 'end' || n.type === 'else') return [list, n]
      list.nodes.push(n)
    }
    return this.errorf('unexpected EOF')
  }

  private textOrAction(): Node {
    const item = this.s.nextNonSpace()
    if (item.type === 'text') return { type: 'text', pos: item.pos, text: item.val }
    if (item.type === 'leftDelim') {
      this.actionLine = item.line
      try {
        return this.action()
      } finally {
        this.actionLine = 0
      }
    }
    return this.unexpected(item, 'input')
  }

  private action(): Node {
    const item = this.s.nextNonSpace()
    switch (item.type) {
      case 'block':
        return this.blockControl()
      case 'break':
      case 'continue':
        return this.loopControl(item)
      case 'else':
        return this.elseControl()
      case 'end':
        return { type: 'end', pos: this.expect('rightDelim', 'end').pos }
      case 'if':
      case 'range':
      case 'with':
        return this.branchControl(item.type)
      case 'template':
        return this.templateControl()
    }
    this.s.backup()
    const first = this.s.peek()
    return { type: 'action', pos: first.pos, line: first.line, pipe: this.pipeline('command', 'rightDelim') }
  }

  private loopControl(keyword: Item): Node {
    const type = keyword.type as 'break' | 'continue'
    const item = this.s.nextNonSpace()
    if (item.type !== 'rightDelim') this.unexpected(item, `{{${type}}}`)
    if (this.rangeDepth === 0) this.errorf(`{{${type}}} outside {{range}}`)
    return { type, pos: keyword.pos, line: keyword.line }
  }

  private pipeline(context: string, end: 'rightDelim' | 'rightParen'): PipeNode {
    const first = this.s.peekNonSpace()
    const pipe: PipeNode = {
      type: 'pipe',
      pos: first.pos,
      line: first.line,
      isAssign: false,
      decl: [],
      cmds: [],
    }
    // Declarations: `$x :=`, `$x =`, and `$i, $e :=` in a range.
    for (let again = true; again; ) {
      again = false
      const v = this.s.peekNonSpace()
      if (v.type !== 'variable') break
      const beforeVar = this.s.mark()
      this.s.nextNonSpace()
      const next = this.s.peekNonSpace()
      if (next.type === 'assign' || next.type === 'declare') {
        pipe.isAssign = next.type === 'assign'
        this.s.nextNonSpace()
        pipe.decl.push(variableNode(v.pos, v.val))
        this.vars.push(v.val)
      } else if (next.type === 'char' && next.val === ',') {
        this.s.nextNonSpace()
        pipe.decl.push(variableNode(v.pos, v.val))
        this.vars.push(v.val)
        if (context === 'range' && pipe.decl.length < 2) {
          const t = this.s.peekNonSpace().type
          if (t === 'variable' || t === 'rightDelim' || t === 'rightParen') {
            again = true
            continue
          }
          this.errorf('range can only initialize variables')
        }
        this.errorf(`too many declarations in ${context}`)
      } else this.s.reset(beforeVar)
    }
    for (;;) {
      const item = this.s.nextNonSpace()
      if (item.type === end) {
        this.checkPipeline(pipe, context)
        return pipe
      }
      switch (item.type) {
        case 'bool':
        case 'charConstant':
        case 'complex':
        case 'dot':
        case 'field':
        case 'identifier':
        case 'number':
        case 'nil':
        case 'rawString':
        case 'string':
        case 'variable':
        case 'leftParen':
          this.s.backup()
          pipe.cmds.push(this.command())
          break
        default:
          this.unexpected(item, context)
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`)
    pipe.cmds.slice(1).forEach((c, i) => {
      const t = c.args[0]?.type
      if (t === 'bool' || t === 'dot' || t === 'nil' || t === 'number' || t === 'string')
        this.errorf(`non executable command in pipeline stage ${i + 2}`)
    })
  }

  private branchControl(type: 'if' | 'range' | 'with'): BranchNode {
    if (this.blockDepth >= MAX_BLOCK_DEPTH) this.errorf('max nesting depth exceeded')
    this.blockDepth++
    const varCount = this.vars.length
    try {
      const pipe = this.pipeline(type, 'rightDelim')
      if (type === 'range') this.rangeDepth++
      const [list, next] = this.itemList()
      if (type === 'range') this.rangeDepth--
      let elseList: ListNode | undefined
      if (next.type === 'else') {
        // `{{else if …}}` and `{{else with …}}` nest the branch in the else list.
        const peek = this.s.peekNonSpace().type
        if ((type === 'if' && peek === 'if') || (type === 'with' && peek === 'with')) {
          this.s.nextNonSpace()
          elseList = { type: 'list', pos: next.pos, nodes: [this.branchControl(type)] }
        } else {
          const [otherwise, last] = this.itemList()
          if (last.type !== 'end') this.errorf(`expected end; found ${nodeString(last)}`)
          elseList = otherwise
        }
      }
      return { type, pos: pipe.pos, line: pipe.line, pipe, list, elseList }
    } finally {
      this.vars.length = varCount
      this.blockDepth--
    }
  }

  private elseControl(): Node {
    const peek = this.s.peekNonSpace()
    if (peek.type === 'if' || peek.type === 'with') return { type: 'else', pos: peek.pos }
    return { type: 'else', pos: this.expect('rightDelim', 'else').pos }
  }

  private blockControl(): Node {
    const context = 'block clause'
    const item = this.s.nextNonSpace()
    const name = this.templateName(item, context)
    const pipe = this.pipeline(context, 'rightDelim')
    const block = new TreeParser(this.s, this.trees, name)
    const [root, end] = block.itemList()
    if (end.type !== 'end') this.errorf(`unexpected ${nodeString(end)} in ${context}`)
    block.add(root)
    return { type: 'template', pos: item.pos, line: item.line, name, pipe }
  }

  private templateControl(): TemplateNode {
    const context = 'template clause'
    const item = this.s.nextNonSpace()
    const name = this.templateName(item, context)
    let pipe: PipeNode | undefined
    if (this.s.nextNonSpace().type !== 'rightDelim') {
      this.s.backup()
      pipe = this.pipeline(context, 'rightDelim')
    }
    return { type: 'template', pos: item.pos, line: item.line, name, pipe }
  }

  private templateName(item: Item, context: string): string {
    if (item.type !== 'string' && item.type !== 'rawString') this.unexpected(item, context)
    return this.unquoteOrFail(item.val)
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: 'command', pos: this.s.peekNonSpace().pos, args: [] }
    for (;;) {
      this.s.peekNonSpace()
      const operand = this.operand()
      if (operand) cmd.args.push(operand)
      const item = this.s.next()
      if (item.type === 'space') continue
      if (item.type === 'rightDelim' || item.type === 'rightParen') this.s.backup()
      else if (item.type !== 'pipe') this.unexpected(item, 'operand')
      break
    }
    if (cmd.args.length === 0) this.errorf('empty command')
    return cmd
  }

  private operand(): ArgNode | undefined {
    const node = this.term()
    if (!node) return undefined
    if (this.s.peek().type !== 'field') return node
    const pos = this.s.peek().pos
    const fields: string[] = []
    while (this.s.peek().type === 'field') fields.push(this.s.next().val.slice(1))
    switch (node.type) {
      case 'field':
        return { type: 'field', pos, ident: [...node.ident, ...fields] }
      case 'variable':
        return { type: 'variable', pos, ident: [...node.ident, ...fields] }
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        return this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`)
      default:
        return { type: 'chain', pos, node, field: fields }
    }
  }

  private term(): ArgNode | undefined {
    const item = this.s.nextNonSpace()
    switch (item.type) {
      case 'identifier':
        if (!FUNCTION_NAMES.has(item.val)) this.errorf(`function ${goQuote(item.val)} not defined`)
        return { type: 'identifier', pos: item.pos, ident: item.val }
      case 'dot':
        return { type: 'dot', pos: item.pos }
      case 'nil':
        return { type: 'nil', pos: item.pos }
      case 'variable':
        return this.useVar(item)
      case 'field':
        return { type: 'field', pos: item.pos, ident: [item.val.slice(1)] }
      case 'bool':
        return { type: 'bool', pos: item.pos, value: item.val === 'true' }
      case 'charConstant':
      case 'complex':
      case 'number':
        try {
          return { type: 'number', pos: item.pos, text: item.val, info: parseNumber(item.val, item.type) }
        } catch (e) {
          return this.errorf((e as Error).message)
        }
      case 'leftParen': {
        if (this.parenDepth >= MAX_PAREN_DEPTH) this.errorf('max expression depth exceeded')
        this.parenDepth++
        try {
          return this.pipeline('parenthesized pipeline', 'rightParen')
        } finally {
          this.parenDepth--
        }
      }
      case 'string':
      case 'rawString':
        return { type: 'string', pos: item.pos, quoted: item.val, text: this.unquoteOrFail(item.val) }
    }
    this.s.backup()
    return undefined
  }

  private useVar(item: Item): VariableNode {
    const v = variableNode(item.pos, item.val)
    if (!this.vars.includes(v.ident[0] as string))
      this.errorf(`undefined variable ${goQuote(v.ident[0] as string)}`)
    return v
  }
}

function variableNode(pos: number, name: string): VariableNode {
  return { type: 'variable', pos, ident: name.split('.') }
}

/** parse.IsEmptyTree: nothing but white space. */
function isEmptyTree(n: Node): boolean {
  if (n.type === 'list') return n.nodes.every(isEmptyTree)
  if (n.type === 'text') return n.text.trim() === ''
  return false
}

/** Parses a template: every tree by name, the top-level one under {@link TOP_NAME}. */
export function parseTemplate(text: string): TreeSet {
  const trees: TreeSet = new Map()
  const top = new TreeParser(new Stream(text, lex(text)), trees, TOP_NAME)
  top.add(top.parseTop())
  return trees
}
