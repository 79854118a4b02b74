/**
 * The latest status report of each agent (OPA's status API), keyed by the agent's system and its
 * `labels.id`: agent ids are chosen by agents, so two systems may well use the same one, and one
 * system's agent must never overwrite another's report (migration 0002).
 */
import { type Kysely, type Selectable, sql } from 'kysely'
import type { AgentStatusTable, ServiceTables } from './tables.js'

export type AgentStatusRow = Selectable<AgentStatusTable>

/** Reads and writes the `agent_status` table. */
export class AgentStatusRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Keeps only the newest report per (system, agent). */
  async upsert(row: AgentStatusRow): Promise<void> {
    const { status, updated_at } = row
    await this.db
      .insertInto('agent_status')
      .values(row)
      // The target names the unique index agent_status_agent_system (no system counts as '').
      .onConflict((oc) =>
        oc.expression(sql`agent_id, (coalesce(system_id, ''))`).doUpdateSet({ status, updated_at }),
      )
      .execute()
  }

  /** Reports of every agent, or of the agents of the given systems. */
  list(systemIds?: string[]): Promise<AgentStatusRow[]> {
    let query = this.db.selectFrom('agent_status').selectAll()
    if (systemIds !== undefined) {
      if (systemIds.length === 0) return Promise.resolve([])
      query = query.where('system_id', 'in', systemIds)
    }
    return query.orderBy('agent_id').orderBy('system_id').execute()
  }

  async deleteForSystem(systemId: string): Promise<void> {
    await this.db.deleteFrom('agent_status').where('system_id', '=', systemId).execute()
  }
}
