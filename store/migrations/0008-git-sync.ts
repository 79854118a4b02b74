/**
 * Migration 0008: the sync state of systems built from git. One row per git-backed system: the
 * commit its bundle is built from and the last failure of a fetch (kept until the next good one).
 * ssh host keys learnt by trust on first use are per host, in the settings table (not here).
 * Same definition on SQLite and PostgreSQL.
 */
import type { AnyDb } from './schema.js'

/** Creates the `git_sync` table. */
export function gitSyncMigration() {
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('git_sync')
        .addColumn('system_id', 'text', (c) => c.primaryKey())
        // The origin's url, reference, commit and path this state was synced for (JSON text).
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('commit_sha', 'text')
        .addColumn('ref', 'text')
        .addColumn('synced_at', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error', 'text')
        .addColumn('attempted_at', 'text')
        .execute()
    },
  }
}
