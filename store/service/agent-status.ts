/** The latest status report of each agent (OPA's status API), keyed by the agent's `labels.id`. */
import type { Kysely, Selectable } from 'kysely'
import type { AgentStatusTable, ServiceTables } from './tables.js'

export type AgentStatusRow = Selectable<AgentStatusTable>

/** Reads and writes the `agent_status` table. */
export class AgentStatusRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Keeps only the newest report per agent. */
  async upsert(row: AgentStatusRow): Promise<void> {
    const { agent_id, ...rest } = row
    await this.db
      .insertInto('agent_status')
      .values(row)
      .onConflict((oc) => oc.column('agent_id').doUpdateSet(rest))
      .execute()
  }

  /** Reports of every agent, or of the agents of the given systems. */
  list(systemIds?: string[]): Promise<AgentStatusRow[]> {
    let query = this.db.selectFrom('agent_status').selectAll()
    if (systemIds !== undefined) {
      if (systemIds.length === 0) return Promise.resolve([])
      query = query.where('system_id', 'in', systemIds)
    }
    return query.orderBy('agent_id').execute()
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('agent_status').where('system_id', '=', systemId).execute()
  }
}
