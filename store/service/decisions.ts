/**
 * Decision log records: appended in batches (deduplicated by decision id), searched by time,
 * system, result kind and search terms, and paged with a (time, sequence) cursor.
 */
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely'
import type { SqlDialect } from '../database.js'
import type { ServiceTables } from './tables.js'
import { escapeLike } from './text.js'

/** One decision to store; `raw` is the event's JSON text. */
export interface NewDecision {
  decisionId: string
  systemId: string | null
  path: string | null
  resultKind: string
  tsUs: number
  receivedUs: number
  raw: string
}

/** A stored decision with its position in the log. */
export interface StoredDecision extends NewDecision {
  seq: number
}

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

/** How long a PostgreSQL search with text or field terms may run. */
export const SEARCH_TIMEOUT_MS = 30_000

/** A search that scanned for too long; narrowing filters (system, time, result kind) help. */
export class SearchTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the search ran longer than ${timeoutMs / 1000} s`)
    this.name = 'SearchTimeoutError'
  }
}

// Keeps one INSERT's bound parameters well below SQLite's and PostgreSQL's limits.
const INSERT_CHUNK_ROWS = 500

/** Reads and writes the `decisions` table. */
export class DecisionRepository {
  constructor(
    private readonly db: Kysely<ServiceTables>,
    private readonly dialect: SqlDialect,
  ) {}

  /**
   * Stores the decisions in one transaction; a decision id already stored for the same system
   * (or repeated in the batch) is skipped. Resolves to the number of new rows.
   *
   * NOTE(store): the key is (decision id, system), not the decision id alone: decision ids come
   * from agents, and with a global key one system's agent could squat an id and have another
   * system's real event dropped as a duplicate (issue 17, item 6).
   */
  async append(decisions: NewDecision[]): Promise<number> {
    if (decisions.length === 0) return 0
    return this.db.transaction().execute(async (trx) => {
      let inserted = 0
      for (let i = 0; i < decisions.length; i += INSERT_CHUNK_ROWS) {
        const rows = decisions.slice(i, i + INSERT_CHUNK_ROWS).map((d) => ({
          decision_id: d.decisionId,
          system_id: d.systemId,
          path: d.path,
          result_kind: d.resultKind,
          ts_us: d.tsUs,
          received_us: d.receivedUs,
          raw: d.raw,
        }))
        const result = await trx
          .insertInto('decisions')
          .values(rows)
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst()
        inserted += Number(result.numInsertedOrUpdatedRows ?? 0)
      }
      return inserted
    })
  }

  /**
   * One decision by its decision id, of one of `systemIds` when given. Several systems may hold
   * the same decision id; without `systemIds` the first stored wins.
   */
  async get(decisionId: string, systemIds?: string[]): Promise<StoredDecision | undefined> {
    let query = this.db.selectFrom('decisions').selectAll().where('decision_id', '=', decisionId)
    if (systemIds !== undefined) {
      if (systemIds.length === 0) return undefined
      query = query.where('system_id', 'in', systemIds)
    }
    const row = await query.orderBy('seq').limit(1).executeTakeFirst()
    return row && toStored(row)
  }

  /** One decision by its position (the cursor of a search item). */
  async getAt(position: DecisionPosition): Promise<StoredDecision | undefined> {
    const row = await this.db
      .selectFrom('decisions')
      .selectAll()
      .where('seq', '=', position.seq)
      .where('ts_us', '=', position.tsUs)
      .executeTakeFirst()
    return row && toStored(row)
  }

  /**
   * Decisions matching `query`, at most `query.limit`, in its order.
   * @throws SearchTimeoutError when PostgreSQL gives up after `SEARCH_TIMEOUT_MS`.
   */
  async search(query: DecisionQuery): Promise<StoredDecision[]> {
    if (this.dialect !== 'postgres' || (query.terms ?? []).length === 0)
      return this.searchWith(this.db, query)
    try {
      return await this.db.transaction().execute(async (trx) => {
        // NOTE(store): PostgreSQL cannot estimate how many rows a LIKE or JSON term keeps, and on a
        // guess of "few" it scans and sorts the whole table. Reading the time index newest first
        // and stopping at the limit (what SQLite does) is the better plan for a paged search.
        await sql`set local enable_sort = off`.execute(trx)
        await sql.raw(`set local statement_timeout = ${SEARCH_TIMEOUT_MS}`).execute(trx)
        return await this.searchWith(trx, query)
      })
    } catch (err) {
      if ((err as { code?: unknown }).code === '57014') throw new SearchTimeoutError(SEARCH_TIMEOUT_MS)
      throw err
    }
  }

  private async searchWith(db: Kysely<ServiceTables>, query: DecisionQuery): Promise<StoredDecision[]> {
    const desc = query.order === 'DESC'
    let q = db.selectFrom('decisions').selectAll()
    if (query.systemIds !== undefined) {
      if (query.systemIds.length === 0) return []
      q =
        query.systemIds.length === 1
          ? q.where('system_id', '=', query.systemIds[0]!)
          : q.where('system_id', 'in', query.systemIds)
    }
    if (query.startUs !== undefined) q = q.where('ts_us', '>=', query.startUs)
    if (query.endUs !== undefined) q = q.where('ts_us', '<=', query.endUs)
    if (query.resultKinds !== undefined) {
      if (query.resultKinds.length === 0) return []
      q = q.where('result_kind', 'in', query.resultKinds)
    }
    for (const term of query.terms ?? []) {
      const condition = this.termCondition(term)
      q = q.where(term.negate ? sql<SqlBool>`not (${condition})` : condition)
    }
    if (query.after) {
      const { tsUs, seq } = query.after
      q = q.where((eb) =>
        eb.or([
          eb('ts_us', desc ? '<' : '>', tsUs),
          eb.and([eb('ts_us', '=', tsUs), eb('seq', desc ? '<' : '>', seq)]),
        ]),
      )
    }
    const direction = desc ? 'desc' : 'asc'
    const rows = await q.orderBy('ts_us', direction).orderBy('seq', direction).limit(query.limit).execute()
    return rows.map(toStored)
  }

  /** Number of stored decisions (for tests, benchmarks and metrics). */
  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('decisions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
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

function toStored(row: {
  seq: number | string
  decision_id: string
  system_id: string | null
  path: string | null
  result_kind: string
  ts_us: number | string
  received_us: number | string
  raw: string
}): StoredDecision {
  return {
    seq: Number(row.seq),
    decisionId: row.decision_id,
    systemId: row.system_id,
    path: row.path,
    resultKind: row.result_kind,
    tsUs: Number(row.ts_us),
    receivedUs: Number(row.received_us),
    raw: row.raw,
  }
}
