/**
 * The activity log (`activity` table): one row per management-API request, appended before the
 * response is sent, searched by time, class, request id, outcome and text, paged by a (time,
 * sequence) position, and trimmed by the retention job (by age and by row count).
 */
import { type Expression, type Kysely, type Selectable, type SqlBool, sql } from 'kysely'
import type { SqlDialect } from '../database.js'
import type { ActivityTable, ServiceTables } from './tables.js'
import { escapeLike } from './text.js'

/** One request to record; `record` is the `ActivityData` JSON text. */
export interface NewActivity {
  requestId: string
  tsUs: number
  activityClass: string
  method: string
  path: string
  requestedBy: string
  statusCode: number
  outcome: ActivityOutcome
  record: string
}

/** How a request ended, for the v2 `outcome` filter. */
export type ActivityOutcome = 'allowed' | 'denied' | 'error'

/** A stored record with its position in the log. */
export interface StoredActivity extends NewActivity {
  seq: number
}

/** A place in the log's (time, sequence) order: where a page ended. */
export interface ActivityPosition {
  tsUs: number
  seq: number
}

/** What a search asks for; every filter is optional. */
export interface ActivityQuery {
  order: 'ASC' | 'DESC'
  limit: number
  activityClass?: string
  /** Inclusive bounds on the request time, µs. */
  startUs?: number
  endUs?: number
  requestId?: string
  outcome?: ActivityOutcome
  /** Terms that must each appear in the record's text (case-insensitive). */
  terms?: string[]
  /** Continue strictly after this position (in `order`). */
  after?: ActivityPosition
}

type ActivityRow = Selectable<ActivityTable>

/** Rows a text search checks per statement (see searchWithin). */
export const ACTIVITY_SCAN_CHUNK_ROWS = 5000

// Keeps one INSERT's bound parameters well below SQLite's and PostgreSQL's limits.
const INSERT_CHUNK_ROWS = 500

/** Reads and writes the `activity` table. */
export class ActivityRepository {
  constructor(
    private readonly db: Kysely<ServiceTables>,
    private readonly dialect: SqlDialect,
  ) {}

  /**
   * Appends one record (committed when this resolves, unless inside a transaction); resolves to
   * its sequence number, which `complete` takes.
   */
  async append(entry: NewActivity): Promise<number> {
    const row = await this.db
      .insertInto('activity')
      .values(toRow(entry))
      .returning('seq')
      .executeTakeFirstOrThrow()
    return Number(row.seq)
  }

