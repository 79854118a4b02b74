/**
 * Real databases for the compile SQL tests: SQLite always (a file in a temp dir), PostgreSQL when
 * REGENT_TEST_PG_URL is set (a schema of its own), MariaDB/MySQL when REGENT_TEST_MYSQL_URL is set (a
 * database of its own). Each gets the same tables with the column types and collations the translation
 * assumes: byte-order, case-sensitive text and numeric columns for numbers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import mysql from 'mysql2/promise'
import pg from 'pg'
import type { SqlDialect } from '../../compile/types.js'

/** A column value in the generated rows. */
export type Cell = null | boolean | number | string

/** A table: its name, columns with a type per dialect family, and rows. */
export interface TableSpec {
  name: string
  columns: Array<{ name: string; type: 'int' | 'text' | 'decimal' | 'bool'; nullable: boolean }>
  rows: Array<Record<string, Cell>>
}

/** One open database. `query` runs a SELECT and returns its rows. */
export interface TestDatabase {
  dialect: SqlDialect
  query(sql: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const TYPES: Record<
  'postgresql' | 'mysql' | 'sqlite',
  Record<TableSpec['columns'][number]['type'], string>
> = {
  postgresql: { int: 'INTEGER', text: 'TEXT COLLATE "C"', decimal: 'NUMERIC(10,2)', bool: 'BOOLEAN' },
  mysql: {
    int: 'INTEGER',
    text: 'VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin',
    decimal: 'DECIMAL(10,2)',
    bool: 'BOOLEAN',
  },
  sqlite: { int: 'INTEGER', text: 'TEXT', decimal: 'NUMERIC', bool: 'INTEGER' },
}

function createTable(dialect: 'postgresql' | 'mysql' | 'sqlite', t: TableSpec): string {
  const cols = t.columns.map((c) => `${c.name} ${TYPES[dialect][c.type]}${c.nullable ? '' : ' NOT NULL'}`)
  return `CREATE TABLE ${t.name} (${cols.join(', ')})`
}

const unique = () => `regent_compile_${process.pid}_${Math.floor(Math.random() * 1e9)}`

/** SQLite in a temp file. */
export async function openSqlite(tables: TableSpec[]): Promise<TestDatabase> {
  const dir = mkdtempSync(path.join(tmpdir(), 'regent-compile-'))
  const db = new Database(path.join(dir, 'filters.db'))
  for (const t of tables) {
    db.exec(createTable('sqlite', t))
    const names = t.columns.map((c) => c.name)
    const insert = db.prepare(
      `INSERT INTO ${t.name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
    )
    for (const row of t.rows) insert.run(...names.map((n) => sqliteValue(row[n] ?? null)))
  }
  return {
    dialect: 'sqlite',
    query: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
    close: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function sqliteValue(v: Cell): number | string | null {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v
}

/** PostgreSQL in a schema of its own, dropped on close. */
export async function openPostgres(url: string, tables: TableSpec[]): Promise<TestDatabase> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const schema = unique()
  await client.query(`CREATE SCHEMA ${schema}`)
  await client.query(`SET search_path TO ${schema}`)
  for (const t of tables) {
    await client.query(createTable('postgresql', t))
    const names = t.columns.map((c) => c.name)
    for (const row of t.rows) {
      await client.query(
        `INSERT INTO ${t.name} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
        names.map((n) => row[n] ?? null),
      )
    }
  }
  return {
    dialect: 'postgresql',
    query: async (sql) => (await client.query(sql)).rows,
    close: async () => {
      await client.query(`DROP SCHEMA ${schema} CASCADE`)
      await client.end()
    },
  }
}

/** MariaDB/MySQL in a database of its own, dropped on close. */
export async function openMysql(url: string, tables: TableSpec[]): Promise<TestDatabase> {
  const conn = await mysql.createConnection({ uri: url, charset: 'utf8mb4' })
  const database = unique()
  await conn.query(`CREATE DATABASE ${database}`)
  await conn.query(`USE ${database}`)
  for (const t of tables) {
    await conn.query(createTable('mysql', t))
    const names = t.columns.map((c) => c.name)
    for (const row of t.rows) {
      await conn.execute(
        `INSERT INTO ${t.name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
        names.map((n) => row[n] ?? null),
      )
    }
  }
  return {
    dialect: 'mysql',
    query: async (sql) => (await conn.query(sql))[0] as Array<Record<string, unknown>>,
    close: async () => {
      await conn.query(`DROP DATABASE ${database}`)
      await conn.end()
    },
  }
}
