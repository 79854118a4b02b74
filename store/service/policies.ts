/** Policies: sets of Rego modules stored under a slash path such as `systems/{id}/rules`. */
import type { Kysely, Selectable } from 'kysely'
import type { PoliciesTable, ServiceTables } from './tables.js'
import { startsWith } from './text.js'

export type PolicyRow = Selectable<PoliciesTable>

/** Reads and writes the `policies` table. */
export class PolicyRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Every policy, or those whose path starts with `prefix`, ordered by path. */
  list(prefix?: string): Promise<PolicyRow[]> {
    let query = this.db.selectFrom('policies').selectAll()
    if (prefix) query = query.where(startsWith('path', prefix))
    return query.orderBy('path').execute()
  }

  get(path: string): Promise<PolicyRow | undefined> {
    return this.db.selectFrom('policies').selectAll().where('path', '=', path).executeTakeFirst()
  }

  /** The policies that make up a system's bundle. */
  listForSystem(systemId: string): Promise<PolicyRow[]> {
    return this.db
      .selectFrom('policies')
      .selectAll()
      .where('system_id', '=', systemId)
      .orderBy('path')
      .execute()
  }

  /** Inserts or replaces the policy at `row.path`. */
  async upsert(row: PolicyRow): Promise<void> {
    const { path, created_at, created_by, created_through, ...changed } = row
    await this.db
      .insertInto('policies')
      .values(row)
      .onConflict((oc) => oc.column('path').doUpdateSet(changed))
      .execute()
  }

  async delete(path: string): Promise<boolean> {
    const result = await this.db.deleteFrom('policies').where('path', '=', path).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('policies').where('system_id', '=', systemId).execute()
  }
}
