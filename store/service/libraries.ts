/** Policy libraries: named sets of Rego modules that systems import (docs/libraries.md). */
import type { Kysely, Selectable } from 'kysely'
import type { LibrariesTable, ServiceTables } from './tables.js'

export type LibraryRow = Selectable<LibrariesTable>

/** Reads and writes the `libraries` table. */
export class LibraryRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Every library, ordered by id. */
  list(): Promise<LibraryRow[]> {
    return this.db.selectFrom('libraries').selectAll().orderBy('id').execute()
  }

  get(id: string): Promise<LibraryRow | undefined> {
    return this.db.selectFrom('libraries').selectAll().where('id', '=', id).executeTakeFirst()
  }

  /** Inserts or replaces the library `row.id` (its creation columns kept on replace). */
  async upsert(row: LibraryRow): Promise<void> {
    const { id, created_at, created_by, created_through, ...changed } = row
    await this.db
      .insertInto('libraries')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(changed))
      .execute()
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('libraries').where('id', '=', id).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }
}
