/** Data documents: plain JSON stored under slash paths; `systems/{id}/…` feed that system's bundle. */
import type { Kysely, Selectable } from 'kysely'
import type { DataDocumentsTable, ServiceTables } from './tables.js'
import { startsWith } from './text.js'

export type DataDocumentRow = Selectable<DataDocumentsTable>

/** Reads and writes the `data_documents` table. */
export class DataDocumentRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  get(path: string): Promise<DataDocumentRow | undefined> {
    return this.db.selectFrom('data_documents').selectAll().where('path', '=', path).executeTakeFirst()
  }

  /**
   * The document at `path` without its value: its ETag and audit columns, for a writer that only
   * compares ETags (a datasource's document may be tens of MB).
   */
  getMeta(path: string): Promise<Omit<DataDocumentRow, 'value'> | undefined> {
    return this.db
      .selectFrom('data_documents')
      .select([
        'path',
        'system_id',
        'etag',
        'created_at',
        'created_by',
        'created_through',
        'last_modified_at',
        'last_modified_by',
        'last_modified_through',
      ])
      .where('path', '=', path)
      .executeTakeFirst()
  }

  /** The documents stored at any of `paths` (used to find a path's ancestors). */
  getMany(paths: string[]): Promise<DataDocumentRow[]> {
    if (paths.length === 0) return Promise.resolve([])
    return this.db.selectFrom('data_documents').selectAll().where('path', 'in', paths).execute()
  }

  /** Documents strictly below `path` (every document when `path` is empty). */
  listBelow(path: string): Promise<DataDocumentRow[]> {
    let query = this.db.selectFrom('data_documents').selectAll()
    if (path !== '') query = query.where(startsWith('path', `${path}/`))
    return query.orderBy('path').execute()
  }

  /** The documents that go into a system's bundle. */
  listForSystem(systemId: string): Promise<DataDocumentRow[]> {
    return this.db
      .selectFrom('data_documents')
      .selectAll()
      .where('system_id', '=', systemId)
      .orderBy('path')
      .execute()
  }

  /** Inserts or replaces the document at `row.path`. */
  async upsert(row: DataDocumentRow): Promise<void> {
    const { path, created_at, created_by, created_through, ...changed } = row
    await this.db
      .insertInto('data_documents')
      .values(row)
      .onConflict((oc) => oc.column('path').doUpdateSet(changed))
      .execute()
  }

  async delete(path: string): Promise<boolean> {
    const result = await this.db.deleteFrom('data_documents').where('path', '=', path).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('data_documents').where('system_id', '=', systemId).execute()
  }
}
