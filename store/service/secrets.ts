/**
 * Secrets: named values other objects refer to by id. The table holds only the sealed value
 * (`ciphertext`) and the id of the key that sealed it; sealing and opening live in
 * service/secrets/, which owns the keys. Reads for the API select metadata columns only.
 */
import type { Kysely, Selectable } from 'kysely'
import { AlreadyExistsError, isUniqueViolation } from './errors.js'
import type { SecretsTable, ServiceTables } from './tables.js'

/** A stored secret, sealed value included (never hand it to a response). */
export type SecretRow = Selectable<SecretsTable>
/** A stored secret without its sealed value: what listings and GET read. */
export type SecretMetadataRow = Omit<SecretRow, 'ciphertext' | 'key_id'>

const METADATA_COLUMNS = [
  'id',
  'name',
  'description',
  'created_at',
  'created_by',
  'created_through',
  'last_modified_at',
  'last_modified_by',
  'last_modified_through',
] as const

/** Reads and writes the `secrets` table. */
export class SecretRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Every secret's metadata, ordered by id. */
  list(): Promise<SecretMetadataRow[]> {
    return this.db.selectFrom('secrets').select(METADATA_COLUMNS).orderBy('id').execute()
  }

  /** One secret's metadata. */
  getMetadata(id: string): Promise<SecretMetadataRow | undefined> {
    return this.db.selectFrom('secrets').select(METADATA_COLUMNS).where('id', '=', id).executeTakeFirst()
  }

  /** One secret with its sealed value (for opening it). */
  getSealed(id: string): Promise<SecretRow | undefined> {
    return this.db.selectFrom('secrets').selectAll().where('id', '=', id).executeTakeFirst()
  }

  /** The ids among `ids` that are not stored. */
  async missing(ids: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(ids)]
    if (wanted.length === 0) return []
    const found = await this.db.selectFrom('secrets').select('id').where('id', 'in', wanted).execute()
    const present = new Set(found.map((r) => r.id))
    return wanted.filter((id) => !present.has(id))
  }

  /** @throws AlreadyExistsError when the id is taken. */
  async insert(row: SecretRow): Promise<void> {
    try {
      await this.db.insertInto('secrets').values(row).execute()
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExistsError(`secret ${row.id} already exists`)
      throw err
    }
  }

  /** Replaces every column but the id and the creation audit; false when the secret is gone. */
  async replace(row: SecretRow): Promise<boolean> {
    const { id, created_at, created_by, created_through, ...changed } = row
    const result = await this.db.updateTable('secrets').set(changed).where('id', '=', id).executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Resolves to false when there was nothing to delete. */
  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('secrets').where('id', '=', id).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }

  /** The distinct key ids stored values are sealed with. */
  async keyIds(): Promise<string[]> {
    const rows = await this.db.selectFrom('secrets').select('key_id').distinct().orderBy('key_id').execute()
    return rows.map((r) => r.key_id)
  }

  /**
   * Up to `limit` secrets sealed with another key than `keyId`, ordered by id, after the id
   * `after` when given (rotation pages through them).
   */
  listSealedWithOtherKey(keyId: string, limit: number, after?: string): Promise<SecretRow[]> {
    let query = this.db.selectFrom('secrets').selectAll().where('key_id', '!=', keyId)
    if (after !== undefined) query = query.where('id', '>', after)
    return query.orderBy('id').limit(limit).execute()
  }

  /**
   * Re-seals one value if it is still the one read (compare-and-set on the old ciphertext), so a
   * rotation never overwrites a value written meanwhile; resolves to false when it changed.
   */
  async reseal(id: string, from: string, to: { key_id: string; ciphertext: string }): Promise<boolean> {
    const result = await this.db
      .updateTable('secrets')
      .set(to)
      .where('id', '=', id)
      .where('ciphertext', '=', from)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }
}
