/**
 * How a decision search runs: under a time budget, in chunks, and from the full-text index when
 * a term is rare (issue 17, item 8).
 *
 * Filters on system, time and result kind alone are answered from indexes in one query. A search
 * with row checks (text, field, path or decision-id terms, result kinds) walks the log in its
 * order a chunk of `SCAN_CHUNK_ROWS` rows at a time: each chunk is one short query, the event
 * loop is free between chunks, and when the budget is spent the search stops with what it found
 * and where it stopped (the caller hands out a cursor there). When the first chunk did not fill
 * the page and a term can use the full-text index (a positive text term of three characters or
 * more, see 0003-decision-text-index.ts), the rest is one query that reads only the rows the
 * index names: milliseconds for a rare term however large the log. A frequent term fills the
 * page from the first chunk and never asks the index for its long row list.
 */
import {
  type Expression,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely'
import type { SqlDialect } from '../database.js'
import type { DecisionsTable, ServiceTables } from './tables.js'
import { escapeLike } from './text.js'

/** Where a page ends: the last decision's time and sequence number. */
export interface DecisionPosition {
  tsUs: number
  seq: number
}

/**
 * One condition of a search (see docs/service.md for the query syntax that produces these).
 * - `text`: the words appear anywhere in the event's JSON text (case-insensitive for ASCII).
 * - `field`: the JSON value at `pointer` (e.g. ['input', 'user']) equals `value` as text.
 * - `decision_id` / `path`: exact match on the indexed columns; `path` with `prefix` matches below.
 */
export type SearchTerm =
  | { kind: 'text'; value: string; negate?: boolean }
  | { kind: 'field'; pointer: string[]; value: string; negate?: boolean }
  | { kind: 'decision_id'; value: string; negate?: boolean }
  | { kind: 'path'; value: string; prefix: boolean; negate?: boolean }

/** Filters of a decision search. All given filters must hold. */
export interface DecisionQuery {
  systemIds?: string[]
  startUs?: number
  endUs?: number
  /** Undefined means every kind. */
  resultKinds?: string[]
  terms?: SearchTerm[]
  order: 'ASC' | 'DESC'
  limit: number
  /** Continue after this position (exclusive), in the query's order. */
  after?: DecisionPosition
}

/** A stored row as the database returns it. */
export type DecisionRow = Selectable<DecisionsTable>

/** What a search found, and where it stopped when its time budget ran out first. */
export interface DecisionScan {
  rows: DecisionRow[]
  /**
   * Set when the budget ran out before the page was full: every row up to this position (in
   * the query's order) was checked. Continue after it for the rest.
   */
  stoppedAt?: DecisionPosition
}

/** Rows one chunk of a scan checks: small enough that a chunk takes milliseconds. */
export const SCAN_CHUNK_ROWS = 4096

// Most rows SQLite's text index may name, or either database may have unindexed, for one search;
// past it, the chunked scan goes on.
const INDEX_ROW_CAP = 20_000

// Shortest text the trigram indexes can look up (one trigram).
const MIN_INDEXED_CHARS = 3

type Db = Kysely<ServiceTables>
type Select = SelectQueryBuilder<ServiceTables, 'decisions', DecisionRow>

/** Runs decision searches on one connection (see the file comment). */
export class DecisionScanner {
  private trigramIndex: Promise<boolean> | undefined
  /** PostgreSQL: every `seq` up to this belongs to a finished insert (see indexPostgres). */
  private committedThrough = 0

  constructor(
    private readonly db: Db,
    private readonly dialect: SqlDialect,
    /** Most rows the text index may name, or leave unindexed, for one search (tests lower it). */
    private readonly indexRowCap = INDEX_ROW_CAP,
  ) {}

  /** Decisions matching `query` (at most `query.limit`), within `budgetMs` of wall-clock time. */
  async search(query: DecisionQuery, budgetMs: number): Promise<DecisionScan> {
    if (query.systemIds?.length === 0 || query.resultKinds?.length === 0) return { rows: [] }
    const terms = query.terms ?? []
    if (terms.length === 0 && query.resultKinds === undefined) {
      return { rows: await this.filtered(this.db, query, true).limit(query.limit).execute() }
    }
    const deadline = performance.now() + budgetMs
    let indexed = indexedTexts(terms)
    const rows: DecisionRow[] = []
    let after = query.after
    for (let chunk = 0; ; chunk++) {
      const page = { ...query, after, limit: query.limit - rows.length }
      if (chunk > 0 && indexed.length > 0 && (await this.canUseIndex())) {
        const found = await this.fromIndex(page, indexed, deadline - performance.now())
        if (found === 'timeout') return { rows, stoppedAt: after }
        if (found !== 'not-selective') {
          rows.push(...found)
          return { rows }
        }
        indexed = [] // the index names too many rows to help: go on scanning, within the budget
      }
      // Checked before another chunk, not before the index: its one query is the quick way on.
      if (chunk > 0 && performance.now() >= deadline) return { rows, stoppedAt: after }
      const end = await this.chunkEnd(page)
      rows.push(...(await this.scanChunk(page, end)))
      if (rows.length >= query.limit || end === undefined) return { rows }
      after = end
      // Let requests waiting on the event loop in (better-sqlite3 blocks it while a query runs).
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** The position of the chunk's last row, or undefined when fewer rows remain. */
  private async chunkEnd(query: DecisionQuery): Promise<DecisionPosition | undefined> {
    const row = await this.filtered(this.db, { ...query, terms: [], resultKinds: undefined }, false)
      .clearSelect()
      .select(['ts_us', 'seq'])
      .limit(1)
      .offset(SCAN_CHUNK_ROWS - 1)
      .executeTakeFirst()
    return row && { tsUs: Number(row.ts_us), seq: Number(row.seq) }
  }

  /** The matching rows from `query.after` (exclusive) through `end` (inclusive; the log's end when undefined). */
  private async scanChunk(query: DecisionQuery, end: DecisionPosition | undefined): Promise<DecisionRow[]> {
    const run = (db: Db) => {
      let q = this.filtered(db, query, true)
      if (end) q = q.where(notPast(end, query.order === 'DESC'))
      return q.limit(query.limit).execute()
    }
    if (this.dialect !== 'postgres') return run(this.db)
    return this.db.transaction().execute(async (trx) => {
      // NOTE(store): PostgreSQL cannot estimate how many rows a LIKE or JSON term keeps, and on a
      // guess of "few" it reads the chunk in whatever order and sorts it; reading the time index in
      // order and stopping at the limit is the plan a paged scan wants.
      await sql`set local enable_sort = off`.execute(trx)
      return run(trx)
    })
  }

  /**
   * The matching rows among those the full-text index names for `texts`. `timeout` when
   * PostgreSQL gave up at the budget; `not-selective` when SQLite's index names more than
   * `indexRowCap` rows (every trigram common, the text itself rare) or, on either database, more
   * than `indexRowCap` rows are not indexed yet, which would make one long query that cannot be interrupted: the chunked scan
   * goes on instead.
   */
  private async fromIndex(
    query: DecisionQuery,
    texts: string[],
    budgetMs: number,
  ): Promise<DecisionRow[] | 'timeout' | 'not-selective'> {
    if (this.dialect !== 'postgres') {
      const match = texts.map(trigramQuery).join(' AND ')
      const { rows: ids } = await sql<{ seq: number }>`select rowid as seq from decisions_fts
        where decisions_fts match ${match} limit ${this.indexRowCap + 1}`.execute(this.db)
      if (ids.length > this.indexRowCap) return 'not-selective'
      // So does a long tail of rows not indexed yet (the indexer behind a burst of intake).
      const { rows: tail } = await sql<{ n: number | null }>`select
        (select max(seq) from decisions) - indexed_through as n from decisions_fts_progress`.execute(this.db)
      if (ids.length + (tail[0]?.n ?? 0) > this.indexRowCap) return 'not-selective'
      const list = JSON.stringify(ids.map((r) => r.seq))
      // Rows not indexed yet (stored since the last indexText batch) are checked directly.
      return this.filtered(this.db, query, true, true)
        .where(
          sql<SqlBool>`seq in (select value from json_each(${list})
            union all select seq from decisions where seq > (select indexed_through from decisions_fts_progress))`,
        )
        .limit(query.limit)
        .execute()
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        // 0 turns the timeout off (an unbudgeted search); a spent budget still gets a short try.
        const ms = Number.isFinite(budgetMs) ? Math.max(50, Math.ceil(budgetMs)) : 0
        await sql.raw(`set local statement_timeout = ${ms}`).execute(trx)
        // A long tail not indexed yet (the indexer behind a burst of intake) would be one long
        // scan that ends at the timeout with nothing: the chunked scan goes on instead.
        const { rows: tail } = await sql<{ n: string | number | null }>`select
          (select max(seq) from decisions) - indexed_through as n from decision_texts_progress`.execute(trx)
        if (Number(tail[0]?.n ?? 0) > this.indexRowCap) return 'not-selective' as const
        const hits = texts.map((t) => sql<SqlBool>`raw ilike ${`%${escapeLike(t)}%`} escape '\\'`)
        // NOTE(store): `= any(array(...))` makes the hits one value computed first, so PostgreSQL
        // looks the few rows up by key instead of walking the time index and testing each row.
        return this.filtered(trx, query, true)
          .where(
            sql<SqlBool>`seq = any(array(select seq from decision_texts where ${sql.join(hits, sql` and `)}
              union all select seq from decisions where seq > (select indexed_through from decision_texts_progress)))`,
          )
          .limit(query.limit)
          .execute()
      })
    } catch (err) {
      if ((err as { code?: unknown }).code === '57014') return 'timeout' // query_canceled
      throw err
    }
  }

  /**
   * Adds up to `maxRows` stored rows not indexed yet to the full-text index, oldest first;
   * resolves to how many (0 when it is current, or on PostgreSQL without pg_trgm).
   */
  async indexText(maxRows: number): Promise<number> {
    if (this.dialect === 'postgres') return (await this.canUseIndex()) ? this.indexPostgres(maxRows) : 0
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ through: number; n: number }>`select max(seq) as through, count(*) as n
        from (select seq from decisions where seq > (select indexed_through from decisions_fts_progress)
          order by seq limit ${maxRows})`.execute(trx)
      const { through, n } = rows[0] ?? { through: null, n: 0 }
      if (!n || through === null) return 0
      await sql`insert into decisions_fts (rowid, raw) select seq, raw from decisions
        where seq > (select indexed_through from decisions_fts_progress) and seq <= ${through}`.execute(trx)
      await sql`update decisions_fts_progress set indexed_through = ${through}`.execute(trx)
      return Number(n)
    })
  }

  /**
   * PostgreSQL (migration 0012): copies committed rows into `decision_texts`, whose GIN index
   * PostgreSQL maintains in this transaction, not in the intake's.
   *
   * NOTE(store): `seq` comes from a sequence, and transactions commit in any order: row 11 may be
   * visible while row 10 is still being inserted. Moving the progress mark past 10 then would
   * leave row 10 out of both the index and the unindexed tail for good. So the mark moves only
   * up to `committedThrough`, a `seq` below which no insert is open (see committedFrontier).
   */
  private async indexPostgres(maxRows: number): Promise<number> {
    const progress = async (db: Db) => {
      const { rows } = await sql<{ at: string | number }>`select indexed_through as at
        from decision_texts_progress`.execute(db)
      return Number(rows[0]?.at ?? 0)
    }
    const at = await progress(this.db)
    if (at >= this.committedThrough) {
      // Nothing new at all (an idle log): no lock taken, intake never held back for nothing.
      const { rows } = await sql<{ last: string | number | null }>`select max(seq) as last
        from decisions`.execute(this.db)
      if (Number(rows[0]?.last ?? 0) <= at) return 0
      this.committedThrough = await this.committedFrontier()
    }
    const frontier = this.committedThrough
    return this.db.transaction().execute(async (trx) => {
      // Locked: indexers of several replicas take turns.
      await sql`select 1 from decision_texts_progress for update`.execute(trx)
      const from = await progress(trx)
      if (from >= frontier) return 0
      const { rows } = await sql<{ through: string | number | null; n: string | number }>`select
        max(seq) as through, count(*) as n from (select seq from decisions
          where seq > ${from} and seq <= ${frontier} order by seq limit ${maxRows}) batch`.execute(trx)
      const n = Number(rows[0]?.n ?? 0)
      // No row left up to the frontier (sequence numbers of rolled-back inserts): skip the gap.
      const through = n > 0 ? Number(rows[0]!.through) : frontier
      if (n > 0)
        await sql`insert into decision_texts (seq, raw) select seq, raw from decisions
          where seq > ${from} and seq <= ${through} on conflict do nothing`.execute(trx)
      await sql`update decision_texts_progress set indexed_through = ${through}`.execute(trx)
      return n
    })
  }

  /**
   * The highest `seq` with no insert below it still open: the SHARE lock waits for the open
   * inserting transactions and holds new ones back until the largest `seq` is read (a
   * millisecond), so every `seq` up to it belongs to a committed or rolled-back insert.
   */
  private async committedFrontier(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = 2000`.execute(trx)
      await sql`lock table decisions in share mode`.execute(trx)
      const { rows } = await sql<{
        at: string | number | null
      }>`select max(seq) as at from decisions`.execute(trx)
      return Number(rows[0]?.at ?? 0)
    })
  }

  /** SQLite always has the FTS table (migration 0003); PostgreSQL has the index when pg_trgm could be installed (0012). */
  private canUseIndex(): Promise<boolean> {
    if (this.dialect !== 'postgres') return Promise.resolve(true)
    this.trigramIndex ??= sql<{ n: number }>`select 1 as n from pg_indexes
      where indexname = 'decision_texts_raw_trgm' and schemaname = current_schema()`
      .execute(this.db)
      .then((r) => r.rows.length > 0)
    return this.trigramIndex
  }

  /**
   * The query with every filter, after `query.after`, in order; row checks only when `withTerms`.
   * `rowList`: the query is driven by a list of row ids (SQLite's full-text index), so the
   * filters are written to stay off the other indexes (`+column`), or SQLite's planner walks a
   * system's whole time index instead of looking up the few rows the text index names.
   */
  private filtered(db: Db, query: DecisionQuery, withTerms: boolean, rowList = false): Select {
    const desc = query.order === 'DESC'
    const col = <T extends string | number>(name: 'system_id' | 'ts_us' | 'result_kind') =>
      rowList ? sql<T>`${sql.raw(`+${name}`)}` : sql.ref<T>(name)
    let q: Select = db.selectFrom('decisions').selectAll()
    const systems = query.systemIds
    if (systems !== undefined)
      q =
        systems.length === 1
          ? q.where(col<string>('system_id'), '=', systems[0]!)
          : q.where(col<string>('system_id'), 'in', systems)
    if (query.startUs !== undefined) q = q.where(col<number>('ts_us'), '>=', query.startUs)
    if (query.endUs !== undefined) q = q.where(col<number>('ts_us'), '<=', query.endUs)
    if (withTerms) {
      if (query.resultKinds !== undefined) q = q.where(col<string>('result_kind'), 'in', query.resultKinds)
      for (const term of query.terms ?? []) {
        const condition = this.termCondition(term)
        q = q.where(term.negate ? sql<SqlBool>`not (${condition})` : condition)
      }
    }
    if (query.after) q = q.where(pastPosition(query.after, desc, rowList ? '+' : ''))
    const direction = desc ? 'desc' : 'asc'
    return q.orderBy('ts_us', direction).orderBy('seq', direction)
  }

  private termCondition(term: SearchTerm): Expression<SqlBool> {
    switch (term.kind) {
      case 'decision_id':
        return sql<SqlBool>`decision_id = ${term.value}`
      case 'path':
        return term.prefix
          ? sql<SqlBool>`substr(path, 1, ${[...term.value].length}) = ${term.value}`
          : sql<SqlBool>`path = ${term.value}`
      case 'text': {
        const pattern = `%${escapeLike(term.value)}%`
        return this.dialect === 'postgres'
          ? sql<SqlBool>`raw ilike ${pattern} escape '\\'`
          : sql<SqlBool>`raw like ${pattern} escape '\\'`
      }
      case 'field':
        return this.fieldEquals(term.pointer, term.value)
    }
  }

  // The JSON value at `pointer` rendered as text: strings without quotes, true/false, numbers.
  private fieldEquals(pointer: string[], value: string): Expression<SqlBool> {
    if (this.dialect === 'postgres') {
      return sql<SqlBool>`(raw::json #>> ${pointer}::text[]) = ${value}`
    }
    const path = `$${pointer.map((p) => `."${p.replace(/["\\]/g, '')}"`).join('')}`
    return sql<SqlBool>`(case json_type(raw, ${path}) when 'true' then 'true' when 'false' then 'false' else cast(json_extract(raw, ${path}) as text) end) = ${value}`
  }
}

