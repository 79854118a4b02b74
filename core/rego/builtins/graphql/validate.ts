/**
 * Validation of an executable document against a schema, with the rules of the GraphQL spec as
 * gqlparser implements them (field and argument existence, required arguments, leaf selections,
 * fragments, variables, directives, literal values). Not covered: OverlappingFieldsCanBeMerged.
 */
import { GraphQLError, type Node, positionOf } from './parser.js'
import { namedType, type Schema, type TypeDef, typeString } from './schema.js'

function list<T>(x: unknown): T[] {
  return Array.isArray(x) ? (x as T[]) : []
}

function fail(node: object, message: string): GraphQLError {
  const { line, column } = positionOf(node)
  return new GraphQLError(message, line, column)
}

const COMPOSITE = new Set(['OBJECT', 'INTERFACE', 'UNION'])

/** Possible object types of a composite type. */
function possibleTypes(schema: Schema, def: TypeDef): Set<string> {
  if (def.kind === 'OBJECT') return new Set([def.name])
  if (def.kind === 'UNION') return new Set(def.types)
  const out = new Set<string>()
  for (const t of schema.types.values())
    if (t.kind === 'OBJECT' && t.interfaces.includes(def.name)) out.add(t.name)
  return out
}

class Validator {
  private readonly fragments = new Map<string, Node>()
  private usedVariables = new Set<string>()
  private readonly usedFragments = new Set<string>()

  constructor(
    private readonly schema: Schema,
    private readonly doc: Node,
  ) {}

  run(): void {
    const operations = list<Node>(this.doc.Operations)
    for (const f of list<Node>(this.doc.Fragments)) {
      const name = String(f.Name)
      if (this.fragments.has(name)) throw fail(f, `There can be only one fragment named "${name}".`)
      this.fragments.set(name, f)
    }
    const names = new Set<string>()
    for (const op of operations) {
      const name = String(op.Name ?? '')
      if (name === '' && operations.length > 1)
        throw fail(op, 'This anonymous operation must be the only defined operation.')
      if (name !== '' && names.has(name)) throw fail(op, `There can be only one operation named "${name}".`)
      names.add(name)
    }
    for (const f of this.fragments.values()) this.checkFragmentCycles(f, [])
    for (const f of this.fragments.values()) {
      const type = this.compositeType(f, String(f.TypeCondition))
      this.checkDirectives(list(f.Directives), 'FRAGMENT_DEFINITION')
      this.selections(list(f.SelectionSet), type)
    }
    for (const op of operations) this.operation(op)
    for (const [name, f] of this.fragments)
      if (!this.usedFragments.has(name)) throw fail(f, `Fragment "${name}" is never used.`)
  }

  compositeType(node: Node, name: string): TypeDef {
    const def = this.schema.types.get(name)
    if (!def) throw fail(node, `Unknown type "${name}".`)
    if (!COMPOSITE.has(def.kind))
      throw fail(node, `Fragment cannot condition on non composite type "${name}".`)
    return def
  }

  checkFragmentCycles(f: Node, path: string[]): void {
    const name = String(f.Name)
    if (path.includes(name)) throw fail(f, `Cannot spread fragment "${name}" within itself.`)
    const visit = (sels: Node[]) => {
      for (const s of sels) {
        if (!('Alias' in s) && s.TypeCondition === undefined && typeof s.Name === 'string') {
          const target = this.fragments.get(s.Name)
          if (target) this.checkFragmentCycles(target, [...path, name])
        } else visit(list(s.SelectionSet))
      }
    }
    visit(list(f.SelectionSet))
  }

  operation(op: Node): void {
    const kind = String(op.Operation ?? 'query') as 'query' | 'mutation' | 'subscription'
    const rootName = this.schema[kind]
    const root = rootName ? this.schema.types.get(rootName) : undefined
    if (!root) throw fail(op, `Schema does not support operation type "${kind}"`)
    const variables = new Map<string, Node>()
    for (const v of list<Node>(op.VariableDefinitions)) {
      const name = String(v.Variable)
      if (variables.has(name)) throw fail(v, `There can be only one variable named "$${name}".`)
      variables.set(name, v)
      const typeName = namedType(v.Type as Node)
      const def = this.schema.types.get(typeName)
      if (!def) throw fail(v, `Unknown type "${typeName}".`)
      if (!['SCALAR', 'ENUM', 'INPUT_OBJECT'].includes(def.kind))
        throw fail(v, `Variable "$${name}" cannot be non-input type "${typeString(v.Type as Node)}".`)
      if (v.DefaultValue) this.value(v.DefaultValue as Node, v.Type as Node, undefined)
    }
    this.usedVariables = new Set()
    this.checkDirectives(list(op.Directives), kind.toUpperCase())
    this.selections(list(op.SelectionSet), root, variables, new Set())
    for (const [name, v] of variables)
      if (!this.usedVariables.has(name))
        throw fail(v, `Variable "$${name}" is never used in operation "${String(op.Name ?? '')}".`)
  }

