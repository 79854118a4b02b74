/**
 * Migration 0006: the activity log (issue 18): one row per management-API request, written
 * before the response is sent. The searchable fields are columns; the whole `ActivityData`
 * record is JSON text. Rows are read in (request time, sequence) order, newest first by default,
 * so the filter indexes (class, outcome) end in (ts_us, seq).
 */
import type { SqlDialect } from '../database.js'
import type { AnyDb } from './schema.js'

/** Creates the `activity` table and its indexes. */
export function activityMigration(dialect: SqlDialect) {
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('activity')
        .$call((t) =>
          dialect === 'postgres'
            ? t.addColumn('seq', 'bigserial', (c) => c.primaryKey())
            : t.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()),
        )
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('ts_us', 'bigint', (c) => c.notNull())
        .addColumn('class', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('requested_by', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('record', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('activity_ts').on('activity').columns(['ts_us', 'seq']).execute()
      await db.schema
        .createIndex('activity_class_ts')
        .on('activity')
        .columns(['class', 'ts_us', 'seq'])
        .execute()
      // Refusals are what an audit looks for first, and they are rare: `outcome=denied` reads them directly.
      await db.schema
        .createIndex('activity_outcome_ts')
        .on('activity')
        .columns(['outcome', 'ts_us', 'seq'])
        .execute()
      await db.schema.createIndex('activity_request_id').on('activity').column('request_id').execute()
    },
  }
}
