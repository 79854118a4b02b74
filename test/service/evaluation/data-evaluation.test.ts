/**
 * The data API's evaluation as a table of requests and expected answers (conformance style), over
 * a real service on SQLite with stored system and workspace content, a real HTTP server on
 * 127.0.0.1 for unmocked http.send, and a real SQLite file for unmocked sql.send. Every mock shape
 * of the spec's table is exercised, with the mocked/unmocked report.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

interface Case {
  note: string
  method?: 'GET' | 'POST'
  /** Path after /v1/data; `{id}` is the test system's id. */
  path?: string
  query?: Record<string, string>
  body?: unknown
  status?: number
  /** The expected `result` (deep equality); `undefined: true` for an answer without one. */
  result?: unknown
  undefined?: boolean
  mocks?: unknown
  /** Pattern the error message must match. */
  message?: RegExp
  check?: (body: Record<string, unknown>) => void
}

/** A module calling a built-in with `request`, in a package of its own. */
const calling = (call: string) => ({ 'm.rego': `package m\n\nr := ${call}\n` })

let httpUrl = ''
let sqliteFile = ''

const CASES: Case[] = [
  // ---- stored content, documents and queries ---------------------------------------------
  {
    note: 'POST evaluates a rule of the system with input',
    path: '/systems/{id}/authz/allow',
    body: { input: { user: 'alice' } },
    result: true,
  },
  {
    note: 'GET takes input as JSON text',
    method: 'GET',
    path: '/systems/{id}/authz/allow',
    query: { input: '{"user":"alice"}' },
    result: true,
  },
  {
    note: 'GET of a virtual document without parameters evaluates it',
    method: 'GET',
    path: '/systems/{id}/authz/admin_count',
    result: 1,
  },
  {
    note: 'GET of a stored document without parameters reads it',
    method: 'GET',
    path: '/systems/{id}/admins',
    result: ['alice'],
  },
  {
    note: 'GET ?rego= runs the query instead of answering the raw document',
    method: 'GET',
    path: '/systems/{id}/admins',
    query: { rego: 'x := count(data.admins)' },
    result: [
      {
        expressions: [{ value: true, text: 'x := count(data.admins)', location: { row: 1, col: 1 } }],
        bindings: { x: 1 },
      },
    ],
  },
  {
    note: 'an undefined document answers without result',
    path: '/systems/{id}/authz/allow',
    body: { input: { user: 'mallory' } },
    undefined: true,
  },
  {
    note: 'a plain GET of nothing stored and undefined is 404',
    method: 'GET',
    path: '/systems/{id}/authz/nothing',
    status: 404,
    message: /no data document at .*data\.authz\.nothing is undefined/,
  },
  {
    note: 'request data overlays stored data',
    path: '/systems/{id}/authz/allow',
    body: { input: { user: 'bob' }, data: { admins: ['bob'] } },
    result: true,
  },
  {
    note: 'supplied modules replace stored ones of the same name',
    path: '/systems/{id}/authz/allow',
    body: { rego_modules: { 'systems/{id}/rules/authz.rego': 'package authz\n\nallow := "replaced"\n' } },
    result: 'replaced',
  },
  {
    note: 'workspace content outside systems is its own scope',
    path: '/library/greeting',
    result: 'hello from the library',
  },
  {
    note: 'a sandbox loads nothing stored',
    path: '/systems/{id}/authz/allow',
    body: { sandbox: true, input: { user: 'alice' } },
    undefined: true,
  },
  {
    note: 'query_package names the document of supplied modules',
    body: { sandbox: true, query_package: 'p.q', rego_modules: { 'p.rego': 'package p.q\n\nv := 7\n' } },
    result: { v: 7 },
  },
  {
    note: 'jsonpath extracts from the result',
    path: '/systems/{id}/people',
    body: { jsonpath: '$.users[*].name' },
    result: ['ann', 'ben'],
  },
  {
    note: 'replay marks the runtime',
    body: { sandbox: true, replay: true, rego: 'x := opa.runtime().env.REPLAY' },
    check: (b) => expect((b.result as Array<{ bindings: unknown }>)[0]!.bindings).toEqual({ x: 'true' }),
  },
  // ---- bad input: 400 naming the field or the line ---------------------------------------
  {
    note: 'input of the wrong type',
    body: { input: 'alice' },
    status: 400,
    message: /^invalid DataRequest: input: expected an object/,
  },
  { note: 'rego of the wrong type', body: { rego: 5 }, status: 400, message: /rego: / },
  { note: 'an unknown field', body: { inptu: {} }, status: 400, message: /unknown field inptu/ },
  {
    note: 'a GET boolean that is not one',
    method: 'GET',
    query: { sandbox: 'yes' },
    status: 400,
    message: /query parameter sandbox/,
  },
  {
    note: 'a module that does not parse names file, line and column',
    body: { sandbox: true, rego_modules: { 'bad.rego': 'package bad\n\nx := [1,\n' } },
    status: 400,
    message: /^rego_modules: bad\.rego:\d+:\d+: rego_parse_error/,
  },
  {
    note: 'a module that does not compile',
    body: { sandbox: true, rego_modules: { 'c.rego': 'package c\n\nx := y\n' } },
    status: 400,
    message: /^rego_modules: c\.rego:3:\d+: rego_unsafe_var_error/,
  },
  {
    note: 'strict compilation',
    body: { sandbox: true, strict: true, rego_modules: { 's.rego': 'package s\n\nf(x) := 1\n' } },
    status: 400,
    message: /rego_compile_error/,
  },
  {
    note: 'a query that does not parse',
    body: { sandbox: true, rego: 'x :=' },
    status: 400,
    message: /^rego: .*rego_parse_error/,
  },
  {
    note: 'a malformed jsonpath',
    body: { sandbox: true, rego: 'true', jsonpath: '$.a[' },
    status: 400,
    message: /^jsonpath: missing ]/,
  },
  {
    note: 'a query past the work limit',
    body: { sandbox: true, rego: 'x := count([y | some y in numbers.range(1, 1000000)])' },
    status: 400,
    message: /eval_instruction_limit_error/,
  },
  {
    note: 'a mock key that is not a built-in',
    body: { mocks: { 'http.get': { data: [] } } },
    status: 400,
    message: /^mocks\.http\.get: not a mockable built-in/,
  },
  {
    note: 'a mock entry missing a field',
    body: { mocks: { 'http.send': { data: [{ url: 'http://x', result: {} }] } } },
    status: 400,
    message: /^mocks\.http\.send\.data\[0\]\.method: required/,
  },
  {
    note: 'a mock field of the wrong type',
    body: {
      mocks: { 'cache.query': { data: [{ addr: 'a', db: '0', command: 'get', args: [], result: {} }] } },
    },
    status: 400,
    message: /^mocks\.cache\.query\.data\[0\]\.db: expected a 32-bit integer/,
  },
  {
    note: 'a mock result that is not an object',
    body: {
      mocks: {
        'sql.send': { data: [{ driver: 'd', data_source_name: 'n', query: 'q', args: [], result: 1 }] },
      },
    },
    status: 400,
    message: /result: expected an object/,
  },
  {
    note: 'two keys for one built-in',
    body: { mocks: { 'cache.query': { data: [] }, 'redis.query': { data: [] } } },
    status: 400,
    message: /mocks the same built-in/,
  },
  {
    note: 'opa.runtime takes only result',
    body: { mocks: { 'opa.runtime': { data: [] } } },
    status: 400,
    message: /^mocks\.opa\.runtime\.data: unknown field/,
  },
  // ---- every mock shape of the spec's table ----------------------------------------------
  {
    note: 'http.send: url and method (case-insensitive) identify a call',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling('http.send({"url": "https://api.test/u", "method": "get"}).body'),
      mocks: {
        'http.send': {
          data: [{ url: 'https://api.test/u', method: 'GET', result: { status_code: 200, body: { id: 1 } } }],
        },
      },
    },
    result: { r: { id: 1 } },
    mocks: { 'http.send': { mocked: [{ url: 'https://api.test/u', method: 'GET' }] } },
  },
  {
    note: 'sql.send: driver, data_source_name, query and args',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'sql.send({"driver": "postgres", "data_source_name": "db", "query": "SELECT 1 WHERE a = $1", "args": [5]}).rows',
      ),
      mocks: {
        'sql.send': {
          data: [
            {
              driver: 'postgres',
              data_source_name: 'db',
              query: 'SELECT 1 WHERE a = $1',
              args: [5],
              result: { rows: [[1]] },
            },
          ],
        },
      },
    },
    result: { r: [[1]] },
    mocks: {
      'sql.send': {
        mocked: [{ driver: 'postgres', data_source_name: 'db', query: 'SELECT 1 WHERE a = $1', args: [5] }],
      },
    },
  },
  {
    note: 'cache.query (redis.query): addr, db, command, args; the report names command query',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'redis.query({"addr": "cache:6379", "db": 2, "command": "GET", "args": ["k"]}).results',
      ),
      mocks: {
        'cache.query': {
          data: [{ addr: 'cache:6379', db: 2, command: 'get', args: ['k'], result: { results: 'v' } }],
        },
      },
    },
    result: { r: 'v' },
    mocks: { 'cache.query': { mocked: [{ addr: 'cache:6379', db: 2, query: 'get', args: ['k'] }] } },
  },
  {
    note: 'cloudkv.get (dynamodb.get): table, key, region',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'dynamodb.get({"table": "t", "key": {"id": {"S": "1"}}, "region": "eu-west-1"}).row',
      ),
      mocks: {
        'cloudkv.get': {
          data: [
            { table: 't', key: { id: { S: '1' } }, region: 'eu-west-1', result: { row: { name: 'x' } } },
          ],
        },
      },
    },
    result: { r: { name: 'x' } },
    mocks: { 'cloudkv.get': { mocked: [{ table: 't', key: { id: { S: '1' } }, region: 'eu-west-1' }] } },
  },
  {
    note: 'cloudkv.query (dynamodb.query): table, key_condition_expression, region',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'dynamodb.query({"table": "t", "key_condition_expression": "id = :v", "region": "us-east-1"}).rows',
      ),
      mocks: {
        'cloudkv.query': {
          data: [
            {
              table: 't',
              key_condition_expression: 'id = :v',
              region: 'us-east-1',
              result: { rows: [1, 2] },
            },
          ],
        },
      },
    },
    result: { r: [1, 2] },
    mocks: {
      'cloudkv.query': { mocked: [{ table: 't', key_condition_expression: 'id = :v', region: 'us-east-1' }] },
    },
  },
  {
    note: 'docdb.find (mongodb.find): uri, database, collection, filter, options',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'mongodb.find({"uri": "mongodb://db", "database": "d", "collection": "c", "filter": {"a": 1}, "options": {}}).results',
      ),
      mocks: {
        'docdb.find': {
          data: [
            {
              uri: 'mongodb://db',
              database: 'd',
              collection: 'c',
              filter: { a: 1 },
              options: {},
              result: { results: [{ a: 1 }] },
            },
          ],
        },
      },
    },
    result: { r: [{ a: 1 }] },
    mocks: {
      'docdb.find': {
        mocked: [{ uri: 'mongodb://db', database: 'd', collection: 'c', filter: { a: 1 }, options: {} }],
      },
    },
  },
  {
    note: 'docdb.find_one (mongodb.find_one): options default to {} in the call',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'mongodb.find_one({"uri": "mongodb://db", "database": "d", "collection": "c", "filter": {}}).results',
      ),
      mocks: {
        'docdb.find_one': {
          data: [
            {
              uri: 'mongodb://db',
              database: 'd',
              collection: 'c',
              filter: {},
              options: {},
              result: { results: { a: 2 } },
            },
          ],
        },
      },
    },
    result: { r: { a: 2 } },
    mocks: {
      'docdb.find_one': {
        mocked: [{ uri: 'mongodb://db', database: 'd', collection: 'c', filter: {}, options: {} }],
      },
    },
  },
  {
    note: 'graphdb.query (neo4j.query): uri, query, parameters',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'neo4j.query({"uri": "neo4j://g", "query": "MATCH (n) RETURN n", "parameters": {"p": 1}}).results',
      ),
      mocks: {
        'graphdb.query': {
          data: [
            {
              uri: 'neo4j://g',
              query: 'MATCH (n) RETURN n',
              parameters: { p: 1 },
              result: { results: ['n'] },
            },
          ],
        },
      },
    },
    result: { r: ['n'] },
    mocks: {
      'graphdb.query': { mocked: [{ uri: 'neo4j://g', query: 'MATCH (n) RETURN n', parameters: { p: 1 } }] },
    },
  },
  {
    note: 'secretstore.send (vault.send): mount_path, path',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'vault.send({"mount_path": "secret", "path": "db/pw", "address": "https://vault"}).data',
      ),
      mocks: {
        'secretstore.send': {
          data: [{ mount_path: 'secret', path: 'db/pw', result: { data: { pw: 's3cret' } } }],
        },
      },
    },
    result: { r: { pw: 's3cret' } },
    mocks: { 'secretstore.send': { mocked: [{ mount_path: 'secret', path: 'db/pw' }] } },
  },
  {
    note: 'public names work as mock keys and are reported under them',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling('vault.send({"mount_path": "kv", "path": "p"})'),
      mocks: { 'vault.send': { data: [{ mount_path: 'kv', path: 'p', result: { ok: true } }] } },
    },
    result: { r: { ok: true } },
    mocks: { 'vault.send': { mocked: [{ mount_path: 'kv', path: 'p' }] } },
  },
  {
    note: 'opa.runtime takes result, and is not reported',
    body: {
      sandbox: true,
      rego: 'x := opa.runtime().env.STAGE',
      mocks: { 'opa.runtime': { result: { env: { STAGE: 'prod' } } } },
    },
    check: (b) => {
      expect((b.result as Array<{ bindings: unknown }>)[0]!.bindings).toEqual({ x: 'prod' })
      expect(b.mocks).toBeUndefined()
    },
  },
  {
    note: 'an empty data list makes the built-in a no-op',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling('http.send({"url": "https://anything.test", "method": "POST"})'),
      mocks: { 'http.send': { data: [] } },
    },
    result: { r: {} },
    mocks: { 'http.send': { mocked: [{ url: 'https://anything.test', method: 'POST' }] } },
  },
  // ---- unmocked calls --------------------------------------------------------------------
  {
    note: 'an unmocked call goes out when allowed (not sandbox, host in allow_net) and is reported',
    body: () => ({
      query_package: 'm',
      rego_modules: calling(
        `[a, b] if { a := http.send({"url": "${httpUrl}/one", "method": "GET"}).body; b := http.send({"url": "${httpUrl}/two", "method": "GET"}).body }`,
      ),
      mocks: {
        'http.send': { data: [{ url: `${httpUrl}/one`, method: 'GET', result: { body: 'mocked one' } }] },
      },
    }),
    check: (b) => {
      expect(b.result).toEqual({ r: ['mocked one', { path: '/two' }] })
      expect(b.mocks).toEqual({
        'http.send': {
          mocked: [{ url: `${httpUrl}/one`, method: 'GET' }],
          unmocked: [{ url: `${httpUrl}/two`, method: 'GET' }],
        },
      })
    },
  },
  {
    note: 'an empty data list answers {} even for a host outside allow_net',
    body: {
      query_package: 'm',
      rego_modules: calling('http.send({"url": "https://elsewhere.test/x", "method": "GET"})'),
      mocks: { 'http.send': { data: [] } },
    },
    status: 200,
    result: { r: {} },
  },
  {
    note: 'an unmocked call to a host outside allow_net fails clearly (with entries)',
    body: {
      query_package: 'm',
      rego_modules: calling('http.send({"url": "https://elsewhere.test/x", "method": "GET"})'),
      mocks: { 'http.send': { data: [{ url: 'https://elsewhere.test/y', method: 'GET', result: {} }] } },
    },
    status: 400,
    message: /matches no entry of mocks\.http\.send, and cannot be made: unallowed host: elsewhere\.test/,
  },
  {
    note: 'an unmocked call in a sandbox fails clearly',
    body: {
      sandbox: true,
      query_package: 'm',
      rego_modules: calling(
        'sql.send({"driver": "sqlite", "data_source_name": "x.db", "query": "SELECT 2"})',
      ),
      mocks: {
        'sql.send': {
          data: [{ driver: 'sqlite', data_source_name: 'x.db', query: 'SELECT 1', args: [], result: {} }],
        },
      },
    },
    status: 400,
    message: /sandbox request makes no outside calls/,
  },
  {
    note: 'an unmocked call of a declared-only built-in says it is not available',
    body: {
      query_package: 'm',
      rego_modules: calling(
        'mongodb.find({"uri": "u", "database": "d", "collection": "c", "filter": {"z": 1}})',
      ),
      mocks: {
        'docdb.find': {
          data: [{ uri: 'u', database: 'd', collection: 'c', filter: {}, options: {}, result: {} }],
        },
      },
    },
    status: 400,
    message: /not available in this build/,
  },
  {
    note: 'an empty data list is a no-op even for a call that could go out: nothing is unmocked',
    body: () => ({
      query_package: 'm',
      rego_modules: calling(
        `sql.send({"driver": "sqlite", "data_source_name": ${JSON.stringify(sqliteFile)}, "query": "SELECT name FROM roles WHERE user = $1", "args": ["alice"]}).rows`,
      ),
      mocks: { 'sql.send': { data: [] } },
    }),
    // `{}.rows` is undefined, so r is too.
    result: {},
    check: (b) =>
      expect((b.mocks as Record<string, { unmocked?: unknown }>)['sql.send']!.unmocked).toBeUndefined(),
  },
  {
    note: 'sql.send without mocks reads the SQLite file for real',
    body: () => ({
      query_package: 'm',
      rego_modules: calling(
        `sql.send({"driver": "sqlite", "data_source_name": ${JSON.stringify(sqliteFile)}, "query": "SELECT name FROM roles WHERE user = $1", "args": ["alice"]}).rows`,
      ),
    }),
    result: { r: [['admin']] },
  },
  // ---- nd_builtin_cache --------------------------------------------------------------------
  {
    note: 'nd_builtin_cache seeds time.now_ns and http.send, and comes back with what was used',
    body: {
      sandbox: true,
      rego: 'a := time.now_ns(); b := http.send({"method": "get", "url": "https://api.test/x"}).body',
      nd_builtin_cache: {
        'time.now_ns': { '[]': 1700000000000000000 },
        'http.send': {
          '[{"method":"get","url":"https://api.test/x"}]': { status_code: 200, body: 'from the log' },
        },
      },
    },
    check: (b) => {
      expect((b.result as Array<{ bindings: unknown }>)[0]!.bindings).toEqual({
        a: 1700000000000000000,
        b: 'from the log',
      })
      expect(b.nd_builtin_cache).toEqual({
        'http.send': {
          '[{"method": "get", "url": "https://api.test/x"}]': { status_code: 200, body: 'from the log' },
        },
        'time.now_ns': { '[]': 1700000000000000000 },
      })
    },
  },
  {
    note: 'a malformed nd_builtin_cache names the field',
    body: { nd_builtin_cache: { 'time.now_ns': 5 } },
    status: 400,
    message: /nd_builtin_cache\.time\.now_ns: expected an object/,
  },
]