  selections(
    sels: Node[],
    parent: TypeDef,
    variables?: Map<string, Node>,
    seenFragments = new Set<string>(),
  ): void {
    for (const s of sels) {
      if ('Alias' in s) {
        this.field(s, parent, variables, seenFragments)
      } else if (s.TypeCondition !== undefined || s.Name === undefined) {
        const type = s.TypeCondition === undefined ? parent : this.compositeType(s, String(s.TypeCondition))
        this.checkSpreadPossible(s, type, parent)
        this.checkDirectives(list(s.Directives), 'INLINE_FRAGMENT', variables)
        this.selections(list(s.SelectionSet), type, variables, seenFragments)
      } else {
        const name = String(s.Name)
        const f = this.fragments.get(name)
        if (!f) throw fail(s, `Unknown fragment "${name}".`)
        this.usedFragments.add(name)
        this.checkDirectives(list(s.Directives), 'FRAGMENT_SPREAD', variables)
        const type = this.compositeType(f, String(f.TypeCondition))
        this.checkSpreadPossible(s, type, parent)
        if (variables && !seenFragments.has(name)) {
          seenFragments.add(name)
          this.selections(list(f.SelectionSet), type, variables, seenFragments)
        }
      }
    }
  }

  checkSpreadPossible(node: Node, type: TypeDef, parent: TypeDef): void {
    const a = possibleTypes(this.schema, type)
    const b = possibleTypes(this.schema, parent)
    if (![...a].some((x) => b.has(x))) {
      throw fail(
        node,
        `Fragment cannot be spread here as objects of type "${parent.name}" can never be of type "${type.name}".`,
      )
    }
  }

  field(f: Node, parent: TypeDef, variables: Map<string, Node> | undefined, seen: Set<string>): void {
    const name = String(f.Name)
    if (name === '__typename') {
      if (f.SelectionSet)
        throw fail(f, `Field "__typename" must not have a selection since type "String!" has no subfields.`)
      return
    }
    if (name === '__schema' || name === '__type') return
    const def = parent.fields.find((x) => x.Name === name)
    if (!def) throw fail(f, `Cannot query field "${name}" on type "${parent.name}".`)
    const args = list<Node>(f.Arguments)
    const argDefs = list<Node>(def.Arguments)
    const seenArgs = new Set<string>()
    for (const a of args) {
      const argName = String(a.Name)
      if (seenArgs.has(argName)) throw fail(a, `There can be only one argument named "${argName}".`)
      seenArgs.add(argName)
      const argDef = argDefs.find((x) => x.Name === argName)
      if (!argDef) throw fail(a, `Unknown argument "${argName}" on field "${parent.name}.${name}".`)
      this.value(a.Value as Node, argDef.Type as Node, variables)
    }
    for (const argDef of argDefs) {
      const type = argDef.Type as Node
      if (type.NonNull && argDef.DefaultValue === undefined && !seenArgs.has(String(argDef.Name))) {
        throw fail(
          f,
          `Field "${name}" argument "${String(argDef.Name)}" of type "${typeString(type)}" is required, but it was not provided`,
        )
      }
    }
    this.checkDirectives(list(f.Directives), 'FIELD', variables)
    const typeName = namedType(def.Type as Node)
    const type = this.schema.types.get(typeName)
    if (!type) throw fail(f, `Unknown type "${typeName}".`)
    const sels = list<Node>(f.SelectionSet)
    if (COMPOSITE.has(type.kind)) {
      if (sels.length === 0)
        throw fail(
          f,
          `Field "${name}" of type "${typeString(def.Type as Node)}" must have a selection of subfields. Did you mean "${name} { ... }"?`,
        )
      this.selections(sels, type, variables, seen)
    } else if (sels.length > 0) {
      throw fail(
        f,
        `Field "${name}" must not have a selection since type "${typeString(def.Type as Node)}" has no subfields.`,
      )
    }
  }

