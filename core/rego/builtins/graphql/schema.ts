/**
 * A GraphQL schema built from a schema document (gqlparser's LoadSchema: the prelude, then the
 * definitions, then extensions merged in) and checked as gqlparser's schema validator does.
 */
import { GraphQLError, type Node, positionOf } from './parser.js'
import { parseSchema } from './sdl.js'

/** A type definition after extensions are merged. */
export interface TypeDef {
  kind: string
  name: string
  fields: Node[]
  interfaces: string[]
  types: string[]
  enumValues: Node[]
  directives: Node[]
  builtIn: boolean
  node: Node
}

/** A directive definition. */
export interface DirectiveDef {
  name: string
  args: Node[]
  locations: string[]
  repeatable: boolean
}

/** The loaded schema. */
export interface Schema {
  types: Map<string, TypeDef>
  directives: Map<string, DirectiveDef>
  query?: string
  mutation?: string
  subscription?: string
}

const PRELUDE = `
scalar Int
scalar Float
scalar String
scalar Boolean
scalar ID
directive @include(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @deprecated(reason: String = "No longer supported") on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE
directive @specifiedBy(url: String!) on SCALAR
directive @oneOf on INPUT_OBJECT
`

function list<T>(x: unknown): T[] {
  return Array.isArray(x) ? (x as T[]) : []
}

function fail(node: object | undefined, message: string): GraphQLError {
  const { line, column } = node ? positionOf(node) : { line: 0, column: 0 }
  return new GraphQLError(message, line, column)
}

/** The named type at the bottom of a type reference. */
export function namedType(type: Node): string {
  let t = type
  while (t.Elem && typeof t.Elem === 'object') t = t.Elem as Node
  return String(t.NamedType ?? '')
}

/** A type reference in GraphQL syntax (`[Locale!]!`). */
export function typeString(type: Node): string {
  const inner =
    type.Elem && typeof type.Elem === 'object'
      ? `[${typeString(type.Elem as Node)}]`
      : String(type.NamedType ?? '')
  return type.NonNull ? `${inner}!` : inner
}

const INPUT_KINDS = new Set(['SCALAR', 'ENUM', 'INPUT_OBJECT'])
const OUTPUT_KINDS = new Set(['SCALAR', 'ENUM', 'OBJECT', 'INTERFACE', 'UNION'])

function addDefinition(schema: Schema, def: Node, builtIn: boolean): void {
  const name = String(def.Name ?? '')
  if (schema.types.has(name)) throw fail(def, `Cannot redeclare type ${name}.`)
  schema.types.set(name, {
    kind: String(def.Kind ?? ''),
    name,
    fields: [...list<Node>(def.Fields)],
    interfaces: [...list<string>(def.Interfaces)],
    types: [...list<string>(def.Types)],
    enumValues: [...list<Node>(def.EnumValues)],
    directives: [...list<Node>(def.Directives)],
    builtIn,
    node: def,
  })
}

function addDirectives(schema: Schema, doc: Node): void {
  for (const d of list<Node>(doc.Directives)) {
    const name = String(d.Name ?? '')
    if (schema.directives.has(name)) throw fail(d, `Cannot redeclare directive ${name}.`)
    schema.directives.set(name, {
      name,
      args: list(d.Arguments),
      locations: list(d.Locations),
      repeatable: d.IsRepeatable === true,
    })
  }
}

/** Loads and validates a schema document; throws GraphQLError on the first problem. */
export function loadSchema(doc: Node): Schema {
  const schema: Schema = { types: new Map(), directives: new Map() }
  const prelude = parseSchema(PRELUDE)
  for (const def of list<Node>(prelude.Definitions)) addDefinition(schema, def, true)
  addDirectives(schema, prelude)
  addDirectives(schema, doc)
  for (const def of list<Node>(doc.Definitions)) addDefinition(schema, def, false)
  for (const ext of list<Node>(doc.Extensions)) {
    const name = String(ext.Name ?? '')
    let def = schema.types.get(name)
    if (!def) {
      addDefinition(schema, { Kind: ext.Kind, Name: name, Description: '', BuiltIn: false }, false)
      def = schema.types.get(name) as TypeDef
    }
    if (def.kind !== ext.Kind)
      throw fail(
        ext,
        `Cannot extend type ${name} because the base type is a ${def.kind}, not ${String(ext.Kind)}.`,
      )
    def.fields.push(...list<Node>(ext.Fields))
    def.interfaces.push(...list<string>(ext.Interfaces))
    def.types.push(...list<string>(ext.Types))
    def.enumValues.push(...list<Node>(ext.EnumValues))
    def.directives.push(...list<Node>(ext.Directives))
  }
  const roots = [...list<Node>(doc.Schema), ...list<Node>(doc.SchemaExtension)]
  for (const root of roots) {
    for (const op of list<Node>(root.OperationTypes)) {
      const typeName = String(op.Type ?? '')
      const def = schema.types.get(typeName)
      if (!def) throw fail(op, `Undefined type ${typeName}.`)
      if (def.kind !== 'OBJECT') throw fail(op, `${typeName} must be an object type.`)
      schema[String(op.Operation) as 'query' | 'mutation' | 'subscription'] = typeName
    }
    checkDirectives(schema, list(root.Directives), 'SCHEMA')
  }
  if (list<Node>(doc.Schema).length === 0) {
    for (const [op, name] of [
      ['query', 'Query'],
      ['mutation', 'Mutation'],
      ['subscription', 'Subscription'],
    ] as const) {
      if (schema[op] === undefined && schema.types.get(name)?.kind === 'OBJECT') schema[op] = name
    }
  }
  for (const def of schema.types.values()) if (!def.builtIn) validateDefinition(schema, def)
  for (const d of schema.directives.values()) {
    for (const arg of d.args)
      checkInputType(schema, arg, `Argument ${String(arg.Name)} of directive @${d.name}`)
  }
  return schema
}

