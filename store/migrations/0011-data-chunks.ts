/**
 * Migration 0011: large data documents stored in chunks (docs/datasources.md, "Storing large
 * documents"). A datasource's document of tens of MB written or read in one statement holds the
 * service's event loop (better-sqlite3 is synchronous) for hundreds of milliseconds, and its
 * commit flushes all of it at once. `data_document_chunks` holds such a text in slices, each
 * written in a small transaction of its own under a fresh `blob` id nothing refers to yet; the
 * document row then switches to it in one small transaction (`value_blob`, `value_length`, with
 * `value` empty), so the switch stays atomic and a run that fails leaves the last good document.
 * Same on SQLite and PostgreSQL.
 */
import type { AnyDb } from './schema.js'

/** Adds the chunk table and the document columns that point into it. */
export function dataChunksMigration() {
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('data_document_chunks')
        .addColumn('blob', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        // ISO-8601 UTC: a blob left by a crash is swept once it is old enough not to be in use.
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('data_document_chunks_pk', ['blob', 'seq'])
        .execute()
      await db.schema.alterTable('data_documents').addColumn('value_blob', 'text').execute()
      await db.schema.alterTable('data_documents').addColumn('value_length', 'integer').execute()
    },
  }
}
