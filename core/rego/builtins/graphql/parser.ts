/**
 * GraphQL parser for executable documents and SDL, producing the JSON OPA returns (gqlparser's
 * AST marshalled, with null and empty members pruned). Positions are kept beside the nodes (in a
 * WeakMap) for validation messages; errors carry gqlparser's wording.
 */
import { describeToken, type Token, type TokenKind, tokenize } from './lexer.js'

/** An AST node in OPA's JSON shape. */
export type Node = Record<string, unknown>

/** A GraphQL syntax or validation error with its position. */
export class GraphQLError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message)
  }
}

const positions = new WeakMap<object, { line: number; column: number }>()

/** The source position of a node, when it was parsed from text. */
export function positionOf(node: object): { line: number; column: number } {
  return positions.get(node) ?? { line: 0, column: 0 }
}

const KIND = {
  Variable: 0,
  Int: 1,
  Float: 2,
  String: 3,
  Block: 4,
  Boolean: 5,
  Null: 6,
  Enum: 7,
  List: 8,
  Object: 9,
}

/** Valid directive locations. */
export const DIRECTIVE_LOCATIONS = new Set([
  'QUERY',
  'MUTATION',
  'SUBSCRIPTION',
  'FIELD',
  'FRAGMENT_DEFINITION',
  'FRAGMENT_SPREAD',
  'INLINE_FRAGMENT',
  'VARIABLE_DEFINITION',
  'SCHEMA',
  'SCALAR',
  'OBJECT',
  'FIELD_DEFINITION',
  'ARGUMENT_DEFINITION',
  'INTERFACE',
  'UNION',
  'ENUM',
  'ENUM_VALUE',
  'INPUT_OBJECT',
  'INPUT_FIELD_DEFINITION',
])

/** Sets `key` unless the value is null or an empty list (OPA prunes those). */
export function put(node: Node, key: string, value: unknown): Node {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return node
  node[key] = value
  return node
}

/** A recursive-descent parser over gqlparser-style tokens; the SDL parser extends it. */
export class Parser {
  protected readonly tokens: Token[]
  protected index = 0

  constructor(src: string) {
    this.tokens = tokenize(src)
  }

  peek(): Token {
    return this.tokens[Math.min(this.index, this.tokens.length - 1)] as Token
  }

  prev(): Token {
    return this.tokens[Math.max(0, this.index - 1)] as Token
  }

  next(): Token {
    const t = this.peek()
    if (t.kind === '<Invalid>') throw this.error(t, `Unexpected ${describeToken(t)}`)
    this.index++
    return t
  }

  error(t: Token, message: string): GraphQLError {
    return new GraphQLError(message, t.line, t.column)
  }

  unexpected(t = this.peek()): GraphQLError {
    return this.error(t, `Unexpected ${describeToken(t)}`)
  }

  skip(kind: TokenKind): boolean {
    if (this.peek().kind !== kind) return false
    this.next()
    return true
  }

  expect(kind: TokenKind): Token {
    const t = this.peek()
    if (t.kind !== kind) throw this.error(t, `Expected ${kind}, found ${describeToken(t)}`)
    return this.next()
  }

  peekKeyword(word: string): boolean {
    const t = this.peek()
    return t.kind === 'Name' && t.value === word
  }

  expectKeyword(word: string): void {
    const t = this.peek()
    if (t.kind !== 'Name' || t.value !== word)
      throw this.error(t, `Expected ${JSON.stringify(word)}, found ${describeToken(t)}`)
    this.next()
  }

  /** `start item* end` (possibly empty). */
  many<T>(start: TokenKind, end: TokenKind, item: () => T): T[] {
    const out: T[] = []
    if (!this.skip(start)) return out
    while (this.peek().kind !== end) out.push(item())
    this.next()
    return out
  }

  /** `start item+ end`. */
  some<T>(start: TokenKind, end: TokenKind, item: () => T): T[] {
    const out: T[] = []
    if (!this.skip(start)) return out
    while (this.peek().kind !== end) out.push(item())
    if (out.length === 0)
      throw this.error(this.peek(), `expected at least one definition, found ${this.peek().kind}`)
    this.next()
    return out
  }

  at<T extends Node>(t: Token, node: T): T {
    positions.set(node, { line: t.line, column: t.column })
    return node
  }

  name(): string {
    return this.expect('Name').value
  }

  // -------------------------------------------------------------------------------- executable

  queryDocument(): Node {
    const operations: Node[] = []
    const fragments: Node[] = []
    while (this.peek().kind !== '<EOF>') {
      const t = this.peek()
      if (t.kind === '{') operations.push(this.operation())
      else if (t.kind === 'Name') {
        if (t.value === 'query' || t.value === 'mutation' || t.value === 'subscription')
          operations.push(this.operation())
        else if (t.value === 'fragment') fragments.push(this.fragmentDefinition())
        else throw this.unexpected()
      } else throw this.unexpected()
    }
    const doc: Node = {}
    put(doc, 'Operations', operations)
    put(doc, 'Fragments', fragments)
    return doc
  }

