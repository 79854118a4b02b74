import { describe, expect, it } from 'vitest'
import { call, expectError, json } from './helpers.js'

const SCHEMA = `
  type Query {
    hero(episode: Episode!): Character
    search(text: String, limit: Int = 10): [Character!]!
  }
  enum Episode { NEWHOPE EMPIRE JEDI }
  interface Character { name: String! }
  type Droid implements Character { name: String! primaryFunction: String }
  type Human implements Character { name: String! height: Float }
`

describe('graphql.parse_query and parse_schema', () => {
  it('return gqlparser-shaped ASTs with empty members pruned', () => {
    expect(json('graphql.parse_query', '{hero {name}}')).toBe(
      '{"Operations":[{"Name":"","Operation":"query","SelectionSet":[{"Alias":"hero","Name":"hero","SelectionSet":[{"Alias":"name","Name":"name"}]}]}]}',
    )
    expect(json('graphql.parse_query', '{ f(id: [1,2], s: """long""") }')).toContain(
      '"Children":[{"Name":"","Value":{"ExpectedTypeHasDefault":false,"Kind":1,"Raw":"1"}}',
    )
    expect(json('graphql.parse_schema', 'union Hello = | Wo | Rld')).toBe(
      '{"Definitions":[{"BuiltIn":false,"Description":"","Kind":"UNION","Name":"Hello","Types":["Wo","Rld"]}]}',
    )
    expect(
      json(
        'graphql.parse_schema',
        '"""\n  Description\n  """\ntype Hello { world(things: [String]): String }',
      ),
    ).toContain('"Description":"Description"')
  })

  it('report syntax errors with gqlparser messages and positions', () => {
    expectError(
      'eval_builtin_error',
      'graphql.parse_query: Expected Name, found <EOF> in GraphQL string at location 1:2',
      'graphql.parse_query',
      '{',
    )
    expectError(
      'eval_builtin_error',
      'Expected "on", found Name "Type" in GraphQL string at location 3:22',
      'graphql.parse_query',
      '\n  { ...MissingOn }\n  fragment MissingOn Type\n',
    )
    expectError(
      'eval_builtin_error',
      'Unexpected ... in GraphQL string at location 1:1',
      'graphql.parse_query',
      '...',
    )
    expectError(
      'eval_builtin_error',
      'expected at least one definition, found } in GraphQL string at location 1:21',
      'graphql.parse_query',
      '{...{__typename{...{}}}}',
    )
    expectError(
      'eval_builtin_error',
      'Unexpected String "Description" in GraphQL string at location 2:4',
      'graphql.parse_schema',
      '\n  "Description"\n  extend type Hello { world: String }',
    )
    expectError(
      'eval_builtin_error',
      'Expected :, found ( in GraphQL string at location 3:10',
      'graphql.parse_schema',
      '\n  input Hello {\n    world(foo: Int): String\n  }\n',
    )
    expectError(
      'eval_builtin_error',
      'Unexpected <Invalid> in GraphQL string at location 2:1',
      'graphql.parse_schema',
      '"""\r',
    )
  })
})

describe('validation', () => {
  it('accepts valid queries, rejects invalid ones', () => {
    const ok =
      'query Q($e: Episode!) { hero(episode: $e) { name ... on Droid { primaryFunction } } search { name } }'
    expect(json('graphql.is_valid', ok, SCHEMA)).toBe('true')
    const cases = [
      '{ hero { name } }', // missing required argument
      '{ hero(episode: NOPE) { name } }', // bad enum value
      '{ hero(episode: JEDI) }', // object field without selection
      '{ search { name { x } } }', // selection on a scalar
      '{ villain }', // unknown field
      '{ search(txt: "a") { name } }', // unknown argument
      'query Q($v: Int) { search { name } }', // unused variable
      '{ hero(episode: $undefined) { name } }', // undefined variable
      '{ search { ...F } }', // unknown fragment
      'fragment F on Human { height } { search { name } }', // unused fragment
      '{ search(limit: "ten") { name } }', // wrong literal type
      'mutation { x }', // no mutation type
    ]
    for (const q of cases) expect(json('graphql.is_valid', q, SCHEMA), q).toBe('false')
  })

  it('graphql.parse reports the first validation error with its location', () => {
    expectError(
      'eval_builtin_error',
      'graphql.parse: Field "hero" argument "episode" of type "Episode!" is required, but it was not provided in GraphQL string at location 1:3',
      'graphql.parse',
      '{ hero { name } }',
      SCHEMA,
    )
  })

  it('accepts AST objects from the parse built-ins', () => {
    const schemaAst = call('graphql.parse_schema', SCHEMA)
    const queryAst = call('graphql.parse_query', '{ search { name } }')
    expect(json('graphql.is_valid', queryAst, schemaAst)).toBe('true')
    expect(JSON.parse(json('graphql.parse_and_verify', '{ villain }', schemaAst))).toEqual([false, {}, {}])
    expect(JSON.parse(json('graphql.parse_and_verify', queryAst, SCHEMA))[0]).toBe(true)
  })

  it('schema_is_valid checks types, interfaces, unions and extensions', () => {
    expect(json('graphql.schema_is_valid', SCHEMA)).toBe('true')
    expect(
      json(
        'graphql.schema_is_valid',
        'extend type User { id: ID! } union U = User extend type Query { u: U }',
      ),
    ).toBe('true')
    for (const bad of [
      'union Hello = World',
      'schema { query: Query }',
      'extend type Hello implements Greeting',
      'interface IA { id: ID! } interface IIA implements IA { id: ID! } type A implements IIA { id: ID! }',
      'type P { f: [P] } input I { p: P }',
      'directive @foo on FIELD | INCORRECT_LOCATION',
      'extend scalar Foo @deprecated extend type Foo @deprecated',
      'type Hello {}',
    ]) {
      expect(json('graphql.schema_is_valid', bad), bad).toBe('false')
    }
  })
})
