/**
 * graphql.* built-ins: parsing queries and schemas into OPA's AST objects, validating queries
 * against schemas and checking schemas. Queries and schemas may be given as text or as the AST
 * objects these built-ins return.
 */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { fromJS, isObject, ObjectValue, toJS } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { GraphQLError, type Node, parseQuery } from './graphql/parser.js'
import { loadSchema } from './graphql/schema.js'
import { parseSchema } from './graphql/sdl.js'
import { validateQuery } from './graphql/validate.js'
import { operandTypeError } from './operands.js'

const textOrAst = t.anyOf(t.string, t.object(t.any, t.any))

function wrap(err: unknown): unknown {
  if (err instanceof GraphQLError)
    return new BuiltinError(`${err.message} in GraphQL string at location ${err.line}:${err.column}`)
  return err
}

function astOperand(v: Value, position: number, parse: (src: string) => Node): Node {
  if (typeof v === 'string') {
    try {
      return parse(v)
    } catch (err) {
      throw wrap(err)
    }
  }
  if (isObject(v)) return toJS(v) as Node
  throw operandTypeError(position, v, 'string', 'object')
}

function verify(queryV: Value, schemaV: Value): { query: Node; schema: Node } {
  const schema = astOperand(schemaV, 2, parseSchema)
  const query = astOperand(queryV, 1, parseQuery)
  try {
    validateQuery(loadSchema(schema), query)
  } catch (err) {
    throw wrap(err)
  }
  return { query, schema }
}

function valid(f: () => unknown): boolean {
  try {
    f()
    return true
  } catch (err) {
    if (err instanceof BuiltinError) return false
    throw err
  }
}

export const graphqlParseQuery = defineBuiltin({
  name: 'graphql.parse_query',
  category: 'graphql',
  description: 'Returns an AST object for a GraphQL query.',
  args: [t.named('query', t.string, 'GraphQL query string')],
  result: t.named('output', t.object(t.any, t.any), 'AST object for the GraphQL query.'),
  impl: (_ctx, [q]) => fromJS(astOperand(q, 1, parseQuery)),
})

export const graphqlParseSchema = defineBuiltin({
  name: 'graphql.parse_schema',
  category: 'graphql',
  description: 'Returns an AST object for a GraphQL schema.',
  args: [t.named('schema', t.string, 'GraphQL schema string')],
  result: t.named('output', t.object(t.any, t.any), 'AST object for the GraphQL schema.'),
  impl: (_ctx, [s]) => fromJS(astOperand(s, 1, parseSchema)),
})

export const graphqlParse = defineBuiltin({
  name: 'graphql.parse',
  category: 'graphql',
  description:
    'Returns AST objects for a given GraphQL query and schema after validating the query against the schema. Returns undefined if errors were encountered during parsing or validation. The query and/or schema can be either GraphQL strings or AST objects from the other GraphQL builtin functions.',
  args: [
    t.named('query', textOrAst, 'the GraphQL query'),
    t.named('schema', textOrAst, 'the GraphQL schema'),
  ],
  result: t.named(
    'output',
    t.tuple(t.object(t.any, t.any), t.object(t.any, t.any)),
    '`output` is of the form `[query_ast, schema_ast]`. If the GraphQL query is valid given the provided schema, then `query_ast` and `schema_ast` are objects describing the ASTs for the query and schema.',
  ),
  impl: (_ctx, [q, s]) => {
    const { query, schema } = verify(q, s)
    return [fromJS(query), fromJS(schema)]
  },
})

export const graphqlParseAndVerify = defineBuiltin({
  name: 'graphql.parse_and_verify',
  category: 'graphql',
  description:
    'Returns a boolean indicating success or failure alongside the parsed ASTs for a given GraphQL query and schema after validating the query against the schema. The query and/or schema can be either GraphQL strings or AST objects from the other GraphQL builtin functions.',
  args: [
    t.named('query', textOrAst, 'the GraphQL query'),
    t.named('schema', textOrAst, 'the GraphQL schema'),
  ],
  result: t.named(
    'output',
    t.tuple(t.boolean, t.object(t.any, t.any), t.object(t.any, t.any)),
    ' `output` is of the form `[valid, query_ast, schema_ast]`. If the query is valid given the provided schema, then `valid` is `true`, and `query_ast` and `schema_ast` are objects describing the ASTs for the GraphQL query and schema. Otherwise, `valid` is `false` and `query_ast` and `schema_ast` are `{}`.',
  ),
  impl: (_ctx, [q, s]) => {
    try {
      const { query, schema } = verify(q, s)
      return [true, fromJS(query), fromJS(schema)]
    } catch (err) {
      if (err instanceof BuiltinError) return [false, new ObjectValue(), new ObjectValue()]
      throw err
    }
  },
})

export const graphqlIsValid = defineBuiltin({
  name: 'graphql.is_valid',
  category: 'graphql',
  description:
    'Checks that a GraphQL query is valid against a given schema. The query and/or schema can be either GraphQL strings or AST objects from the other GraphQL builtin functions.',
  args: [
    t.named('query', textOrAst, 'the GraphQL query'),
    t.named('schema', textOrAst, 'the GraphQL schema'),
  ],
  result: t.named(
    'output',
    t.boolean,
    '`true` if the query is valid under the given schema. `false` otherwise.',
  ),
  impl: (_ctx, [q, s]) => valid(() => verify(q, s)),
})

export const graphqlSchemaIsValid = defineBuiltin({
  name: 'graphql.schema_is_valid',
  category: 'graphql',
  description:
    'Checks that the input is a valid GraphQL schema. The schema can be either a GraphQL string or an AST object from the other GraphQL builtin functions.',
  args: [t.named('schema', textOrAst, 'the schema to verify')],
  result: t.named('output', t.boolean, '`true` if the schema is a valid GraphQL schema. `false` otherwise.'),
  impl: (_ctx, [s]) =>
    valid(() => {
      const schema = astOperand(s, 1, parseSchema)
      try {
        loadSchema(schema)
      } catch (err) {
        throw wrap(err)
      }
    }),
})

/** The GraphQL built-ins. */
export const GRAPHQL = [
  graphqlParseQuery,
  graphqlParseSchema,
  graphqlParse,
  graphqlParseAndVerify,
  graphqlIsValid,
  graphqlSchemaIsValid,
] as const
