/**
 * Versioned migrations of the service's database, run at start. The list only grows: a
 * released migration is never edited, a change is a new entry. Kysely's migrator records what
 * ran in `regent_migrations` and takes a lock, so replicas starting together migrate once.
 */
import { type Migration, type MigrationProvider, Migrator } from 'kysely'
import type { ServiceDatabase, SqlDialect } from '../database.js'
import { initialMigration } from './0001-initial.js'
import { recordsKeyedBySystemMigration } from './0002-records-keyed-by-system.js'
import { decisionTextIndexMigration } from './0003-decision-text-index.js'
import { grantsMigration } from './0004-grants.js'
import { secretsMigration } from './0005-secrets.js'
import { activityMigration } from './0006-activity.js'
import { datasourcesMigration } from './0007-datasources.js'
import { gitSyncMigration } from './0008-git-sync.js'
import { bundleRegistryMigration } from './0009-bundle-registry.js'
import { librariesMigration } from './0010-libraries.js'
import { dataChunksMigration } from './0011-data-chunks.js'
import { decisionTextTableMigration } from './0012-decision-text-table.js'

/** Every migration in order; the key is its version name. */
export function serviceMigrations(dialect: SqlDialect): Record<string, Migration> {
  return {
    '0001-initial': initialMigration(dialect),
    '0002-records-keyed-by-system': recordsKeyedBySystemMigration(dialect),
    '0003-decision-text-index': decisionTextIndexMigration(dialect),
    '0004-grants': grantsMigration(),
    '0005-secrets': secretsMigration(dialect),
    '0006-activity': activityMigration(dialect),
    '0007-datasources': datasourcesMigration(dialect),
    '0008-git-sync': gitSyncMigration(),
    '0009-bundle-registry': bundleRegistryMigration(dialect),
    '0010-libraries': librariesMigration(),
    '0011-data-chunks': dataChunksMigration(),
    '0012-decision-text-table': decisionTextTableMigration(dialect),
  }
}

const MIGRATION_TABLE = 'regent_migrations'
const MIGRATION_LOCK_TABLE = 'regent_migrations_lock'

function migratorFor(database: ServiceDatabase): Migrator {
  const migrations = serviceMigrations(database.dialect)
  const provider: MigrationProvider = { getMigrations: async () => migrations }
  return new Migrator({
    db: database.db,
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    // NOTE(store): Kysely looks its tables up by name across schemas; without the schema named,
    // a run in one schema can see another's lock table and skip creating its own.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  })
}

/**
 * Applies every pending migration; resolves to the names applied now.
 * @throws with the failing migration's name and cause.
 */
export async function migrateToLatest(database: ServiceDatabase): Promise<string[]> {
  const { error, results } = await migratorFor(database).migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`database migration ${failed ?? ''} failed: ${reason}`.replace('  ', ' '))
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** True when every known migration has been applied (the readiness check). */
export async function migrationsApplied(database: ServiceDatabase): Promise<boolean> {
  const all = await migratorFor(database).getMigrations()
  return all.every((m) => m.executedAt !== undefined)
}
