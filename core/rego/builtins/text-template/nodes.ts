/**
 * The parse tree of a template (Go's parse/node.go) and each node's `String()`, which Go's
 * execution errors quote as their context (`executing "template" at <.x.y>`).
 */
import { goQuote } from './errors.js'
import type { NumberInfo } from './literals.js'

interface At {
  /** UTF-16 index of the node in the template text (Go's Pos, converted to bytes for errors). */
  pos: number
}

export interface FieldNode extends At {
  type: 'field'
  ident: string[]
}
export interface VariableNode extends At {
  type: 'variable'
  ident: string[]
}
export interface ChainNode extends At {
  type: 'chain'
  node: ArgNode
  field: string[]
}
export interface IdentifierNode extends At {
  type: 'identifier'
  ident: string
}
export interface DotNode extends At {
  type: 'dot'
}
export interface NilNode extends At {
  type: 'nil'
}
export interface BoolNode extends At {
  type: 'bool'
  value: boolean
}
export interface NumberNode extends At {
  type: 'number'
  text: string
  info: NumberInfo
}
export interface StringNode extends At {
  type: 'string'
  quoted: string
  text: string
}
export interface PipeNode extends At {
  type: 'pipe'
  line: number
  isAssign: boolean
  decl: VariableNode[]
  cmds: CommandNode[]
}
export interface CommandNode extends At {
  type: 'command'
  args: ArgNode[]
}

/** What a command's words can be. */
export type ArgNode =
  | FieldNode
  | VariableNode
  | ChainNode
  | IdentifierNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode

export interface ListNode extends At {
  type: 'list'
  nodes: Node[]
}
export interface TextNode extends At {
  type: 'text'
  text: string
}
export interface ActionNode extends At {
  type: 'action'
  line: number
  pipe: PipeNode
}
export interface BranchNode extends At {
  type: 'if' | 'range' | 'with'
  line: number
  pipe: PipeNode
  list: ListNode
  elseList: ListNode | undefined
}
export interface TemplateNode extends At {
  type: 'template'
  line: number
  name: string
  pipe: PipeNode | undefined
}
export interface LoopControlNode extends At {
  type: 'break' | 'continue'
  line: number
}
/** `{{end}}` and `{{else}}` exist only while parsing. */
export interface DelimiterNode extends At {
  type: 'end' | 'else'
}

export type Node =
  | ListNode
  | TextNode
  | ActionNode
  | BranchNode
  | TemplateNode
  | LoopControlNode
  | DelimiterNode

/** Any node, for error contexts. */
export type AnyNode = Node | ArgNode | CommandNode

/** Go's `Node.String()`. */
export function nodeString(n: AnyNode): string {
  switch (n.type) {
    case 'field':
      return n.ident.map((f) => `.${f}`).join('')
    case 'variable':
      return n.ident.join('.')
    case 'chain': {
      const head = n.node.type === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node)
      return head + n.field.map((f) => `.${f}`).join('')
    }
    case 'identifier':
      return n.ident
    case 'dot':
      return '.'
    case 'nil':
      return 'nil'
    case 'bool':
      return n.value ? 'true' : 'false'
    case 'number':
      return n.text
    case 'string':
      return n.quoted
    case 'pipe': {
      let s = ''
      if (n.decl.length > 0) s = `${n.decl.map(nodeString).join(', ')}${n.isAssign ? ' = ' : ' := '}`
      return s + n.cmds.map(nodeString).join(' | ')
    }
    case 'command':
      return n.args.map((a) => (a.type === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ')
    case 'list':
      return n.nodes.map(nodeString).join('')
    case 'text':
      return n.text
    case 'action':
      return `{{${nodeString(n.pipe)}}}`
    case 'if':
    case 'range':
    case 'with': {
      const otherwise = n.elseList ? `{{else}}${nodeString(n.elseList)}` : ''
      return `{{${n.type} ${nodeString(n.pipe)}}}${nodeString(n.list)}${otherwise}{{end}}`
    }
    case 'template':
      return n.pipe
        ? `{{template ${goQuote(n.name)} ${nodeString(n.pipe)}}}`
        : `{{template ${goQuote(n.name)}}}`
    case 'break':
    case 'continue':
      return `{{${n.type}}}`
    case 'end':
    case 'else':
      return `{{${n.type}}}`
  }
}
