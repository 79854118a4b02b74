/**
 * The databases the store's contract tests run against: SQLite always (a file in a fresh temp
 * folder), PostgreSQL when REGENT_TEST_PG_URL is set (a schema of its own per store, dropped
 * afterwards, since the server keeps state between runs).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { ServiceStore } from '../../store/service/index.js'

export const PG_URL = process.env.REGENT_TEST_PG_URL

/** Where a test database lives and how to remove it. */
export interface TestDatabase {
  /** The URL to hand to ServiceStore.open / the service config. */
  url: string
  /** PostgreSQL schema, when any. */
  schema?: string
  cleanup(): Promise<void>
}

export interface Backend {
  name: 'sqlite' | 'postgres'
  /** False when the database is not configured here; suites skip with the stated reason. */
  available: boolean
  /** A fresh, empty database. */
  create(): Promise<TestDatabase>
}

const sqlite: Backend = {
  name: 'sqlite',
  available: true,
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'regent-store-'))
    return {
      url: join(dir, 'service.db'),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    }
  },
}

const postgres: Backend = {
  name: 'postgres',
  available: PG_URL !== undefined && PG_URL !== '',
  async create() {
    const url = PG_URL!
    const schema = `regent_test_${process.pid}_${randomBytes(4).toString('hex')}`
    return {
      url,
      schema,
      async cleanup() {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
        } finally {
          await client.end()
        }
      },
    }
  },
}

if (!postgres.available) console.log('skipping PostgreSQL suites: REGENT_TEST_PG_URL is not set')

/** Both backends; use `describe.skipIf(!backend.available)`. */
export const BACKENDS: Backend[] = [sqlite, postgres]

/** Opens a migrated store on a fresh database; `close` also removes the database. */
export async function openTestStore(
  backend: Backend,
): Promise<{ store: ServiceStore; close(): Promise<void> }> {
  const database = await backend.create()
  const store = await ServiceStore.open({ url: database.url, schema: database.schema, poolSize: 4 })
  return {
    store,
    async close() {
      await store.close()
      await database.cleanup()
    },
  }
}
