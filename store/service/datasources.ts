/**
 * Datasources: configuration rows plus the scheduler's state. Claiming a run is one conditional
 * UPDATE (the lease is free, expired, or already ours), so on PostgreSQL two replicas never run
 * one datasource at once; on SQLite the same statement keeps a single process honest.
 */
import type { Kysely, Selectable } from 'kysely'
import { AlreadyExistsError, isUniqueViolation } from './errors.js'
import type { DatasourcesTable, ServiceTables } from './tables.js'

export type DatasourceRow = Selectable<DatasourcesTable>

/** What a finished run writes back (and the lease it releases). */
export interface DatasourceRunOutcome {
  status: string
  failures: number
  next_run_at: string
}

/** Reads and writes the `datasources` table. */
export class DatasourceRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Every datasource, or those of one system, ordered by id. */
  list(systemId?: string): Promise<DatasourceRow[]> {
    let query = this.db.selectFrom('datasources').selectAll()
    if (systemId !== undefined) query = query.where('system_id', '=', systemId)
    return query.orderBy('id').execute()
  }

  get(id: string): Promise<DatasourceRow | undefined> {
    return this.db.selectFrom('datasources').selectAll().where('id', '=', id).executeTakeFirst()
  }

  /** @throws AlreadyExistsError when the id is taken. */
  async insert(row: DatasourceRow): Promise<void> {
    try {
      await this.db.insertInto('datasources').values(row).execute()
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExistsError(`datasource ${row.id} already exists`)
      throw err
    }
  }

  /** Replaces the configuration columns (not the lease, not the creation audit). */
  async replaceConfig(
    row: Pick<
      DatasourceRow,
      | 'id'
      | 'category'
      | 'config'
      | 'scheduled'
      | 'executed'
      | 'next_run_at'
      | 'failures'
      | 'last_modified_at'
      | 'last_modified_by'
      | 'last_modified_through'
    >,
  ): Promise<boolean> {
    const { id, ...changed } = row
    const result = await this.db
      .updateTable('datasources')
      .set(changed)
      .where('id', '=', id)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('datasources').where('id', '=', id).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('datasources').where('system_id', '=', systemId).execute()
  }

  /** Ids of scheduled datasources due at `now` whose lease is free, earliest first. */
  async due(now: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('datasources')
      .select('id')
      .where('scheduled', '=', 1)
      .where('next_run_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_run_at')
      .limit(limit)
      .execute()
    return rows.map((r) => r.id)
  }

  /** When the earliest scheduled datasource is due, if any. */
  async nextDue(): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('datasources')
      .select('next_run_at')
      .where('scheduled', '=', 1)
      .orderBy('next_run_at')
      .limit(1)
      .executeTakeFirst()
    return row?.next_run_at
  }

  /**
   * Takes the lease of `id` for `owner` until `until` when it is free, expired or already held
   * by `owner`; resolves to false when another owner holds it (or the row is gone).
   */
  async claim(id: string, owner: string, until: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('datasources')
      .set({ lease_owner: owner, lease_until: until })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]),
      )
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Sets the status while `owner` holds the lease (a run in progress). */
  async setStatusIfOwner(id: string, owner: string, status: string): Promise<boolean> {
    const result = await this.db
      .updateTable('datasources')
      .set({ status })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Sets the status of a datasource no scheduler runs (a `rest` push). */
  async setStatus(id: string, status: string): Promise<boolean> {
    const result = await this.db
      .updateTable('datasources')
      .set({ status })
      .where('id', '=', id)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /**
   * Records a finished run and releases the lease, if `owner` still holds it; resolves to false
   * when the lease was lost (expired and taken, or the datasource deleted).
   */
  async finish(id: string, owner: string, outcome: DatasourceRunOutcome): Promise<boolean> {
    const result = await this.db
      .updateTable('datasources')
      .set({ ...outcome, lease_owner: null, lease_until: null })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Releases every lease (a SQLite file has one process: leases left by a crash are stale). */
  async releaseAllLeases(): Promise<void> {
    await this.db
      .updateTable('datasources')
      .set({ lease_owner: null, lease_until: null })
      .where('lease_owner', 'is not', null)
      .execute()
  }
}