describe('data evaluation (/v1/data with a DataRequest)', () => {
  let t: TestService
  let id: string
  let http: Server
  let dir: string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-eval-'))
    sqliteFile = join(dir, 'roles.db')
    const db = new Database(sqliteFile)
    db.exec("CREATE TABLE roles (user TEXT, name TEXT); INSERT INTO roles VALUES ('alice', 'admin')")
    db.close()
    http = createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify({ path: req.url }))
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    const yaml = `{evaluation: {instruction_limit: 200000, allow_net: ["127.0.0.1"], allow_files: [${JSON.stringify(dir)}]}}`
    t = await startTestService(BACKENDS[0]!, yaml)
    id = (await t.json<{ result: { id: string } }>('POST', '/v1/systems', { body: { name: 's', type: 't' } }))
      .body.result.id
    const authz = 'package authz\n\nallow if input.user in data.admins\n\nadmin_count := count(data.admins)\n'
    expect(
      (
        await t.json('PUT', `/v1/policies/systems/${id}/rules`, {
          body: { modules: { 'authz.rego': authz } },
        })
      ).status,
    ).toBe(200)
    expect((await t.json('PUT', `/v1/data/systems/${id}/admins`, { body: ['alice'] })).status).toBe(200)
    expect(
      (
        await t.json('PUT', `/v1/data/systems/${id}/people`, {
          body: { users: [{ name: 'ann' }, { name: 'ben' }] },
        })
      ).status,
    ).toBe(200)
    const library = 'package library\n\ngreeting := "hello from the library"\n'
    expect(
      (await t.json('PUT', '/v1/policies/library/common', { body: { modules: { 'lib.rego': library } } }))
        .status,
    ).toBe(200)
  })
  afterAll(async () => {
    await t?.close()
    http?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const withId = (x: unknown): unknown => JSON.parse(JSON.stringify(x).replaceAll('{id}', id))

  for (const c of CASES) {
    it(c.note, async () => {
      const method = c.method ?? 'POST'
      const query = c.query ? `?${new URLSearchParams(withId(c.query) as Record<string, string>)}` : ''
      const rawBody = typeof c.body === 'function' ? (c.body as () => unknown)() : c.body
      const { status, body } = await t.json<Record<string, unknown>>(
        method,
        `/v1/data${withId(c.path ?? '')}${query}`,
        {
          ...(method === 'POST' ? { body: withId(rawBody ?? {}) } : {}),
        },
      )
      expect(status, JSON.stringify(body)).toBe(c.status ?? 200)
      if (c.message) expect(body.message).toMatch(c.message)
      if ('result' in c) expect(body.result).toEqual(c.result)
      if (c.undefined) expect(body).not.toHaveProperty('result')
      if (c.mocks) expect(body.mocks).toEqual(c.mocks)
      if (status === 200) expect(typeof body.request_id).toBe('string')
      c.check?.(body)
    })
  }

  it('HEAD answers like GET without a body', async () => {
    const res = await t.call('HEAD', `/v1/data/systems/${id}/authz/admin_count`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
  })

  it('stores nothing: evaluation leaves documents and policies as they were', async () => {
    await t.json('POST', `/v1/data/systems/${id}/authz/allow`, {
      body: { data: { admins: ['zed'] }, rego_modules: { 'x.rego': 'package x\n' } },
    })
    expect((await t.json('GET', `/v1/data/systems/${id}/admins`)).body.result).toEqual(['alice'])
    expect((await t.json('GET', `/v1/policies/systems/${id}/x.rego`)).status).toBe(404)
  })

  // Last: it leaves the workspace's policies uncompilable.
  it('a plain read over workspace policies that do not compile stays a 404; an evaluation says why', async () => {
    const unsafe = 'package broken\n\nx := y\n' // parses (all a policy outside systems/ must do), does not compile
    expect(
      (await t.json('PUT', '/v1/policies/library/broken', { body: { modules: { 'b.rego': unsafe } } }))
        .status,
    ).toBe(200)
    const read = await t.json('GET', '/v1/data/library/missing')
    expect(read.status).toBe(404)
    expect(read.body.message).toMatch(
      /^no data document at library\/missing, and the policies in scope do not compile: rego_modules: library\/broken\/b\.rego:3/,
    )
    const evaluated = await t.json('POST', '/v1/data/library/greeting')
    expect(evaluated.status).toBe(400)
    expect(evaluated.body.message).toMatch(
      /^rego_modules: library\/broken\/b\.rego:3:\d+: rego_unsafe_var_error/,
    )
  })
})
