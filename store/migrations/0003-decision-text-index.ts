/**
 * Migration 0003: a full-text index over the decisions' event text, so a search for a rare
 * word answers from the index instead of scanning every row (issue 17, item 8).
 *
 * Text terms match substrings of the event's JSON text (`raw LIKE '%term%'`), so both indexes
 * are trigram indexes, which serve substring matches; the exact LIKE still decides, the index
 * only narrows the rows it is checked on:
 * - SQLite: an FTS5 table with the trigram tokenizer over `decisions.raw` (external content,
 *   `detail=none` to keep it small: only which rows hold a trigram is recorded). New rows are
 *   indexed in batches after they are stored; `decisions_fts_progress` says how far.
 * - PostgreSQL: a GIN `pg_trgm` index on `raw`, which serves `ILIKE '%term%'` directly. The
 *   extension is created when the role may (it is a trusted extension since PostgreSQL 13); when
 *   it cannot be, the migration still succeeds and searches scan (docs/service.md says how to add
 *   the index by hand).
 */
import { sql } from 'kysely'
import type { SqlDialect } from '../database.js'
import type { AnyDb } from './schema.js'

async function sqliteUp(db: AnyDb): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`create virtual table decisions_fts using fts5(
      raw, content = 'decisions', content_rowid = 'seq', tokenize = 'trigram', detail = 'none')`.execute(trx)
    // NOTE(store): indexing a row costs tens of microseconds (a trigram per character), so new
    // rows are indexed after the fact, in batches (DecisionRepository.indexText), not by a trigger
    // in the intake transaction. Rows past `indexed_through` are checked without the index.
    await sql`create table decisions_fts_progress (indexed_through integer not null)`.execute(trx)
    await sql`insert into decisions_fts (decisions_fts) values ('rebuild')`.execute(trx)
    await sql`insert into decisions_fts_progress (indexed_through)
      select coalesce(max(seq), 0) from decisions`.execute(trx)
    // A row leaving the table leaves the index too, if it was indexed (an external-content FTS
    // table must be told the exact text it indexed).
    await sql`create trigger decisions_fts_delete after delete on decisions
      when old.seq <= (select indexed_through from decisions_fts_progress) begin
      insert into decisions_fts (decisions_fts, rowid, raw) values ('delete', old.seq, old.raw);
    end`.execute(trx)
    await sql`create trigger decisions_fts_update after update of raw on decisions
      when old.seq <= (select indexed_through from decisions_fts_progress) begin
      insert into decisions_fts (decisions_fts, rowid, raw) values ('delete', old.seq, old.raw);
      insert into decisions_fts (rowid, raw) values (new.seq, new.raw);
    end`.execute(trx)
  })
}

/** The schema pg_trgm lives in, or undefined when it is not installed. */
export async function trigramSchema(db: AnyDb): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)
  return rows[0]?.schema
}

async function postgresUp(db: AnyDb): Promise<void> {
  let schema = await trigramSchema(db)
  if (schema === undefined) {
    // NOTE(store): a failed statement aborts PostgreSQL's transaction, and the migration runs in
    // one; the savepoint lets a refused CREATE EXTENSION leave the rest of the migration intact.
    // In `public`, not in the current schema: a schema dropped with CASCADE would take it along.
    await sql`savepoint create_pg_trgm`.execute(db)
    try {
      await sql`create extension if not exists pg_trgm schema public`.execute(db)
      await sql`release savepoint create_pg_trgm`.execute(db)
    } catch {
      await sql`rollback to savepoint create_pg_trgm`.execute(db)
    }
    schema = await trigramSchema(db)
  }
  if (schema === undefined) return
  await sql`create index decisions_raw_trgm on decisions using gin (raw ${sql.id(schema, 'gin_trgm_ops')})`.execute(
    db,
  )
}

/** Creates the full-text index of decision event text. */
export function decisionTextIndexMigration(dialect: SqlDialect) {
  return {
    async up(db: AnyDb): Promise<void> {
      await (dialect === 'postgres' ? postgresUp(db) : sqliteUp(db))
    },
  }
}
