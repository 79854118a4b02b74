/**
 * The GraphQL schema definition language (SDL) parser, producing the schema-document JSON OPA
 * returns (`Definitions`, `Extensions`, `Directives`, `Schema`, `SchemaExtension`).
 */
import { DIRECTIVE_LOCATIONS, type Node, Parser, put } from './parser.js'

class SchemaParser extends Parser {
  schemaDocument(): Node {
    const doc: Record<string, Node[]> = {
      Schema: [],
      SchemaExtension: [],
      Directives: [],
      Definitions: [],
      Extensions: [],
    }
    while (this.peek().kind !== '<EOF>') {
      let description = ''
      let hasDescription = false
      if (this.peek().kind === 'String' || this.peek().kind === 'BlockString') {
        description = this.next().value
        hasDescription = true
      }
      const t = this.peek()
      if (t.kind !== 'Name') throw this.unexpected()
      switch (t.value) {
        case 'scalar':
        case 'type':
        case 'interface':
        case 'union':
        case 'enum':
        case 'input':
          doc.Definitions?.push(this.typeDefinition(description))
          break
        case 'schema':
          doc.Schema?.push(this.schemaDefinition(description))
          break
        case 'directive':
          doc.Directives?.push(this.directiveDefinition(description))
          break
        case 'extend':
          if (hasDescription) throw this.unexpected(this.prev())
          this.extension(doc)
          break
        default:
          throw this.unexpected()
      }
    }
    const out: Node = {}
    for (const key of ['Schema', 'SchemaExtension', 'Directives', 'Definitions', 'Extensions'])
      put(out, key, doc[key])
    return out
  }

  schemaDefinition(description: string): Node {
    const t = this.peek()
    this.expectKeyword('schema')
    const def: Node = { Description: description }
    put(def, 'Directives', this.directives(true))
    put(
      def,
      'OperationTypes',
      this.some('{', '}', () => this.operationType()),
    )
    return this.at(t, def)
  }

  operationType(): Node {
    const t = this.peek()
    const op = this.name()
    if (op !== 'query' && op !== 'mutation' && op !== 'subscription') throw this.unexpected(this.prev())
    this.expect(':')
    return this.at(t, { Operation: op, Type: this.name() })
  }

  typeDefinition(description: string): Node {
    const t = this.peek()
    const keyword = this.name()
    const kind = {
      scalar: 'SCALAR',
      type: 'OBJECT',
      interface: 'INTERFACE',
      union: 'UNION',
      enum: 'ENUM',
      input: 'INPUT_OBJECT',
    }[keyword] as string
    const def: Node = { Kind: kind, Description: description, Name: this.name() }
    let interfaces: string[] = []
    let directives: Node[] = []
    let fields: Node[] = []
    const types: string[] = []
    let values: Node[] = []
    if (kind === 'OBJECT' || kind === 'INTERFACE') {
      interfaces = this.implementsInterfaces()
      directives = this.directives(true)
      fields = this.some('{', '}', () => this.fieldDefinition())
    } else if (kind === 'UNION') {
      directives = this.directives(true)
      if (this.skip('=')) {
        this.skip('|')
        types.push(this.name())
        while (this.skip('|')) types.push(this.name())
      }
    } else if (kind === 'ENUM') {
      directives = this.directives(true)
      values = this.some('{', '}', () => this.enumValue())
    } else if (kind === 'INPUT_OBJECT') {
      directives = this.directives(true)
      fields = this.some('{', '}', () => this.inputValue())
    } else {
      directives = this.directives(true)
    }
    put(def, 'Directives', directives)
    put(def, 'Interfaces', interfaces)
    put(def, 'Fields', fields)
    put(def, 'Types', types)
    put(def, 'EnumValues', values)
    def.BuiltIn = false
    return this.at(t, def)
  }

  implementsInterfaces(): string[] {
    const out: string[] = []
    if (!this.peekKeyword('implements')) return out
    this.next()
    this.skip('&')
    out.push(this.name())
    while (this.skip('&')) out.push(this.name())
    return out
  }

  fieldDefinition(): Node {
    const t = this.peek()
    const description = this.description()
    const f: Node = { Description: description, Name: this.name() }
    put(
      f,
      'Arguments',
      this.many('(', ')', () => this.inputValue()),
    )
    this.expect(':')
    f.Type = this.typeRef()
    put(f, 'Directives', this.directives(true))
    return this.at(t, f)
  }

