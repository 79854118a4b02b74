/**
 * Connections for the service's database: SQLite (better-sqlite3, WAL) by default, PostgreSQL
 * when the URL says `postgres://`, so several service replicas can share one database. Both sit
 * behind one Kysely instance; SQL that differs between the two asks `dialect`.
 */
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { Kysely, type SqliteDatabase, SqliteDialect } from 'kysely'
import pg from 'pg'
import { createPrivateFile, makePrivateDir } from '../core/state-files.js'
import { SearchPathPostgresDialect } from './postgres-introspector.js'
import type { ServiceTables } from './service/tables.js'

/** Which SQL engine a database runs on. */
export type SqlDialect = 'sqlite' | 'postgres'

/** An open database: the query builder, its dialect and a way to close it. */
export interface ServiceDatabase {
  db: Kysely<ServiceTables>
  dialect: SqlDialect
  /** Where it lives, without credentials: a file path or `postgres://host:port/db`. */
  location: string
  /** The PostgreSQL schema worked in, when one was given. */
  schema?: string
  /**
   * SQLite's own connection (the one under `db`), for hot paths that run prepared statements
   * while holding Kysely's connection (store/service/decision-appender.ts).
   */
  sqlite?: Database.Database
  /** PostgreSQL's pool (the one under `db`), for the decision intake's prepared statements. */
  pgPool?: pg.Pool
  close(): Promise<void>
}

export interface OpenDatabaseOptions {
  /** `postgres://…` / `postgresql://…`, `sqlite:PATH`, or a plain file path. */
  url: string
  /**
   * PostgreSQL schema to work in (created when missing); tests give each run its own.
   * May also come as `?schema=NAME` on the URL.
   */
  schema?: string
  /** Connections in the PostgreSQL pool. */
  poolSize?: number
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** True when `url` names a PostgreSQL database. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

/** URL schemes the service's database may be named with (besides a plain file path). */
export const SUPPORTED_DATABASE_SCHEMES = ['postgres', 'postgresql', 'sqlite'] as const

// `scheme:` as RFC 3986 spells it, at least two letters so a Windows drive (`C:\…`) is a path.
const SCHEME = /^([a-z][a-z0-9+.-]+):/i

/**
 * Why `url` cannot name the service's database, or undefined when it can: a URL whose scheme is
 * not one of SUPPORTED_DATABASE_SCHEMES (e.g. `dynamodb://…`, `mysql://…`) would otherwise be
 * taken as a SQLite file of that name.
 * @example databaseUrlProblem('dynamodb://table') // 'unsupported database URL scheme "dynamodb:" …'
 */
export function databaseUrlProblem(url: string): string | undefined {
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase()
  if (scheme === undefined || (SUPPORTED_DATABASE_SCHEMES as readonly string[]).includes(scheme))
    return undefined
  return `unsupported database URL scheme "${scheme}:": use postgres://… (or postgresql://…) for PostgreSQL, or sqlite:PATH or a file path for SQLite`
}

/**
 * Opens the database named by `url`. SQLite files are created (with their folder) when
 * missing, private to this user (0600, folder 0700), and put in WAL mode with full syncs, so a 2xx after a write means it is on disk.
 * @throws when the URL's scheme is not supported (see databaseUrlProblem).
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<ServiceDatabase> {
  const problem = databaseUrlProblem(options.url)
  if (problem) throw new Error(problem)
  return isPostgresUrl(options.url) ? openPostgres(options) : openSqlite(options.url)
}

function openSqlite(url: string): ServiceDatabase {
  const file = url.replace(/^sqlite:(\/\/)?/i, '')
  if (file !== ':memory:') {
    // The database holds the agent-token key: private to this user, -wal and -shm included.
    makePrivateDir(dirname(file))
    createPrivateFile(file)
  }
  const sqlite = new Database(file)
  sqlite.pragma('journal_mode = WAL')
  // NOTE(service): FULL makes each commit durable (decision logs are acknowledged after it).
  sqlite.pragma('synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  const db = new Kysely<ServiceTables>({
    dialect: new SqliteDialect({ database: keepingCommitErrors(sqlite) }),
  })
  return { db, dialect: 'sqlite', location: file, sqlite, close: () => db.destroy() }
}

/**
 * The connection as Kysely sees it, except that `rollback` outside a transaction does nothing.
 * SQLite rolls a transaction back by itself when its COMMIT fails with SQLITE_FULL (or an I/O
 * error); Kysely then sends ROLLBACK, whose "no transaction is active" error would replace the
 * real one, and a full disk would look like a bug instead of answering 503.
 */
function keepingCommitErrors(sqlite: Database.Database): SqliteDatabase {
  const noop = {
    reader: false,
    run: () => ({ changes: 0, lastInsertRowid: 0 }),
    all: () => [],
    iterate: () => [][Symbol.iterator](),
  }
  return {
    close: () => sqlite.close(),
    prepare: (text: string) =>
      !sqlite.inTransaction && /^\s*rollback\s*;?\s*$/i.test(text) ? noop : sqlite.prepare(text),
  }
}

async function openPostgres(options: OpenDatabaseOptions): Promise<ServiceDatabase> {
  const url = new URL(options.url)
  const schema = options.schema ?? url.searchParams.get('schema') ?? undefined
  url.searchParams.delete('schema')
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`invalid PostgreSQL schema name "${schema}": use lower-case letters, digits and _`)
  }
  const connectionString = url.toString()
  if (schema) {
    const client = new pg.Client({ connectionString })
    await client.connect()
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`)
    } finally {
      await client.end()
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  })
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  const db = new Kysely<ServiceTables>({ dialect: new SearchPathPostgresDialect({ pool }) })
  const location = `postgres://${url.host}${url.pathname}${schema ? `?schema=${schema}` : ''}`
  return { db, dialect: 'postgres', location, schema, pgPool: pool, close: () => db.destroy() }
}
