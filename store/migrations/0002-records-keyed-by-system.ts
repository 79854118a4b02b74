/**
 * Migration 0002: agent status and decision de-duplication keyed by (system, id), not by a
 * global id. With one global key, an agent token of system 2 could overwrite system 1's agent
 * status (same `labels.id`) and squat a `decision_id` so that system 1's real event was dropped
 * as a duplicate (issue 17, item 6).
 *
 * The key is `(id, coalesce(system_id, ''))`: records of no system (an administrator's upload
 * without a `system-id` label) still dedupe among themselves, which a plain unique index would
 * not do since NULLs are distinct. SQLite cannot drop a constraint, so its two tables are
 * rebuilt; PostgreSQL drops the old constraints in place.
 */
import { sql } from 'kysely'
import type { SqlDialect } from '../database.js'
import type { AnyDb } from './schema.js'

async function createKeys(db: AnyDb): Promise<void> {
  await sql`create unique index decisions_decision_system on decisions (decision_id, (coalesce(system_id, '')))`.execute(
    db,
  )
  await sql`create unique index agent_status_agent_system on agent_status (agent_id, (coalesce(system_id, '')))`.execute(
    db,
  )
}

async function rebuildSqliteTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('decisions_0002')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text')
    .addColumn('path', 'text')
    .addColumn('result_kind', 'text', (c) => c.notNull())
    .addColumn('ts_us', 'bigint', (c) => c.notNull())
    .addColumn('received_us', 'bigint', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .execute()
  await sql`insert into decisions_0002 (seq, decision_id, system_id, path, result_kind, ts_us, received_us, raw)
    select seq, decision_id, system_id, path, result_kind, ts_us, received_us, raw from decisions`.execute(db)
  await db.schema.dropTable('decisions').execute()
  await sql`alter table decisions_0002 rename to decisions`.execute(db)
  await db.schema.createIndex('decisions_ts').on('decisions').columns(['ts_us', 'seq']).execute()
  await db.schema
    .createIndex('decisions_system_ts')
    .on('decisions')
    .columns(['system_id', 'ts_us', 'seq'])
    .execute()
  await db.schema.createIndex('decisions_path').on('decisions').columns(['path', 'ts_us']).execute()

  await db.schema
    .createTable('agent_status_0002')
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await sql`insert into agent_status_0002 (agent_id, system_id, status, updated_at)
    select agent_id, system_id, status, updated_at from agent_status`.execute(db)
  await db.schema.dropTable('agent_status').execute()
  await sql`alter table agent_status_0002 rename to agent_status`.execute(db)
  await db.schema.createIndex('agent_status_system_id').on('agent_status').column('system_id').execute()
}

/** Replaces the global unique keys of `decisions.decision_id` and `agent_status.agent_id`. */
export function recordsKeyedBySystemMigration(dialect: SqlDialect) {
  return {
    async up(db: AnyDb): Promise<void> {
      if (dialect === 'postgres') {
        // Kysely runs a PostgreSQL migration in a transaction; the names are PostgreSQL's defaults.
        await sql`alter table decisions drop constraint decisions_decision_id_key`.execute(db)
        await sql`alter table agent_status drop constraint agent_status_pkey`.execute(db)
        await createKeys(db)
        return
      }
      // NOTE(store): Kysely does not wrap SQLite migrations in a transaction; a rebuild cut short
      // must not leave the tables dropped, so it runs in one.
      await db.transaction().execute(async (trx) => {
        await rebuildSqliteTables(trx)
        await createKeys(trx)
      })
    },
  }
}
