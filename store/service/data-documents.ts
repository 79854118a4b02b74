/** Data documents: plain JSON stored under slash paths; `systems/{id}/…` feed that system's bundle. */
import type { Kysely, Selectable } from 'kysely'
import { type ChunkedText, DataChunkRepository } from './data-chunks.js'
import type { DataDocumentsTable, ServiceTables } from './tables.js'
import { startsWith } from './text.js'

/** A document as its readers see it: `value` is its whole text, wherever it is stored. */
export type DataDocumentRow = Omit<Selectable<DataDocumentsTable>, 'value_blob' | 'value_length'>

type StoredRow = Selectable<DataDocumentsTable>

/** Reads of a chunked document that met its blob being deleted (it moved on) before giving up. */
const READ_ATTEMPTS = 5

const META_COLUMNS = [
  'path',
  'system_id',
  'etag',
  'created_at',
  'created_by',
  'created_through',
  'last_modified_at',
  'last_modified_by',
  'last_modified_through',
] as const

/** Reads and writes the `data_documents` table (large texts in chunks: data-chunks.ts). */
export class DataDocumentRepository {
  readonly chunks: DataChunkRepository

  constructor(private readonly db: Kysely<ServiceTables>) {
    this.chunks = new DataChunkRepository(db)
  }

  get(path: string): Promise<DataDocumentRow | undefined> {
    return this.#resolved(async () =>
      this.db.selectFrom('data_documents').selectAll().where('path', '=', path).execute(),
    ).then((rows) => rows[0])
  }

  /**
   * The document at `path` without its value: its ETag and audit columns, for a writer that only
   * compares ETags (a datasource's document may be tens of MB).
   */
  getMeta(path: string): Promise<Omit<DataDocumentRow, 'value'> | undefined> {
    return this.db
      .selectFrom('data_documents')
      .select([...META_COLUMNS])
      .where('path', '=', path)
      .executeTakeFirst()
  }

  /** The documents stored at any of `paths` (used to find a path's ancestors). */
  getMany(paths: string[]): Promise<DataDocumentRow[]> {
    if (paths.length === 0) return Promise.resolve([])
    return this.#resolved(() =>
      this.db.selectFrom('data_documents').selectAll().where('path', 'in', paths).execute(),
    )
  }

  /** Documents strictly below `path` (every document when `path` is empty). */
  listBelow(path: string): Promise<DataDocumentRow[]> {
    return this.#resolved(() => {
      let query = this.db.selectFrom('data_documents').selectAll()
      if (path !== '') query = query.where(startsWith('path', `${path}/`))
      return query.orderBy('path').execute()
    })
  }

  /** The documents that go into a system's bundle. */
  listForSystem(systemId: string): Promise<DataDocumentRow[]> {
    return this.#resolved(() =>
      this.db
        .selectFrom('data_documents')
        .selectAll()
        .where('system_id', '=', systemId)
        .orderBy('path')
        .execute(),
    )
  }

  /**
   * The documents that go into a system's bundle, each text as its parts in order (`value` only
   * when it is one part): a chunked text is not joined into one string (tens of MB copied at once).
   */
  listForSystemParts(systemId: string): Promise<Array<DataDocumentRow & { parts: string[] }>> {
    return this.#resolvedParts(() =>
      this.db
        .selectFrom('data_documents')
        .selectAll()
        .where('system_id', '=', systemId)
        .orderBy('path')
        .execute(),
    )
  }

  /**
   * Inserts or replaces the document at `row.path` with its text in `value`; resolves to the
   * blob of the chunked text it replaced, if any, for the caller to release once committed.
   */
  upsert(row: DataDocumentRow): Promise<string | undefined> {
    return this.#upsert({ ...row, value_blob: null, value_length: null })
  }

  /**
   * Inserts or replaces the document at `row.path` with the text already written as `chunked`
   * (chunks.write, outside this transaction): one small write, however large the text. Resolves
   * to the blob it replaced, if any (release it once committed).
   */
  upsertChunked(row: Omit<DataDocumentRow, 'value'>, chunked: ChunkedText): Promise<string | undefined> {
    return this.#upsert({ ...row, value: '', value_blob: chunked.blob, value_length: chunked.length })
  }

  async #upsert(row: StoredRow): Promise<string | undefined> {
    const before = await this.db
      .selectFrom('data_documents')
      .select('value_blob')
      .where('path', '=', row.path)
      .executeTakeFirst()
    const { path, created_at, created_by, created_through, ...changed } = row
    await this.db
      .insertInto('data_documents')
      .values(row)
      .onConflict((oc) => oc.column('path').doUpdateSet(changed))
      .execute()
    const replaced = before?.value_blob ?? undefined
    return replaced !== row.value_blob ? replaced : undefined
  }

  /** Deletes the document; its chunks, if any, are left to chunks.sweep. */
  async delete(path: string): Promise<boolean> {
    const result = await this.db.deleteFrom('data_documents').where('path', '=', path).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('data_documents').where('system_id', '=', systemId).execute()
  }

  /** The rows `select` reads with each chunked text read back into `value`. */
  async #resolved(select: () => Promise<StoredRow[]>): Promise<DataDocumentRow[]> {
    const rows = await this.#resolvedParts(select)
    return rows.map(({ parts, ...row }) => (parts.length === 1 ? row : { ...row, value: parts.join('') }))
  }

  /**
   * The rows `select` reads, each text as its parts. A blob deleted while it was read means its
   * document was replaced meanwhile: the rows are read again.
   */
  async #resolvedParts(
    select: () => Promise<StoredRow[]>,
  ): Promise<Array<DataDocumentRow & { parts: string[] }>> {
    for (let attempt = 1; ; attempt++) {
      const rows = await select()
      const out: Array<DataDocumentRow & { parts: string[] }> = []
      let complete = true
      for (const { value_blob, value_length, ...row } of rows) {
        if (value_blob === null) {
          out.push({ ...row, parts: [row.value] })
          continue
        }
        const parts = await this.chunks.readParts({ blob: value_blob, length: Number(value_length) })
        if (parts === undefined) {
          complete = false
          break
        }
        out.push({ ...row, value: parts.length === 1 ? parts[0]! : '', parts })
      }
      if (complete) return out
      if (attempt >= READ_ATTEMPTS)
        throw new Error('data document changed while it was read, too many times in a row')
    }
  }
}
