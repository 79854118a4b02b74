/**
 * The service's PostgreSQL introspector (store/postgres-introspector.ts): it lists only the
 * tables of the schemas on the search path, with their columns, and keeps working while other
 * clients drop schemas (Kysely's own failed about one call in twenty under the churn below, so
 * a store's start-up migration failed now and then in CI).
 */
import { Kysely, sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SearchPathPostgresDialect } from '../../store/postgres-introspector.js'
import { openTestStore, PG_URL } from './backends.js'

const SCHEMA = `regent_introspect_${process.pid}`
const OTHER = `${SCHEMA}_other`

// Skipped without REGENT_TEST_PG_URL: the introspector is PostgreSQL's.
describe.skipIf(!PG_URL)('search-path introspector on postgres', () => {
  let admin: pg.Client
  let db: Kysely<unknown>

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; DROP SCHEMA IF EXISTS ${OTHER} CASCADE`)
    await admin.query(`CREATE SCHEMA ${SCHEMA}; CREATE SCHEMA ${OTHER}`)
    await admin.query(`CREATE TABLE ${SCHEMA}.things (
      id serial PRIMARY KEY, ident bigint GENERATED ALWAYS AS IDENTITY, name text NOT NULL, note text DEFAULT 'x')`)
    await admin.query(`CREATE VIEW ${SCHEMA}.thing_names AS SELECT name FROM ${SCHEMA}.things`)
    await admin.query(`CREATE TABLE ${OTHER}.elsewhere (id int)`)
    const pool = new pg.Pool({ connectionString: PG_URL, max: 2, options: `-c search_path=${SCHEMA}` })
    db = new Kysely({ dialect: new SearchPathPostgresDialect({ pool }) })
  })
  afterAll(async () => {
    await db?.destroy()
    await admin?.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; DROP SCHEMA IF EXISTS ${OTHER} CASCADE`)
    await admin?.end()
  })

  it('lists the tables and views of the search path with their columns, and nothing else', async () => {
    const tables = await db.introspection.getTables()
    expect(tables.map((t) => `${t.schema}.${t.name}`)).toEqual([`${SCHEMA}.thing_names`, `${SCHEMA}.things`])
    expect(tables[0]!.isView).toBe(true)
    const columns = tables[1]!.columns.map((c) => ({
      name: c.name,
      type: c.dataType,
      nullable: c.isNullable,
      default: c.hasDefaultValue,
      auto: c.isAutoIncrementing,
    }))
    expect(columns).toEqual([
      { name: 'id', type: 'int4', nullable: false, default: true, auto: true },
      { name: 'ident', type: 'int8', nullable: false, default: false, auto: true },
      { name: 'name', type: 'text', nullable: false, default: false, auto: false },
      { name: 'note', type: 'text', nullable: true, default: true, auto: false },
    ])
    expect((await db.introspection.getSchemas()).map((s) => s.name)).toEqual(
      expect.arrayContaining([SCHEMA, OTHER]),
    )
  })

  it('leaves out Kysely’s own migration tables unless asked', async () => {
    await sql`create table kysely_migration (name text)`.execute(db)
    try {
      expect((await db.introspection.getTables()).map((t) => t.name)).not.toContain('kysely_migration')
      const all = await db.introspection.getTables({ withInternalKyselyTables: true })
      expect(all.map((t) => t.name)).toContain('kysely_migration')
    } finally {
      await sql`drop table kysely_migration`.execute(db)
    }
  })

  it('keeps answering, and stores keep opening, while other clients drop schemas', async () => {
    const churn = new pg.Client({ connectionString: PG_URL })
    await churn.connect()
    let stop = false
    let dropped = 0
    const churning = (async () => {
      for (let i = 0; !stop && i < 5000; i++) {
        const name = `${SCHEMA}_churn_${i}`
        await churn.query(`CREATE SCHEMA ${name}; CREATE TABLE ${name}.t (id serial PRIMARY KEY, a text)`)
        await churn.query(`DROP SCHEMA ${name} CASCADE`)
        dropped++
      }
    })()
    try {
      const deadline = Date.now() + 10_000
      let calls = 0
      while (calls < 400 && Date.now() < deadline) {
        await db.introspection.getTables({ withInternalKyselyTables: true })
        calls++
      }
      for (let i = 0; i < 3; i++) {
        const opened = await openTestStore({
          name: 'postgres',
          available: true,
          create: async () => {
            const schema = `${SCHEMA}_store_${i}`
            return {
              url: PG_URL!,
              schema,
              cleanup: async () => void (await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
            }
          },
        })
        await opened.close()
      }
      expect(dropped).toBeGreaterThan(0)
    } finally {
      stop = true
      await churning
      await churn.end()
    }
  })
})
