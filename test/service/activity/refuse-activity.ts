/**
 * Makes every INSERT into the `activity` table fail, through a trigger on the real database (as
 * a full disk or a broken table would), on SQLite and PostgreSQL. Other tables keep working.
 */
import Database from 'better-sqlite3'
import pg from 'pg'
import type { TestDatabase } from '../../store/backends.js'

const MESSAGE = 'activity insert refused by the test'

/**
 * Installs the trigger in `database` (for SQLite, the file at `sqliteFile`, where the service
 * keeps it); resolves to a function that removes it.
 */
export async function refuseActivityInserts(
  database: TestDatabase,
  sqliteFile: string,
): Promise<() => Promise<void>> {
  if (database.schema === undefined) {
    const sqlite = new Database(sqliteFile)
    sqlite.pragma('busy_timeout = 5000')
    sqlite.exec(
      `CREATE TRIGGER refuse_activity BEFORE INSERT ON activity BEGIN SELECT RAISE(ABORT, '${MESSAGE}'); END`,
    )
    return async () => {
      sqlite.exec('DROP TRIGGER refuse_activity')
      sqlite.close()
    }
  }
  const client = new pg.Client({
    connectionString: database.url,
    options: `-c search_path="${database.schema}"`,
  })
  await client.connect()
  await client.query(
    `CREATE FUNCTION refuse_activity() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${MESSAGE}'; END $$`,
  )
  await client.query(
    'CREATE TRIGGER refuse_activity BEFORE INSERT ON activity FOR EACH ROW EXECUTE FUNCTION refuse_activity()',
  )
  return async () => {
    await client.query('DROP TRIGGER refuse_activity ON activity')
    await client.query('DROP FUNCTION refuse_activity()')
    await client.end()
  }
}