function checkDirectives(schema: Schema, directives: Node[], location: string): void {
  for (const d of directives) {
    const def = schema.directives.get(String(d.Name))
    if (!def) throw fail(d, `Undefined directive ${String(d.Name)}.`)
    if (!def.locations.includes(location))
      throw fail(d, `Directive ${String(d.Name)} is not applicable on ${location}.`)
  }
}

function checkInputType(schema: Schema, value: Node, what: string): void {
  const name = namedType(value.Type as Node)
  const def = schema.types.get(name)
  if (!def) throw fail(value, `Undefined type ${name}.`)
  if (!INPUT_KINDS.has(def.kind)) throw fail(value, `${what} must be an input type, got ${def.kind} ${name}.`)
}

function validateDefinition(schema: Schema, def: TypeDef): void {
  const node = def.node
  if (def.name.startsWith('__'))
    throw fail(
      node,
      `Name "${def.name}" must not begin with "__", which is reserved by GraphQL introspection.`,
    )
  const location =
    {
      SCALAR: 'SCALAR',
      OBJECT: 'OBJECT',
      INTERFACE: 'INTERFACE',
      UNION: 'UNION',
      ENUM: 'ENUM',
      INPUT_OBJECT: 'INPUT_OBJECT',
    }[def.kind] ?? def.kind
  checkDirectives(schema, def.directives, location)
  switch (def.kind) {
    case 'OBJECT':
    case 'INTERFACE':
      if (def.fields.length === 0)
        throw fail(node, `${def.kind} ${def.name}: must define one or more fields.`)
      for (const f of def.fields) {
        const typeName = namedType(f.Type as Node)
        const t = schema.types.get(typeName)
        if (!t) throw fail(f, `Undefined type ${typeName}.`)
        if (!OUTPUT_KINDS.has(t.kind))
          throw fail(f, `${def.kind} field must be one of ${[...OUTPUT_KINDS].join(', ')}.`)
        for (const a of list<Node>(f.Arguments)) checkInputType(schema, a, `Argument ${String(a.Name)}`)
        checkDirectives(schema, list(f.Directives), 'FIELD_DEFINITION')
      }
      checkImplements(schema, def)
      break
    case 'INPUT_OBJECT':
      if (def.fields.length === 0)
        throw fail(node, `${def.kind} ${def.name}: must define one or more input fields.`)
      for (const f of def.fields) {
        checkInputType(schema, f, `INPUT_OBJECT field ${String(f.Name)}`)
        checkDirectives(schema, list(f.Directives), 'INPUT_FIELD_DEFINITION')
      }
      break
    case 'ENUM':
      if (def.enumValues.length === 0)
        throw fail(node, `${def.kind} ${def.name}: must define one or more unique enum values.`)
      for (const v of def.enumValues) checkDirectives(schema, list(v.Directives), 'ENUM_VALUE')
      break
    case 'UNION':
      if (def.types.length === 0)
        throw fail(node, `${def.kind} ${def.name}: must define one or more member types.`)
      for (const member of def.types) {
        const t = schema.types.get(member)
        if (!t) throw fail(node, `Undefined type ${member}.`)
        if (t.kind !== 'OBJECT') throw fail(node, `UNION type "${member}" must be OBJECT.`)
      }
      break
    default:
      break
  }
}

function checkImplements(schema: Schema, def: TypeDef): void {
  for (const iface of def.interfaces) {
    const i = schema.types.get(iface)
    if (!i) throw fail(def.node, `Undefined type ${iface}.`)
    if (i.kind !== 'INTERFACE') throw fail(def.node, `${def.name} must be an INTERFACE.`)
    for (const transitive of i.interfaces) {
      if (!def.interfaces.includes(transitive)) {
        throw fail(
          def.node,
          `${def.kind} ${def.name} must implement ${transitive} because it is implemented by ${iface}.`,
        )
      }
    }
    for (const f of i.fields) {
      const own = def.fields.find((x) => x.Name === f.Name)
      if (!own)
        throw fail(
          def.node,
          `For ${def.name} to implement ${iface} it must have a field called ${String(f.Name)}.`,
        )
    }
  }
}
