/**
 * sql.send: runs one SQL statement against SQLite (better-sqlite3), PostgreSQL (pg) or MySQL and
 * MariaDB (mysql2), with EOPA's request object: `driver`, `data_source_name`, `query`, `args`
 * (bound to the statement's placeholders, never spliced into its text), `row_object` (rows as
 * objects keyed by column instead of arrays) and `raise_error`. The answer is `{"rows": [...]}`.
 * PostgreSQL and MySQL hosts must pass the capabilities' `allow_net`; SQLite files must lie in a
 * folder of the context's `allowFiles`, and are opened read-only.
 *
 * Clients are pooled per data source name for the life of the thread (`closeSqlClients` ends them).
 */
import { createRequire } from 'node:module'
import { resolve, sep } from 'node:path'
import type Database from 'better-sqlite3'
import type mysql from 'mysql2/promise'
import type pg from 'pg'
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { fromJS, ObjectValue, toJS } from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { BuiltinError, CallRefusedError } from './errors.js'
import {
  answerOrError,
  optionalArray,
  requiredString,
  storeFailure,
  withinQuery,
} from './external-request.js'
import { boolOption } from './http-options.js'
import { checkNetAllowed } from './net.js'
import { objectOperand } from './operands.js'

/** The drivers sql.send knows, as EOPA names them. */
export const SQL_DRIVERS = ['sqlite', 'postgres', 'mysql'] as const

/** Column names and rows (each an array of column values) of one statement. */
interface Table {
  columns: string[]
  rows: unknown[][]
}

// The drivers load on the first query that needs them: every program that evaluates Rego (each
// `regent test` or `regent eval` start) would otherwise pay for loading all three.
const require = createRequire(import.meta.url)
const drivers: { sqlite?: typeof Database; pg?: typeof pg; mysql?: typeof mysql } = {}
const sqliteDriver = () => (drivers.sqlite ??= require('better-sqlite3') as typeof Database)
const pgDriver = () => (drivers.pg ??= require('pg') as typeof pg)
const mysqlDriver = () => (drivers.mysql ??= require('mysql2/promise') as typeof mysql)

const pgPools = new Map<string, pg.Pool>()
const mysqlPools = new Map<string, mysql.Pool>()

/** Closes every pooled PostgreSQL and MySQL connection of this thread. */
export async function closeSqlClients(): Promise<void> {
  const pools = [...pgPools.values(), ...mysqlPools.values()]
  pgPools.clear()
  mysqlPools.clear()
  await Promise.allSettled(pools.map((p) => p.end()))
}

/** A JSON-like column value as Rego sees it: dates as RFC 3339 text, bytes as UTF-8 text. */
function columnValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString()
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8')
  return v
}

/** A Rego argument as a driver binds it: booleans as themselves (SQLite: 1/0), composites as JSON text. */
function bindValue(v: Value, sqlite: boolean): unknown {
  const js = toJS(v)
  if (typeof js === 'boolean' && sqlite) return js ? 1 : 0
  if (js !== null && typeof js === 'object') return JSON.stringify(js)
  return js
}

// ---- SQLite ----------------------------------------------------------------------------------

function sqliteFile(ctx: BuiltinContext, dsn: string): string {
  const path = dsn.startsWith('file:') ? dsn.slice(5).split('?')[0]! : dsn
  if (path === ':memory:' || path === '') return ':memory:'
  const full = resolve(path)
  const allowed = ctx.allowFiles
  if (allowed !== undefined && !allowed.some((dir) => full.startsWith(resolve(dir) + sep)))
    throw new CallRefusedError(`unallowed file: ${path} (not in a folder the evaluation may read)`)
  return full
}

function querySqlite(ctx: BuiltinContext, dsn: string, query: string, args: readonly Value[]): Table {
  const db = new (sqliteDriver())(sqliteFile(ctx, dsn), { readonly: true, fileMustExist: true })
  try {
    const statement = db.prepare(query)
    const bound = args.map((a) => bindValue(a, true))
    // `$1` placeholders (EOPA's examples, as in PostgreSQL) are named parameters to SQLite.
    const params = /\$\d/.test(query) ? [Object.fromEntries(bound.map((v, i) => [String(i + 1), v]))] : bound
    if (!statement.reader)
      throw new BuiltinError('only statements that return rows may run (the database is opened read-only)')
    const columns = statement.columns().map((c) => c.name)
    const rows = statement.raw(true).all(...params) as unknown[][]
    return { columns, rows }
  } finally {
    db.close()
  }
}

// ---- PostgreSQL ------------------------------------------------------------------------------

/** libpq's `key=value` form or a URL (the scheme is optional, as EOPA leaves it to the driver). */
function pgConfig(dsn: string): pg.PoolConfig {
  if (/^postgres(ql)?:\/\//.test(dsn)) return { connectionString: dsn }
  if (/^\s*\w+=/.test(dsn)) {
    const pairs = Object.fromEntries(
      [...dsn.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/^'|'$/g, ''),
      ]),
    )
    return {
      host: pairs.host,
      port: pairs.port ? Number(pairs.port) : undefined,
      user: pairs.user,
      password: pairs.password,
      database: pairs.dbname,
      ...(pairs.sslmode && pairs.sslmode !== 'disable'
        ? { ssl: { rejectUnauthorized: pairs.sslmode === 'verify-full' } }
        : {}),
    }
  }
  return { connectionString: `postgres://${dsn}` }
}

