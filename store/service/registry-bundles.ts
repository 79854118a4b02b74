/**
 * Versions of a system's bundles kept for its bundle registry: each build with a new revision
 * becomes a version; deploying a version gives it the next deployment sequence (the highest is
 * the active one) and its upload state is tracked until the bucket holds it.
 */
import type { Kysely, Selectable } from 'kysely'
import type { BundleKind } from './bundles.js'
import { isUniqueViolation } from './errors.js'
import type { RegistryBundlesTable, ServiceTables } from './tables.js'

/** A stored version, bytes included. */
export type RegistryBundleRow = Selectable<RegistryBundlesTable>
/** A stored version without its bytes: what listings read. */
export type RegistryBundleSummary = Omit<RegistryBundleRow, 'bytes'>

/** Where an upload stands. */
export type UploadState = 'built' | 'pending' | 'retrying' | 'uploaded' | 'failed' | 'superseded'

const SUMMARY_COLUMNS = [
  'system_id',
  'kind',
  'version',
  'revision',
  'size',
  'built_at',
  'deploy_seq',
  'deployed_at',
  'upload_state',
  'upload_attempts',
  'upload_error',
  'uploaded_to',
  'uploaded_at',
  'etag',
] as const

/** A filter over a system's versions, newest first. */
export interface RegistryListOptions {
  kind?: BundleKind
  /** Only versions at or below this one (paging). */
  atOrBelow?: number
  /** Only versions that were deployed at some time. */
  deployedOnly?: boolean
  limit: number
}

/** What an upload attempt changes. */
export interface UploadUpdate {
  upload_state: UploadState
  upload_attempts?: number
  upload_error?: string | null
  uploaded_to?: string | null
  uploaded_at?: string | null
  etag?: string | null
}

/** Normalises numbers PostgreSQL may hand back as strings. */
function summary<T extends RegistryBundleSummary>(row: T): T {
  return {
    ...row,
    version: Number(row.version),
    size: Number(row.size),
    upload_attempts: Number(row.upload_attempts),
    deploy_seq: row.deploy_seq === null ? null : Number(row.deploy_seq),
  }
}

/** Reads and writes the `registry_bundles` table. */
export class RegistryBundleRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** The newest version of a kind. */
  async latest(systemId: string, kind: BundleKind): Promise<RegistryBundleSummary | undefined> {
    const row = await this.db
      .selectFrom('registry_bundles')
      .select(SUMMARY_COLUMNS)
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst()
    return row && summary(row)
  }

  /** The active (most recently deployed) version of a kind. */
  async active(systemId: string, kind: BundleKind): Promise<RegistryBundleSummary | undefined> {
    const row = await this.db
      .selectFrom('registry_bundles')
      .select(SUMMARY_COLUMNS)
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .where('deploy_seq', 'is not', null)
      .orderBy('deploy_seq', 'desc')
      .limit(1)
      .executeTakeFirst()
    return row && summary(row)
  }

  /** One version with its bytes. */
  async get(systemId: string, kind: BundleKind, version: number): Promise<RegistryBundleRow | undefined> {
    const row = await this.db
      .selectFrom('registry_bundles')
      .selectAll()
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .where('version', '=', version)
      .executeTakeFirst()
    return row && { ...summary(row), bytes: new Uint8Array(row.bytes) }
  }

  /** Versions newest first (by version, then kind). */
  async list(systemId: string, options: RegistryListOptions): Promise<RegistryBundleSummary[]> {
    let query = this.db
      .selectFrom('registry_bundles')
      .select(SUMMARY_COLUMNS)
      .where('system_id', '=', systemId)
    if (options.kind) query = query.where('kind', '=', options.kind)
    if (options.atOrBelow !== undefined) query = query.where('version', '<=', options.atOrBelow)
    if (options.deployedOnly) query = query.where('deploy_seq', 'is not', null)
    const rows = await query.orderBy('version', 'desc').orderBy('kind').limit(options.limit).execute()
    return rows.map(summary)
  }

  /**
   * Stores a new version (the next number of its kind); resolves to that number. Two replicas
   * adding at once collide on the primary key; the loser takes the next number.
   */
  async add(row: {
    system_id: string
    kind: BundleKind
    revision: string
    bytes: Uint8Array
    built_at: string
  }): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const version = ((await this.latest(row.system_id, row.kind))?.version ?? 0) + 1
      try {
        await this.db
          .insertInto('registry_bundles')
          .values({
            ...row,
            version,
            bytes: Buffer.from(row.bytes),
            size: row.bytes.byteLength,
            deploy_seq: null,
            deployed_at: null,
            upload_state: 'built',
            upload_attempts: 0,
            upload_error: null,
            uploaded_to: null,
            uploaded_at: null,
            etag: null,
          })
          .execute()
        return version
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= 5) throw err
      }
    }
  }

  /**
   * Makes `version` the active one (the next deployment sequence) with its upload pending;
   * false when the version does not exist.
   */
  async markDeployed(systemId: string, kind: BundleKind, version: number, at: string): Promise<boolean> {
    const top = await this.active(systemId, kind)
    const result = await this.db
      .updateTable('registry_bundles')
      .set({
        deploy_seq: (top?.deploy_seq ?? 0) + 1,
        deployed_at: at,
        upload_state: 'pending',
        upload_attempts: 0,
        upload_error: null,
      })
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .where('version', '=', version)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Records the outcome of an upload attempt. */
  async setUpload(systemId: string, kind: BundleKind, version: number, update: UploadUpdate): Promise<void> {
    await this.db
      .updateTable('registry_bundles')
      .set(update)
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .where('version', '=', version)
      .execute()
  }

  /** Removes the listed versions of a kind. */
  async delete(systemId: string, kind: BundleKind, versions: readonly number[]): Promise<void> {
    if (versions.length === 0) return
    await this.db
      .deleteFrom('registry_bundles')
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .where('version', 'in', [...versions])
      .execute()
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('registry_bundles').where('system_id', '=', systemId).execute()
  }
}
