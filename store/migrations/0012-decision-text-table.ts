/**
 * Migration 0012: PostgreSQL's text index moves out of the intake transaction (issue 25).
 *
 * Migration 0003 put a GIN `pg_trgm` index on `decisions.raw`, kept by PostgreSQL inside every
 * insert: a trigram per character of a ~600-byte event made each row cost so much that raw
 * inserts of decisions reached only 2-4k rows/s (docs/performance.md, "Service decision-log
 * ingest"). Now the index lives on `decision_texts` (a copy of the text keyed by `seq`), which
 * the service fills in the background in batches, after the rows are committed, as SQLite's
 * FTS table is filled (service/decision-text-indexer.ts). `decision_texts_progress` says how far;
 * searches check rows past it directly, so they stay exact.
 *
 * The copy doubles the space the event text takes on PostgreSQL: the price of an index that a
 * row joins after its commit (an index on `decisions` itself is maintained in the insert).
 *
 * When pg_trgm is missing (0003 could not create it) the tables are made without the index and
 * stay empty: searches scan, as before. docs/service.md says how to add the index by hand; the
 * background indexer then fills the table from the first decision.
 *
 * SQLite: nothing to do (its index never was in the intake transaction).
 */
import { sql } from 'kysely'
import type { SqlDialect } from '../database.js'
import { trigramSchema } from './0003-decision-text-index.js'
import type { AnyDb } from './schema.js'

async function postgresUp(db: AnyDb): Promise<void> {
  // A replica still running the previous version may be storing decisions: the lock (held to the
  // migration's commit) waits for its open inserts and holds new ones, so every row up to the
  // progress mark below is committed and copied.
  await sql`lock table decisions in share mode`.execute(db)
  await sql`drop index if exists decisions_raw_trgm`.execute(db)
  // NOTE(store): nothing updates `decisions.raw`; a deleted decision takes its copy along.
  await sql`create table decision_texts (
    seq bigint primary key references decisions (seq) on delete cascade,
    raw text not null)`.execute(db)
  await sql`create table decision_texts_progress (indexed_through bigint not null)`.execute(db)
  const schema = await trigramSchema(db)
  if (schema === undefined) {
    await sql`insert into decision_texts_progress (indexed_through) values (0)`.execute(db)
    return
  }
  // The rows already stored are copied before the index is built: one build beats row-by-row
  // insertion into a GIN index.
  await sql`insert into decision_texts (seq, raw) select seq, raw from decisions`.execute(db)
  await sql`insert into decision_texts_progress (indexed_through)
    select coalesce(max(seq), 0) from decisions`.execute(db)
  await sql`create index decision_texts_raw_trgm on decision_texts
    using gin (raw ${sql.id(schema, 'gin_trgm_ops')})`.execute(db)
}

/** Moves PostgreSQL's decision text index to a table filled after intake (see above). */
export function decisionTextTableMigration(dialect: SqlDialect) {
  return {
    async up(db: AnyDb): Promise<void> {
      if (dialect === 'postgres') await postgresUp(db)
    },
  }
}