  /**
   * Replaces what record `seq` says about the request's outcome (status, outcome, class and the
   * record itself), keeping its place in the log: a record appended inside a change's
   * transaction, before the response existed, is completed once the response is known.
   * Resolves to false when there is no such record (retention removed it meanwhile).
   */
  async complete(seq: number, entry: NewActivity): Promise<boolean> {
    const result = await this.db
      .updateTable('activity')
      .set({
        class: entry.activityClass,
        status_code: entry.statusCode,
        outcome: entry.outcome,
        record: entry.record,
      })
      .where('seq', '=', seq)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Appends many records in one transaction (seeding: benchmarks, imports). */
  async appendMany(entries: NewActivity[]): Promise<void> {
    if (entries.length === 0) return
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < entries.length; i += INSERT_CHUNK_ROWS) {
        await trx
          .insertInto('activity')
          .values(entries.slice(i, i + INSERT_CHUNK_ROWS).map(toRow))
          .execute()
      }
    })
  }

  /** The newest record of a request id (a client may reuse an id; the last one wins). */
  async get(requestId: string): Promise<StoredActivity | undefined> {
    // NOTE(store): no ORDER BY here: with one, PostgreSQL may walk the primary key backwards
    // looking for the id instead of using the request_id index. An id has very few rows.
    const rows = await this.db
      .selectFrom('activity')
      .selectAll()
      .where('request_id', '=', requestId)
      .limit(1000)
      .execute()
    const newest = rows.reduce<ActivityRow | undefined>(
      (a, r) => (a && Number(a.seq) > Number(r.seq) ? a : r),
      undefined,
    )
    return newest && toStored(newest)
  }

  /** Records matching `query`, at most `query.limit`, in its order, however long it takes. */
  async search(query: ActivityQuery): Promise<StoredActivity[]> {
    return (await this.searchWithin(query, Number.POSITIVE_INFINITY)).records
  }

  /**
   * Records matching `query`, at most `query.limit`, in its order, searched for about `budgetMs`
   * at most. Text terms have no index, so a search with terms reads the log in chunks of
   * ACTIVITY_SCAN_CHUNK_ROWS (by the index, in order) and checks the terms within each chunk; when the
   * budget runs out before the page is full, `stoppedAt` says how far it checked, and a search
   * after it finds the rest. Searches without terms answer from an index in one statement.
   */
  async searchWithin(
    query: ActivityQuery,
    budgetMs: number,
  ): Promise<{ records: StoredActivity[]; stoppedAt?: ActivityPosition }> {
    const terms = query.terms ?? []
    if (terms.length === 0) return { records: (await this.page(query, undefined, query.limit)).map(toStored) }
    const desc = query.order === 'DESC'
    const deadline = performance.now() + budgetMs
    const records: StoredActivity[] = []
    let after = query.after
    // Bounded: each chunk moves `after` forward by ACTIVITY_SCAN_CHUNK_ROWS rows, or ends the scan.
    for (;;) {
      const boundary = await this.filtered({ ...query, terms: [] }, after)
        .select(['ts_us', 'seq'])
        .orderBy('ts_us', desc ? 'desc' : 'asc')
        .orderBy('seq', desc ? 'desc' : 'asc')
        .offset(ACTIVITY_SCAN_CHUNK_ROWS - 1)
        .limit(1)
        .executeTakeFirst()
      const end = boundary && { tsUs: Number(boundary.ts_us), seq: Number(boundary.seq) }
      const rows = await this.page(query, after, query.limit - records.length, end)
      records.push(...rows.map(toStored))
      if (records.length >= query.limit || end === undefined) return { records }
      after = end
      if (performance.now() >= deadline) return { records, stoppedAt: end }
    }
  }

  // The rows of `query` past `after` (and up to `through`, inclusive), at most `limit`.
  private page(
    query: ActivityQuery,
    after: ActivityPosition | undefined,
    limit: number,
    through?: ActivityPosition,
  ) {
    const direction = query.order === 'DESC' ? 'desc' : 'asc'
    let q = this.filtered(query, after).selectAll()
    if (through !== undefined) q = q.where(notPast(through, query.order === 'DESC'))
    // NOTE(store): a request id matches a row or two: ordering by expressions keeps the planner
    // on the request_id index instead of walking the time index in order looking for them.
    if (query.requestId !== undefined) {
      return q.orderBy(sql`ts_us + 0`, direction).orderBy(sql`seq + 0`, direction).limit(limit).execute()
    }
    return q.orderBy('ts_us', direction).orderBy('seq', direction).limit(limit).execute()
  }

  private filtered(query: ActivityQuery, after: ActivityPosition | undefined) {
    let q = this.db.selectFrom('activity')
    if (query.activityClass !== undefined) q = q.where('class', '=', query.activityClass)
    if (query.startUs !== undefined) q = q.where('ts_us', '>=', query.startUs)
    if (query.endUs !== undefined) q = q.where('ts_us', '<=', query.endUs)
    if (query.requestId !== undefined) q = q.where('request_id', '=', query.requestId)
    if (query.outcome !== undefined) q = q.where('outcome', '=', query.outcome)
    for (const term of query.terms ?? []) q = q.where(this.contains(term))
    const position = after ?? query.after
    if (position !== undefined) q = q.where(pastPosition(position, query.order === 'DESC'))
    return q
  }

  /**
   * Deletes up to `maxRows` of the oldest records older than `beforeUs`; resolves to the number
   * deleted. The retention job calls it until it returns less than `maxRows`, so each call is one
   * short statement.
   */
  async deleteOlderThan(beforeUs: number, maxRows: number): Promise<number> {
    const result = await this.db
      .deleteFrom('activity')
      .where(
        'seq',
        'in',
        this.db
          .selectFrom('activity')
          .select('seq')
          .where('ts_us', '<', beforeUs)
          .orderBy('ts_us')
          .orderBy('seq')
          .limit(maxRows),
      )
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /**
   * Deletes up to `maxRows` of the oldest records beyond the newest `keepRows`; resolves to the
   * number deleted (called repeatedly, as deleteOlderThan).
   */
  async deleteBeyondNewest(keepRows: number, maxRows: number): Promise<number> {
    const boundary = await this.db
      .selectFrom('activity')
      .select(['ts_us', 'seq'])
      .orderBy('ts_us', 'desc')
      .orderBy('seq', 'desc')
      .offset(keepRows - 1)
      .limit(1)
      .executeTakeFirst()
    if (!boundary) return 0
    const position = { tsUs: Number(boundary.ts_us), seq: Number(boundary.seq) }
    const result = await this.db
      .deleteFrom('activity')
      .where(
        'seq',
        'in',
        this.db
          .selectFrom('activity')
          .select('seq')
          .where(pastPosition(position, true))
          .orderBy('ts_us')
          .orderBy('seq')
          .limit(maxRows),
      )
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /** Number of stored records (tests, benchmarks). */
  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('activity')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  private contains(term: string): Expression<SqlBool> {
    const pattern = `%${escapeLike(term)}%`
    // SQLite's LIKE already ignores ASCII case; PostgreSQL needs ILIKE for the same.
    return this.dialect === 'postgres'
      ? sql<SqlBool>`record ilike ${pattern} escape '\\'`
      : sql<SqlBool>`record like ${pattern} escape '\\'`
  }
}

// NOTE(store): as in decision-scan.ts, the bound is a range on ts_us plus the tie-break on seq, so
// the planner reads only that range of the (ts_us, seq) index.
function pastPosition(position: ActivityPosition, desc: boolean): Expression<SqlBool> {
  const { tsUs, seq } = position
  return desc
    ? sql<SqlBool>`(ts_us <= ${tsUs} and (ts_us < ${tsUs} or seq < ${seq}))`
    : sql<SqlBool>`(ts_us >= ${tsUs} and (ts_us > ${tsUs} or seq > ${seq}))`
}

/** Rows up to and including `position` in the order. */
function notPast(position: ActivityPosition, desc: boolean): Expression<SqlBool> {
  const { tsUs, seq } = position
  return desc
    ? sql<SqlBool>`(ts_us >= ${tsUs} and (ts_us > ${tsUs} or seq >= ${seq}))`
    : sql<SqlBool>`(ts_us <= ${tsUs} and (ts_us < ${tsUs} or seq <= ${seq}))`
}

function toRow(entry: NewActivity) {
  return {
    request_id: entry.requestId,
    ts_us: entry.tsUs,
    class: entry.activityClass,
    method: entry.method,
    path: entry.path,
    requested_by: entry.requestedBy,
    status_code: entry.statusCode,
    outcome: entry.outcome,
    record: entry.record,
  }
}

function toStored(row: ActivityRow): StoredActivity {
  return {
    seq: Number(row.seq),
    requestId: row.request_id,
    tsUs: Number(row.ts_us),
    activityClass: row.class,
    method: row.method,
    path: row.path,
    requestedBy: row.requested_by,
    statusCode: Number(row.status_code),
    outcome: row.outcome as ActivityOutcome,
    record: row.record,
  }
}
