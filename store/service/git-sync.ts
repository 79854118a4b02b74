/** Sync state of systems built from git: one row per git-backed system (see tables.ts GitSyncTable). */
import type { Kysely, Selectable } from 'kysely'
import type { GitSyncTable, ServiceTables } from './tables.js'

export type GitSyncRow = Selectable<GitSyncTable>

/** Reads and writes the `git_sync` table. */
export class GitSyncRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  get(systemId: string): Promise<GitSyncRow | undefined> {
    return this.db.selectFrom('git_sync').selectAll().where('system_id', '=', systemId).executeTakeFirst()
  }

  /** Inserts or replaces the row of `row.system_id`. */
  async put(row: GitSyncRow): Promise<void> {
    const { system_id, ...rest } = row
    await this.db
      .insertInto('git_sync')
      .values(row)
      .onConflict((oc) => oc.column('system_id').doUpdateSet(rest))
      .execute()
  }

  async delete(systemId: string): Promise<void> {
    await this.db.deleteFrom('git_sync').where('system_id', '=', systemId).execute()
  }
}