// NOTE(store): each bound is written as a range on ts_us plus the tie-break on seq, so that the
// planner reads only that range of the time index; written as one OR, SQLite walks the index to
// its end and a chunk costs as much as a full scan.

/** Rows strictly past `position` in the order (`desc`: older); `plus` keeps SQLite off indexes. */
function pastPosition(position: DecisionPosition, desc: boolean, plus: '' | '+' = ''): Expression<SqlBool> {
  const { tsUs, seq } = position
  const ts = sql.raw(`${plus}ts_us`)
  const sq = sql.raw(`${plus}seq`)
  return desc
    ? sql<SqlBool>`(${ts} <= ${tsUs} and (${ts} < ${tsUs} or ${sq} < ${seq}))`
    : sql<SqlBool>`(${ts} >= ${tsUs} and (${ts} > ${tsUs} or ${sq} > ${seq}))`
}

/** Rows up to and including `position` in the order. */
function notPast(position: DecisionPosition, desc: boolean): Expression<SqlBool> {
  const { tsUs, seq } = position
  return desc
    ? sql<SqlBool>`(ts_us >= ${tsUs} and (ts_us > ${tsUs} or seq >= ${seq}))`
    : sql<SqlBool>`(ts_us <= ${tsUs} and (ts_us < ${tsUs} or seq <= ${seq}))`
}