  operation(): Node {
    const t = this.peek()
    const op: Node = { Operation: 'query', Name: '' }
    if (t.kind === '{') {
      put(op, 'SelectionSet', this.selectionSet())
      return this.at(t, op)
    }
    op.Operation = this.next().value
    if (this.peek().kind === 'Name') op.Name = this.next().value
    put(op, 'VariableDefinitions', this.variableDefinitions())
    put(op, 'Directives', this.directives(false))
    put(op, 'SelectionSet', this.requiredSelectionSet())
    return this.at(t, op)
  }

  variableDefinitions(): Node[] {
    return this.many('(', ')', () => {
      const t = this.peek()
      this.expect('$')
      const def: Node = { Variable: this.name() }
      this.expect(':')
      def.Type = this.typeRef()
      if (this.skip('=')) def.DefaultValue = this.value(true)
      put(def, 'Directives', this.directives(true))
      def.Used = false
      return this.at(t, def)
    })
  }

  selectionSet(): Node[] {
    return this.some('{', '}', () => this.selection())
  }

  requiredSelectionSet(): Node[] {
    const t = this.peek()
    if (t.kind !== '{') throw this.error(t, `Expected {, found ${describeToken(t)}`)
    return this.selectionSet()
  }

  selection(): Node {
    if (this.peek().kind === '...') return this.fragment()
    return this.field()
  }

  field(): Node {
    const t = this.peek()
    let alias = this.name()
    let name = alias
    if (this.skip(':')) name = this.name()
    else alias = name
    const f: Node = { Alias: alias, Name: name }
    put(f, 'Arguments', this.arguments(false))
    put(f, 'Directives', this.directives(false))
    if (this.peek().kind === '{') put(f, 'SelectionSet', this.selectionSet())
    return this.at(t, f)
  }

  arguments(isConst: boolean): Node[] {
    return this.many('(', ')', () => {
      const t = this.peek()
      const arg: Node = { Name: this.name() }
      this.expect(':')
      arg.Value = this.value(isConst)
      return this.at(t, arg)
    })
  }

  fragment(): Node {
    const t = this.expect('...')
    if (this.peek().kind === 'Name' && this.peek().value !== 'on') {
      const spread: Node = { Name: this.name() }
      put(spread, 'Directives', this.directives(false))
      return this.at(t, spread)
    }
    const inline: Node = {}
    if (this.peekKeyword('on')) {
      this.next()
      inline.TypeCondition = this.name()
    }
    put(inline, 'Directives', this.directives(false))
    put(inline, 'SelectionSet', this.requiredSelectionSet())
    return this.at(t, inline)
  }

  fragmentDefinition(): Node {
    const t = this.peek()
    this.expectKeyword('fragment')
    const f: Node = { Name: this.name() }
    if (f.Name === 'on') throw this.unexpected(this.prev())
    put(f, 'VariableDefinition', this.variableDefinitions())
    this.expectKeyword('on')
    f.TypeCondition = this.name()
    put(f, 'Directives', this.directives(false))
    put(f, 'SelectionSet', this.requiredSelectionSet())
    return this.at(t, f)
  }

  value(isConst: boolean): Node {
    const t = this.peek()
    const make = (kind: number, raw: string, children?: Node[]): Node => {
      const v: Node = { Raw: raw }
      put(v, 'Children', children)
      v.Kind = kind
      v.ExpectedTypeHasDefault = false
      return this.at(t, v)
    }
    switch (t.kind) {
      case '[': {
        const items = this.many('[', ']', () => {
          const c = this.peek()
          return this.at(c, { Name: '', Value: this.value(isConst) } as Node)
        })
        return make(KIND.List, '', items)
      }
      case '{': {
        const fields = this.many('{', '}', () => {
          const c = this.peek()
          const name = this.name()
          this.expect(':')
          return this.at(c, { Name: name, Value: this.value(isConst) } as Node)
        })
        return make(KIND.Object, '', fields)
      }
      case '$':
        if (isConst) throw this.unexpected()
        this.next()
        return make(KIND.Variable, this.name())
      case 'Int':
        return make(KIND.Int, this.next().value)
      case 'Float':
        return make(KIND.Float, this.next().value)
      case 'String':
        return make(KIND.String, this.next().value)
      case 'BlockString':
        return make(KIND.Block, this.next().value)
      case 'Name': {
        const v = this.next().value
        if (v === 'true' || v === 'false') return make(KIND.Boolean, v)
        if (v === 'null') return make(KIND.Null, v)
        return make(KIND.Enum, v)
      }
      default:
        throw this.unexpected()
    }
  }

  directives(isConst: boolean): Node[] {
    const out: Node[] = []
    while (this.peek().kind === '@') {
      const t = this.next()
      const d: Node = { Name: this.name() }
      put(d, 'Arguments', this.arguments(isConst))
      d.Location = ''
      out.push(this.at(t, d))
    }
    return out
  }

  typeRef(): Node {
    const t = this.peek()
    let type: Node
    if (this.skip('[')) {
      const elem = this.typeRef()
      this.expect(']')
      type = { Elem: elem, NamedType: '', NonNull: false }
    } else {
      type = { NamedType: this.name(), NonNull: false }
    }
    if (this.skip('!')) type.NonNull = true
    return this.at(t, type)
  }
}

/** Parses an executable document (queries, mutations, subscriptions, fragments). */
export function parseQuery(src: string): Node {
  return new Parser(src).queryDocument()
}
