/**
 * Migration 0007: datasources (issue 20). One row per datasource: its validated configuration
 * (JSON text, defaults filled in), its last status (JSON text), and what the scheduler needs to
 * survive restarts and share work between replicas: when it runs next, how many runs failed in a
 * row (backoff), and a lease (`lease_owner` until `lease_until`) so one replica runs it at a
 * time. The fetched data itself is a data document at the datasource's id (data_documents), so
 * the bundle builder places it without knowing about datasources. Same on SQLite and PostgreSQL.
 */
import type { SqlDialect } from '../database.js'
import { type AnyDb, AUDIT_COLUMNS } from './schema.js'

/** Creates the `datasources` table and the index the scheduler reads due rows through. */
export function datasourcesMigration(_dialect: SqlDialect) {
  return {
    async up(db: AnyDb): Promise<void> {
      let table = db.schema
        .createTable('datasources')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('system_id', 'text')
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        // 1 or 0; only enabled polling datasources are scheduled.
        .addColumn('scheduled', 'integer', (c) => c.notNull())
        .addColumn('executed', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        // ISO-8601 UTC with milliseconds: compares as text.
        .addColumn('next_run_at', 'text', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'text')
      for (const col of AUDIT_COLUMNS) table = table.addColumn(col, 'text', (c) => c.notNull())
      await table.execute()
      await db.schema
        .createIndex('datasources_due')
        .on('datasources')
        .columns(['scheduled', 'next_run_at'])
        .execute()
      await db.schema.createIndex('datasources_system').on('datasources').column('system_id').execute()
    },
  }
}
