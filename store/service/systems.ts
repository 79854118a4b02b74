/** Systems: one row per protected deployment, with its configuration as JSON text. */
import type { Kysely, Selectable, Updateable } from 'kysely'
import { AlreadyExistsError, isUniqueViolation, violatedColumn } from './errors.js'
import type { ServiceTables, SystemsTable } from './tables.js'

export type SystemRow = Selectable<SystemsTable>

/** Reads and writes the `systems` table. */
export class SystemRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Every system (optionally of one type), ordered by name. */
  list(filter: { type?: string } = {}): Promise<SystemRow[]> {
    let query = this.db.selectFrom('systems').selectAll()
    if (filter.type !== undefined) query = query.where('type', '=', filter.type)
    return query.orderBy('name').execute()
  }

  get(id: string): Promise<SystemRow | undefined> {
    return this.db.selectFrom('systems').selectAll().where('id', '=', id).executeTakeFirst()
  }

  async exists(id: string): Promise<boolean> {
    const row = await this.db.selectFrom('systems').select('id').where('id', '=', id).executeTakeFirst()
    return row !== undefined
  }

  /** @throws AlreadyExistsError naming the clash (id or name). */
  async insert(row: SystemRow): Promise<void> {
    try {
      await this.db.insertInto('systems').values(row).execute()
    } catch (err) {
      if (!isUniqueViolation(err)) throw err
      // No query here: on PostgreSQL the failed statement has aborted the surrounding transaction.
      throw new AlreadyExistsError(
        violatedColumn(err) === 'name'
          ? `a system named "${row.name}" already exists`
          : `system ${row.id} already exists`,
      )
    }
  }

  /**
   * Updates the given columns and bumps content_version; resolves to the new version, or
   * undefined when the system is gone.
   * @throws AlreadyExistsError when the new name is taken.
   */
  async update(id: string, changes: Updateable<SystemsTable>): Promise<number | undefined> {
    try {
      const row = await this.db
        .updateTable('systems')
        .set((eb) => ({ ...changes, content_version: eb('content_version', '+', 1) }))
        .where('id', '=', id)
        .returning('content_version')
        .executeTakeFirst()
      return row?.content_version
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AlreadyExistsError(`a system named "${changes.name}" already exists`)
      throw err
    }
  }

  /** Marks that the system's content changed; resolves to the new version (undefined if gone). */
  async bumpContentVersion(id: string): Promise<number | undefined> {
    const row = await this.db
      .updateTable('systems')
      .set((eb) => ({ content_version: eb('content_version', '+', 1) }))
      .where('id', '=', id)
      .returning('content_version')
      .executeTakeFirst()
    return row?.content_version
  }

  /** Records the outcome of the latest bundle build. */
  async setStatus(id: string, status: string, errors: string[] | null): Promise<void> {
    await this.db
      .updateTable('systems')
      .set({ status, status_errors: errors === null ? null : JSON.stringify(errors) })
      .where('id', '=', id)
      .execute()
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('systems').where('id', '=', id).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }
}