  inputValue(): Node {
    const t = this.peek()
    const description = this.description()
    const v: Node = { Description: description, Name: this.name() }
    this.expect(':')
    v.Type = this.typeRef()
    if (this.skip('=')) v.DefaultValue = this.value(true)
    put(v, 'Directives', this.directives(true))
    return this.at(t, v)
  }

  enumValue(): Node {
    const t = this.peek()
    const description = this.description()
    const v: Node = { Description: description, Name: this.name() }
    if (v.Name === 'true' || v.Name === 'false' || v.Name === 'null')
      throw this.error(this.prev(), `${v.Name} is reserved and cannot be used for an enum value`)
    put(v, 'Directives', this.directives(true))
    return this.at(t, v)
  }

  description(): string {
    const k = this.peek().kind
    return k === 'String' || k === 'BlockString' ? this.next().value : ''
  }

  directiveDefinition(description: string): Node {
    const t = this.peek()
    this.expectKeyword('directive')
    this.expect('@')
    const d: Node = { Description: description, Name: this.name() }
    put(
      d,
      'Arguments',
      this.many('(', ')', () => this.inputValue()),
    )
    d.IsRepeatable = false
    if (this.peekKeyword('repeatable')) {
      this.next()
      d.IsRepeatable = true
    }
    this.expectKeyword('on')
    this.skip('|')
    const locations = [this.directiveLocation()]
    while (this.skip('|')) locations.push(this.directiveLocation())
    d.Locations = locations
    return this.at(t, d)
  }

  directiveLocation(): string {
    const name = this.name()
    if (!DIRECTIVE_LOCATIONS.has(name)) throw this.unexpected(this.prev())
    return name
  }

  extension(doc: Record<string, Node[]>): void {
    this.expectKeyword('extend')
    const t = this.peek()
    if (t.kind === 'Name' && t.value === 'schema') {
      this.next()
      const ext: Node = { Description: '' }
      const directives = this.directives(true)
      const ops = this.many('{', '}', () => this.operationType())
      if (directives.length === 0 && ops.length === 0) throw this.unexpected()
      put(ext, 'Directives', directives)
      put(ext, 'OperationTypes', ops)
      doc.SchemaExtension?.push(this.at(t, ext))
      return
    }
    if (t.kind === 'Name' && ['scalar', 'type', 'interface', 'union', 'enum', 'input'].includes(t.value)) {
      doc.Extensions?.push(this.extensionDefinition())
      return
    }
    throw this.unexpected()
  }

  extensionDefinition(): Node {
    const t = this.peek()
    const keyword = t.value
    // Extensions may omit the body, unlike definitions; parse leniently then check.
    this.next()
    const name = this.name()
    const kind = {
      scalar: 'SCALAR',
      type: 'OBJECT',
      interface: 'INTERFACE',
      union: 'UNION',
      enum: 'ENUM',
      input: 'INPUT_OBJECT',
    }[keyword] as string
    const def: Node = { Kind: kind, Description: '', Name: name }
    const interfaces = kind === 'OBJECT' || kind === 'INTERFACE' ? this.implementsInterfaces() : []
    const directives = this.directives(true)
    let fields: Node[] = []
    const types: string[] = []
    let values: Node[] = []
    if (this.peek().kind === '{') {
      if (kind === 'OBJECT' || kind === 'INTERFACE')
        fields = this.some('{', '}', () => this.fieldDefinition())
      else if (kind === 'INPUT_OBJECT') fields = this.some('{', '}', () => this.inputValue())
      else if (kind === 'ENUM') values = this.some('{', '}', () => this.enumValue())
    }
    if (kind === 'UNION' && this.skip('=')) {
      this.skip('|')
      types.push(this.name())
      while (this.skip('|')) types.push(this.name())
    }
    if (interfaces.length + directives.length + fields.length + types.length + values.length === 0)
      throw this.unexpected()
    put(def, 'Directives', directives)
    put(def, 'Interfaces', interfaces)
    put(def, 'Fields', fields)
    put(def, 'Types', types)
    put(def, 'EnumValues', values)
    def.BuiltIn = false
    return this.at(t, def)
  }
}

/** Parses a schema document (SDL). */
export function parseSchema(src: string): Node {
  return new SchemaParser(src).schemaDocument()
}
