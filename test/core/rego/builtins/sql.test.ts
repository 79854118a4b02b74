/**
 * sql.send against real databases: a SQLite file in a temp folder always; PostgreSQL and
 * MariaDB/MySQL at REGENT_TEST_PG_URL / REGENT_TEST_MYSQL_URL (skipped, saying so, when unset).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import mysql from 'mysql2/promise'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BuiltinCallError } from '../../../../core/rego/builtins/errors.js'
import { callAsyncBuiltin } from '../../../../core/rego/builtins/registry.js'
import { closeSqlClients, sqlSend } from '../../../../core/rego/builtins/sql.js'
import { fromJS, toJS } from '../../../../core/rego/values/index.js'
import { testContext } from './helpers.js'

const PG_URL = process.env.REGENT_TEST_PG_URL
const MYSQL_URL = process.env.REGENT_TEST_MYSQL_URL

async function send(request: Record<string, unknown>, ctx = testContext()): Promise<unknown> {
  const out = await callAsyncBuiltin(sqlSend, ctx, [fromJS(request)])
  return out === undefined ? undefined : toJS(out)
}

async function sendError(request: Record<string, unknown>, ctx = testContext()): Promise<BuiltinCallError> {
  try {
    await send(request, ctx)
  } catch (err) {
    expect(err).toBeInstanceOf(BuiltinCallError)
    return err as BuiltinCallError
  }
  throw new Error('expected sql.send to fail')
}

afterAll(() => closeSqlClients())

describe('sql.send on SQLite', () => {
  let dir: string
  let file: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-sql-'))
    file = join(dir, 'company.db')
    const db = new Database(file)
    db.exec(
      "CREATE TABLE subordinates (manager TEXT, name TEXT, level INTEGER); INSERT INTO subordinates VALUES ('alice','bob',2), ('alice','carol',3), ('dan','erin',1)",
    )
    db.close()
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('binds $N arguments and answers rows as arrays, or objects with row_object', async () => {
    const query = 'SELECT name, level FROM subordinates WHERE manager = $1 ORDER BY name'
    expect(await send({ driver: 'sqlite', data_source_name: file, query, args: ['alice'] })).toEqual({
      rows: [
        ['bob', 2],
        ['carol', 3],
      ],
    })
    expect(
      await send({ driver: 'sqlite', data_source_name: file, query, args: ['dan'], row_object: true }),
    ).toEqual({
      rows: [{ name: 'erin', level: 1 }],
    })
  })

  it('takes ? placeholders and never splices arguments into the statement', async () => {
    const query = 'SELECT count(*) AS n FROM subordinates WHERE manager = ?'
    expect(
      await send({ driver: 'sqlite', data_source_name: file, query, args: ["alice' OR '1'='1"] }),
    ).toEqual({ rows: [[0]] })
  })

  it('opens the file read-only: a write is refused', async () => {
    const err = await sendError({
      driver: 'sqlite',
      data_source_name: file,
      query: 'DELETE FROM subordinates',
    })
    expect(err.message).toContain('sql.send:')
    const db = new Database(file, { readonly: true })
    expect(db.prepare('SELECT count(*) AS n FROM subordinates').get()).toEqual({ n: 3 })
    db.close()
  })

  it('refuses files outside allowFiles, and answers {error} with raise_error false', async () => {
    const ctx = testContext({ allowFiles: [join(dir, 'elsewhere')] })
    const request = { driver: 'sqlite', data_source_name: file, query: 'SELECT 1' }
    expect((await sendError(request, ctx)).message).toContain('unallowed file')
    const answered = (await send({ ...request, raise_error: false }, ctx)) as {
      error: { code: string; message: string }
    }
    expect(answered.error.code).toBe('sql_send_error')
    expect(answered.error.message).toContain('unallowed file')
    expect(await send(request, testContext({ allowFiles: [dir] }))).toEqual({ rows: [[1]] })
  })

  it('names missing fields and unknown drivers', async () => {
    expect((await sendError({ driver: 'sqlite', query: 'SELECT 1' })).message).toContain('"data_source_name"')
    expect(
      (await sendError({ driver: 'oracle', data_source_name: 'x', query: 'SELECT 1' })).message,
    ).toContain('unsupported driver "oracle"')
  })
})

describe.skipIf(!PG_URL)('sql.send on PostgreSQL (REGENT_TEST_PG_URL)', () => {
  const table = `regent_sql_${process.pid}_${Date.now()}`
  beforeAll(async () => {
    const client = new pg.Client(PG_URL)
    await client.connect()
    await client.query(`CREATE TABLE ${table} (name text, level int, tags jsonb)`)
    await client.query(`INSERT INTO ${table} VALUES ('bob', 2, '["a"]'), ('carol', 3, '{"x":1}')`)
    await client.end()
  })
  afterAll(async () => {
    const client = new pg.Client(PG_URL)
    await client.connect()
    await client.query(`DROP TABLE IF EXISTS ${table}`)
    await client.end()
  })

  it('queries with $N arguments, as arrays and as objects', async () => {
    const query = `SELECT name, level, tags FROM ${table} WHERE level >= $1 ORDER BY name`
    expect(await send({ driver: 'postgres', data_source_name: PG_URL, query, args: [2] })).toEqual({
      rows: [
        ['bob', 2, ['a']],
        ['carol', 3, { x: 1 }],
      ],
    })
    expect(
      await send({ driver: 'postgres', data_source_name: PG_URL, query, args: [3], row_object: true }),
    ).toEqual({
      rows: [{ name: 'carol', level: 3, tags: { x: 1 } }],
    })
  })

  it('checks the host against allow_net before connecting, and reports SQL errors', async () => {
    const request = { driver: 'postgres', data_source_name: PG_URL, query: 'SELECT 1' }
    expect((await sendError(request, testContext({ allowNet: ['db.example'] }))).message).toContain(
      'unallowed host',
    )
    expect((await sendError({ ...request, query: 'SELECT * FROM no_such_table_here' })).message).toContain(
      'no_such_table_here',
    )
  })
})

describe.skipIf(!MYSQL_URL)('sql.send on MariaDB/MySQL (REGENT_TEST_MYSQL_URL)', () => {
  const table = `regent_sql_${process.pid}_${Date.now()}`
  beforeAll(async () => {
    const conn = await mysql.createConnection(MYSQL_URL!)
    await conn.query(`CREATE TABLE ${table} (name varchar(20), level int)`)
    await conn.query(`INSERT INTO ${table} VALUES ('bob', 2), ('carol', 3)`)
    await conn.end()
  })
  afterAll(async () => {
    const conn = await mysql.createConnection(MYSQL_URL!)
    await conn.query(`DROP TABLE IF EXISTS ${table}`)
    await conn.end()
  })

  it('queries with ? arguments through a URL and through a Go DSN', async () => {
    const query = `SELECT name, level FROM ${table} WHERE level > ? ORDER BY name`
    expect(await send({ driver: 'mysql', data_source_name: MYSQL_URL, query, args: [2] })).toEqual({
      rows: [['carol', 3]],
    })
    const url = new URL(MYSQL_URL!)
    const goDsn = `${url.username}${url.password ? `:${url.password}` : ''}@tcp(${url.host})${url.pathname}`
    expect(
      await send({ driver: 'mysql', data_source_name: goDsn, query, args: [1], row_object: true }),
    ).toEqual({
      rows: [
        { name: 'bob', level: 2 },
        { name: 'carol', level: 3 },
      ],
    })
  })
})

if (!PG_URL) console.warn('sql.send PostgreSQL tests skipped: REGENT_TEST_PG_URL is not set')
if (!MYSQL_URL) console.warn('sql.send MySQL tests skipped: REGENT_TEST_MYSQL_URL is not set')