function pgHost(config: pg.PoolConfig): string {
  if (config.connectionString) return new URL(config.connectionString).hostname || 'localhost'
  return config.host ?? 'localhost'
}

async function queryPostgres(
  ctx: BuiltinContext,
  dsn: string,
  query: string,
  args: readonly Value[],
): Promise<Table> {
  const config = pgConfig(dsn)
  checkNetAllowed(ctx, pgHost(config))
  let pool = pgPools.get(dsn)
  if (!pool) {
    pool = new (pgDriver().Pool)({ ...config, max: 4, idleTimeoutMillis: 10_000, allowExitOnIdle: true })
    pool.on('error', () => {}) // an idle client's failure surfaces on the next query
    pgPools.set(dsn, pool)
  }
  const result = await pool.query({
    text: query,
    values: args.map((a) => bindValue(a, false)),
    rowMode: 'array',
  })
  return { columns: result.fields.map((f) => f.name), rows: result.rows as unknown[][] }
}

// ---- MySQL / MariaDB ------------------------------------------------------------------------

/** Go's `user:password@tcp(host:port)/db?params` or a `mysql://` URL (scheme optional). */
function mysqlConfig(dsn: string): mysql.PoolOptions {
  const go = /^(?:([^:@]*)(?::([^@]*))?@)?(?:(tcp|unix)\(([^)]*)\))?\/([^?]*)(?:\?.*)?$/.exec(dsn)
  if (go && !dsn.includes('://')) {
    const [, user, password, net, address, database] = go
    const options: mysql.PoolOptions = { user: user || undefined, password, database: database || undefined }
    if (net === 'unix') return { ...options, socketPath: address }
    const [host, port] = (address || '127.0.0.1:3306').split(':')
    return { ...options, host, port: port ? Number(port) : 3306 }
  }
  const url = new URL(dsn.includes('://') ? dsn : `mysql://${dsn}`)
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
    database: url.pathname.slice(1) || undefined,
  }
}

async function queryMysql(
  ctx: BuiltinContext,
  dsn: string,
  query: string,
  args: readonly Value[],
): Promise<Table> {
  const config = mysqlConfig(dsn)
  checkNetAllowed(ctx, config.socketPath ?? config.host ?? 'localhost')
  let pool = mysqlPools.get(dsn)
  if (!pool) {
    pool = mysqlDriver().createPool({
      ...config,
      connectionLimit: 4,
      maxIdle: 1,
      idleTimeout: 10_000,
      dateStrings: false,
    })
    mysqlPools.set(dsn, pool)
  }
  const [rows, fields] = await pool.query({
    sql: query,
    values: args.map((a) => bindValue(a, false)),
    rowsAsArray: true,
  })
  if (!Array.isArray(rows) || !fields) return { columns: [], rows: [] }
  return { columns: fields.map((f) => f.name), rows: rows as unknown[][] }
}

// ---- the built-in ----------------------------------------------------------------------------

async function runStatement(
  ctx: BuiltinContext,
  driver: string,
  dsn: string,
  query: string,
  args: readonly Value[],
): Promise<Table> {
  switch (driver) {
    case 'sqlite':
      return querySqlite(ctx, dsn, query, args)
    case 'postgres':
      return queryPostgres(ctx, dsn, query, args)
    case 'mysql':
      return queryMysql(ctx, dsn, query, args)
    default:
      throw new BuiltinError(
        `unsupported driver ${JSON.stringify(driver)}; this build supports ${SQL_DRIVERS.join(', ')}`,
      )
  }
}

export const sqlSend = defineBuiltin({
  name: 'sql.send',
  category: 'sql',
  description: 'Runs a SQL statement against a database (SQLite, PostgreSQL, MySQL) and returns its rows.',
  args: [
    t.named(
      'request',
      t.object(t.string, t.any),
      'driver, data_source_name, query, args, row_object, raise_error',
    ),
  ],
  result: t.named(
    'response',
    t.object(t.any, t.any),
    '`rows`: arrays of column values, or objects with `row_object`',
  ),
  nondeterministic: true,
  async: true,
  impl: (ctx, [r]) => {
    const req = objectOperand(r, 1)
    const driver = requiredString(req, 'driver')
    const dsn = requiredString(req, 'data_source_name')
    const query = requiredString(req, 'query')
    const args = optionalArray(req, 'args')
    const asObjects = boolOption(req, 'row_object', false)
    return answerOrError(req, 'sql_send_error', async () => {
      let table: Table
      try {
        table = await withinQuery(
          ctx,
          Promise.resolve().then(() => runStatement(ctx, driver, dsn, query, args)),
        )
      } catch (err) {
        throw storeFailure(`${driver} query failed`, err)
      }
      const rows = table.rows.map((row) =>
        asObjects
          ? fromJS(Object.fromEntries(table.columns.map((c, i) => [c, columnValue(row[i])])))
          : fromJS(row.map(columnValue)),
      )
      return ObjectValue.fromRecord({ rows })
    })
  },
})

/** The sql.* built-ins. */
export const SQL = [sqlSend] as const
