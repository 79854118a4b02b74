/**
 * Migration 0009: the bundle registry (issue 21). `registry_bundles` keeps every version of a
 * system's policy and discovery bundle built while the system has a `bundle_registry`, with
 * its bytes (a deploy or rollback uploads them again) and the state of its upload to the bucket.
 * `deploy_seq` orders deployments: the version with the highest one is the system's active
 * bundle of that kind (a rollback deploys an older version with a new, higher sequence).
 * Same definition on SQLite and PostgreSQL.
 */
import type { SqlDialect } from '../database.js'
import type { AnyDb } from './schema.js'

/** Creates `registry_bundles` and its index on deployments. */
export function bundleRegistryMigration(dialect: SqlDialect) {
  const binary = dialect === 'postgres' ? 'bytea' : 'blob'
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('registry_bundles')
        .addColumn('system_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('revision', 'text', (c) => c.notNull())
        .addColumn('bytes', binary, (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('built_at', 'text', (c) => c.notNull())
        // Deployment: null until the version is deployed (at once, or by bundle-deploy).
        .addColumn('deploy_seq', 'integer')
        .addColumn('deployed_at', 'text')
        // Upload: built (not deployed), pending, retrying, uploaded, failed, superseded.
        .addColumn('upload_state', 'text', (c) => c.notNull())
        .addColumn('upload_attempts', 'integer', (c) => c.notNull())
        .addColumn('upload_error', 'text')
        .addColumn('uploaded_to', 'text')
        .addColumn('uploaded_at', 'text')
        .addColumn('etag', 'text')
        .addPrimaryKeyConstraint('registry_bundles_pk', ['system_id', 'kind', 'version'])
        .execute()
      await db.schema
        .createIndex('registry_bundles_deploy')
        .on('registry_bundles')
        .columns(['system_id', 'kind', 'deploy_seq'])
        .execute()
    },
  }
}
