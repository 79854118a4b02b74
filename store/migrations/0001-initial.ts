/**
 * Migration 0001: the service's first tables. One definition for SQLite and PostgreSQL; the
 * only differences are the auto-increment key and the binary column type.
 */
import type { SqlDialect } from '../database.js'
import { type AnyDb, AUDIT_COLUMNS } from './schema.js'

/** Creates settings, tokens, systems, policies, data documents, bundles, decisions, agent status. */
export function initialMigration(dialect: SqlDialect) {
  const binary = dialect === 'postgres' ? 'bytea' : 'blob'
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute()

      let tokens = db.schema
        .createTable('tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('allow_path_patterns', 'text', (c) => c.notNull())
        .addColumn('ttl', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('roles', 'text', (c) => c.notNull())
        .addColumn('system_id', 'text')
        .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
      for (const col of AUDIT_COLUMNS) tokens = tokens.addColumn(col, 'text', (c) => c.notNull())
      await tokens.execute()
      await db.schema.createIndex('tokens_system_id').on('tokens').column('system_id').execute()

      let systems = db.schema
        .createTable('systems')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_errors', 'text')
        .addColumn('content_version', 'integer', (c) => c.notNull().defaultTo(0))
      for (const col of AUDIT_COLUMNS) systems = systems.addColumn(col, 'text', (c) => c.notNull())
      await systems.execute()

      let policies = db.schema
        .createTable('policies')
        .addColumn('path', 'text', (c) => c.primaryKey())
        .addColumn('system_id', 'text')
        .addColumn('modules', 'text', (c) => c.notNull())
      for (const col of AUDIT_COLUMNS) policies = policies.addColumn(col, 'text', (c) => c.notNull())
      await policies.execute()
      await db.schema.createIndex('policies_system_id').on('policies').column('system_id').execute()

      let documents = db.schema
        .createTable('data_documents')
        .addColumn('path', 'text', (c) => c.primaryKey())
        .addColumn('system_id', 'text')
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('etag', 'text', (c) => c.notNull())
      for (const col of AUDIT_COLUMNS) documents = documents.addColumn(col, 'text', (c) => c.notNull())
      await documents.execute()
      await db.schema
        .createIndex('data_documents_system_id')
        .on('data_documents')
        .column('system_id')
        .execute()

      await db.schema
        .createTable('bundles')
        .addColumn('system_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('revision', 'text', (c) => c.notNull())
        .addColumn('content_version', 'integer', (c) => c.notNull())
        .addColumn('bytes', binary, (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('built_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('bundles_pk', ['system_id', 'kind'])
        .execute()

      await db.schema
        .createTable('decisions')
        .$call((t) =>
          dialect === 'postgres'
            ? t.addColumn('seq', 'bigserial', (c) => c.primaryKey())
            : t.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()),
        )
        .addColumn('decision_id', 'text', (c) => c.notNull().unique())
        .addColumn('system_id', 'text')
        .addColumn('path', 'text')
        .addColumn('result_kind', 'text', (c) => c.notNull())
        .addColumn('ts_us', 'bigint', (c) => c.notNull())
        .addColumn('received_us', 'bigint', (c) => c.notNull())
        .addColumn('raw', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('decisions_ts').on('decisions').columns(['ts_us', 'seq']).execute()
      await db.schema
        .createIndex('decisions_system_ts')
        .on('decisions')
        .columns(['system_id', 'ts_us', 'seq'])
        .execute()
      await db.schema.createIndex('decisions_path').on('decisions').columns(['path', 'ts_us']).execute()

      await db.schema
        .createTable('agent_status')
        .addColumn('agent_id', 'text', (c) => c.primaryKey())
        .addColumn('system_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('agent_status_system_id').on('agent_status').column('system_id').execute()
    },
  }
}
