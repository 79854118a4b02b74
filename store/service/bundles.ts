/** Built bundles: the latest policy and discovery bundle of each system, as served to agents. */
import type { Kysely, Selectable } from 'kysely'
import { ReadCache } from './read-cache.js'
import type { BundlesTable, ServiceTables } from './tables.js'

export type BundleRow = Selectable<BundlesTable>

/** What a bundle is: the system's policy bundle or its discovery bundle. */
export type BundleKind = 'policy' | 'discovery'

/** Reads and writes the `bundles` table. */
export class BundleRepository {
  constructor(
    private readonly db: Kysely<ServiceTables>,
    /** Shared by the store and its transactions; every write here drops it (read-cache.ts). */
    private readonly cache: ReadCache<string> = new ReadCache(0),
  ) {}

  /** The bundle with its bytes. */
  async get(systemId: string, kind: BundleKind): Promise<BundleRow | undefined> {
    const row = await this.db
      .selectFrom('bundles')
      .selectAll()
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .executeTakeFirst()
    // PostgreSQL hands back a Buffer, SQLite a Buffer too; normalise for callers.
    return row && { ...row, bytes: new Uint8Array(row.bytes) }
  }

  /** Just the revision, for ETag checks and long polls without loading the bytes. */
  async revision(systemId: string, kind: BundleKind): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('bundles')
      .select('revision')
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .executeTakeFirst()
    return row?.revision
  }

  /**
   * `revision` through the store's short-lived cache (every agent poll): a build saved by this
   * process is seen at once, one saved by another process within the cache's TTL.
   */
  revisionCached(systemId: string, kind: BundleKind): Promise<string | undefined> {
    return this.cache.get(`${kind}:${systemId}`, () => this.revision(systemId, kind))
  }

  /** The revision when the cache holds a fresh copy (no database read), else undefined. */
  revisionIfCached(systemId: string, kind: BundleKind): string | undefined {
    return this.cache.peek(`${kind}:${systemId}`)
  }

  /**
   * Stores a build unless a build of a newer (or the same) content_version is already there,
   * so a slow build can never replace a fresher one. Resolves to whether it was stored.
   */
  async saveIfNewer(row: BundleRow): Promise<boolean> {
    const { system_id, kind, ...rest } = row
    const values = { ...row, bytes: Buffer.from(row.bytes) }
    const result = await this.db
      .insertInto('bundles')
      .values(values)
      .onConflict((oc) =>
        oc
          .columns(['system_id', 'kind'])
          .doUpdateSet({ ...rest, bytes: values.bytes })
          .where('bundles.content_version', '<', row.content_version),
      )
      .executeTakeFirst()
    this.cache.invalidate()
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('bundles').where('system_id', '=', systemId).execute()
    this.cache.invalidate()
  }
}
