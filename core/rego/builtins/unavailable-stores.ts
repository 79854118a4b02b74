/**
 * EOPA's built-ins for stores this build has no client for: DynamoDB (`dynamodb.get`,
 * `dynamodb.query`), MongoDB (`mongodb.find`, `mongodb.find_one`), Neo4j (`neo4j.query`) and
 * Vault (`vault.send`). They are declared with their real signatures, so policies that call them
 * compile, type-check and can be evaluated with the calls mocked (the service's data API); called
 * for real they fail with a clear error instead of an "undefined function" compile error.
 */
import { t } from '../types/index.js'
import type { AsyncBuiltin } from './define.js'
import { defineBuiltin } from './define.js'
import { CallRefusedError } from './errors.js'
import { objectOperand } from './operands.js'

function unavailable(
  name: string,
  category: string,
  store: string,
  fields: string,
  result: string,
): AsyncBuiltin {
  return defineBuiltin({
    name,
    category,
    description: `Queries ${store} (declared only: this build has no ${store} client; mock the call).`,
    args: [t.named('request', t.object(t.string, t.any), fields)],
    result: t.named('response', t.object(t.any, t.any), result),
    nondeterministic: true,
    async: true,
    impl: async (_ctx, [r]) => {
      objectOperand(r, 1)
      throw new CallRefusedError(
        `not available in this build: regent has no ${store} client; mock ${name} (data API \`mocks\`) to evaluate policies that call it`,
      )
    },
  })
}

export const dynamodbGet = unavailable(
  'dynamodb.get',
  'dynamodb',
  'DynamoDB',
  'region, table, key, endpoint, credentials',
  '`row`: the item',
)
export const dynamodbQuery = unavailable(
  'dynamodb.query',
  'dynamodb',
  'DynamoDB',
  'region, table, key_condition_expression, expression_attribute_values, endpoint, credentials',
  '`rows`: the items',
)
export const mongodbFind = unavailable(
  'mongodb.find',
  'mongodb',
  'MongoDB',
  'uri, database, collection, filter, options, auth',
  '`results`: the documents',
)
export const mongodbFindOne = unavailable(
  'mongodb.find_one',
  'mongodb',
  'MongoDB',
  'uri, database, collection, filter, options, auth',
  '`results`: the document',
)
export const neo4jQuery = unavailable(
  'neo4j.query',
  'neo4j',
  'Neo4j',
  'uri, auth, query, parameters',
  '`results`: the records',
)
export const vaultSend = unavailable(
  'vault.send',
  'vault',
  'Vault',
  'address, token, mount_path, path, key',
  'the secret',
)

/** The declared-only store built-ins. */
export const UNAVAILABLE_STORES = [
  dynamodbGet,
  dynamodbQuery,
  mongodbFind,
  mongodbFindOne,
  neo4jQuery,
  vaultSend,
] as const
