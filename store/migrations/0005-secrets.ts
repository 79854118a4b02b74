/**
 * Migration 0005: the secret store. Values are never stored in the clear: `ciphertext` is the
 * AES-256-GCM envelope written by service/secrets/cipher.ts and `key_id` names the key it was
 * sealed with (repeated from the envelope so a rotation can find the rows still on an old key).
 * Ids may contain slashes (`git/ssh/key`). Same definition on SQLite and PostgreSQL.
 */
import type { SqlDialect } from '../database.js'
import { type AnyDb, AUDIT_COLUMNS } from './schema.js'

/** Creates the `secrets` table and its key-id index. */
export function secretsMigration(_dialect: SqlDialect) {
  return {
    async up(db: AnyDb): Promise<void> {
      let secrets = db.schema
        .createTable('secrets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('ciphertext', 'text', (c) => c.notNull())
      for (const col of AUDIT_COLUMNS) secrets = secrets.addColumn(col, 'text', (c) => c.notNull())
      await secrets.execute()
      await db.schema.createIndex('secrets_key_id').on('secrets').column('key_id').execute()
    },
  }
}