/**
 * The texts a matching event's JSON text must contain, from terms the trigram index can serve:
 * positive text terms, and positive field terms whose value appears verbatim in the JSON text
 * of any match (no characters JSON escapes, and not a number, which SQLite may render in another
 * form than it was written).
 */
export function indexedTexts(terms: SearchTerm[]): string[] {
  const texts: string[] = []
  for (const term of terms) {
    if (term.negate || [...term.value].length < MIN_INDEXED_CHARS) continue
    if (term.kind === 'text') texts.push(term.value)
    else if (term.kind === 'field' && !/["\\\p{Cc}]/u.test(term.value) && !/^[-+0-9.eE]+$/.test(term.value))
      texts.push(term.value)
  }
  return texts
}

/**
 * An FTS5 query for rows whose text holds every trigram of `text` (a superset of the rows that
 * contain `text`; the LIKE term decides). Each trigram is one quoted token: with `detail=none` the
 * index keeps no positions, so phrase queries are not available.
 */
function trigramQuery(text: string): string {
  const chars = [...text]
  const grams = new Set<string>()
  for (let i = 0; i + MIN_INDEXED_CHARS <= chars.length; i++)
    grams.add(chars.slice(i, i + MIN_INDEXED_CHARS).join(''))
  return [...grams].map((g) => `"${g.replaceAll('"', '""')}"`).join(' AND ')
}