  checkDirectives(directives: Node[], location: string, variables?: Map<string, Node>): void {
    const seen = new Set<string>()
    for (const d of directives) {
      const name = String(d.Name)
      const def = this.schema.directives.get(name)
      if (!def) throw fail(d, `Unknown directive "@${name}".`)
      if (!def.locations.includes(location))
        throw fail(d, `Directive "@${name}" may not be used on ${location}.`)
      if (seen.has(name) && !def.repeatable)
        throw fail(d, `The directive "@${name}" can only be used once at this location.`)
      seen.add(name)
      const args = list<Node>(d.Arguments)
      for (const a of args) {
        const argDef = def.args.find((x) => x.Name === a.Name)
        if (!argDef) throw fail(a, `Unknown argument "${String(a.Name)}" on directive "@${name}".`)
        this.value(a.Value as Node, argDef.Type as Node, variables)
      }
      for (const argDef of def.args) {
        const type = argDef.Type as Node
        if (type.NonNull && argDef.DefaultValue === undefined && !args.some((a) => a.Name === argDef.Name)) {
          throw fail(
            d,
            `Directive "@${name}" argument "${String(argDef.Name)}" of type "${typeString(type)}" is required, but it was not provided`,
          )
        }
      }
    }
  }

  /** Checks a literal (or variable) against an input type. */
  value(v: Node, type: Node, variables: Map<string, Node> | undefined): void {
    const kind = Number(v.Kind)
    if (kind === 0) {
      const name = String(v.Raw)
      if (!variables) return
      const def = variables.get(name)
      if (!def) throw fail(v, `Variable "$${name}" is not defined.`)
      this.usedVariables.add(name)
      const varType = def.Type as Node
      if (
        namedType(varType) !== namedType(type) ||
        (type.NonNull && !varType.NonNull && def.DefaultValue === undefined)
      ) {
        throw fail(
          v,
          `Variable "$${name}" of type "${typeString(varType)}" used in position expecting type "${typeString(type)}".`,
        )
      }
      return
    }
    if (kind === 6) {
      if (type.NonNull) throw fail(v, `Expected value of type "${typeString(type)}", found null.`)
      return
    }
    if (type.Elem && typeof type.Elem === 'object') {
      const elem = type.Elem as Node
      if (kind === 8) for (const c of list<Node>(v.Children)) this.value(c.Value as Node, elem, variables)
      else this.value(v, elem, variables)
      return
    }
    const def = this.schema.types.get(String(type.NamedType))
    if (!def) return
    const bad = () =>
      fail(
        v,
        `Expected value of type "${typeString(type)}", found ${kind === 3 || kind === 4 ? JSON.stringify(v.Raw) : String(v.Raw)}.`,
      )
    if (kind === 8) throw bad()
    switch (def.kind) {
      case 'ENUM':
        if (kind !== 7 || !def.enumValues.some((e) => e.Name === v.Raw)) throw bad()
        return
      case 'INPUT_OBJECT': {
        if (kind !== 9) throw bad()
        const fields = list<Node>(v.Children)
        for (const c of fields) {
          const fdef = def.fields.find((x) => x.Name === c.Name)
          if (!fdef) throw fail(c, `Field "${String(c.Name)}" is not defined by type "${def.name}".`)
          this.value(c.Value as Node, fdef.Type as Node, variables)
        }
        for (const fdef of def.fields) {
          const ft = fdef.Type as Node
          if (ft.NonNull && fdef.DefaultValue === undefined && !fields.some((c) => c.Name === fdef.Name)) {
            throw fail(
              v,
              `Field "${def.name}.${String(fdef.Name)}" of required type "${typeString(ft)}" was not provided.`,
            )
          }
        }
        return
      }
      case 'SCALAR':
        switch (def.name) {
          case 'Int':
            if (kind !== 1) throw bad()
            return
          case 'Float':
            if (kind !== 1 && kind !== 2) throw bad()
            return
          case 'String':
            if (kind !== 3 && kind !== 4) throw bad()
            return
          case 'Boolean':
            if (kind !== 5) throw bad()
            return
          case 'ID':
            if (kind !== 1 && kind !== 3 && kind !== 4) throw bad()
            return
          default:
            return
        }
      default:
        throw bad()
    }
  }
}

/** Validates `doc` against `schema`; throws GraphQLError on the first violation. */
export function validateQuery(schema: Schema, doc: Node): void {
  new Validator(schema, doc).run()
}
