/**
 * Migration 0010: policy libraries (docs/libraries.md). One row per library: its description
 * and its modules (JSON object, file name → Rego source), with the audit columns every object
 * keeps. Systems take a library's modules through a `policy-library` datasource, which copies
 * them into a policy row of the system (nothing here refers to systems). Same definition on
 * SQLite and PostgreSQL.
 */
import type { AnyDb } from './schema.js'

/** Creates the `libraries` table. */
export function librariesMigration() {
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('libraries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('modules', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_through', 'text', (c) => c.notNull())
        .addColumn('last_modified_at', 'text', (c) => c.notNull())
        .addColumn('last_modified_by', 'text', (c) => c.notNull())
        .addColumn('last_modified_through', 'text', (c) => c.notNull())
        .execute()
    },
  }
}
