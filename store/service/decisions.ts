/**
 * Decision log records: appended in batches (deduplicated by system and decision id), searched
 * by time, system, result kind and search terms (how: decision-scan.ts), and paged with a
 * (time, sequence) cursor.
 */
import type { Kysely } from 'kysely'
import type { SqlDialect } from '../database.js'
import { countDecisions, type DecisionCount, type DecisionCountQuery } from './decision-counts.js'
import { INSERT_CHUNK_ROWS } from './decision-insert.js'
import {
  type DecisionPosition,
  type DecisionQuery,
  type DecisionRow,
  DecisionScanner,
} from './decision-scan.js'
import type { ServiceTables } from './tables.js'

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

/** Stores an upload's rows in a commit of its own (or shared); resolves to the number of new rows. */
export interface DecisionAppender {
  append(rows: NewDecision[]): Promise<number>
}

/** Reads and writes the `decisions` table. */
export class DecisionRepository {
  private readonly scanner: DecisionScanner
  /**
   * `performance.now()` of the last append or upload received (-Infinity before any): background
   * work (the text indexer) yields to intake.
   */
  lastAppendAt = Number.NEGATIVE_INFINITY

  /**
   * The intake's appends on prepared statements (decision-appender.ts, postgres-decision-appender.ts);
   * absent inside a store transaction, where appends go through Kysely on its connection.
   */
  private readonly appender: DecisionAppender | undefined

  constructor(
    private readonly db: Kysely<ServiceTables>,
    private readonly dialect: SqlDialect,
    appender?: DecisionAppender,
  ) {
    this.scanner = new DecisionScanner(db, dialect)
    this.appender = appender
  }

  /**
   * Stores the decisions in one transaction; a decision id already stored for the same system
   * (or repeated in the batch) is skipped. Resolves to the number of new rows.
   *
   * NOTE(store): the key is (decision id, system), not the decision id alone: decision ids come
   * from agents, and with a global key one system's agent could squat an id and have another
   * system's real event dropped as a duplicate (issue 17, item 6).
   */
  /**
   * Says an upload has arrived, before it is parsed and appended: from then on, the background
   * indexer yields as it does to appends (it used to index flat out for the first second of a
   * burst, until the first upload of it reached `append`).
   */
  noteIntake(): void {
    this.lastAppendAt = performance.now()
  }

  async append(decisions: NewDecision[]): Promise<number> {
    if (decisions.length === 0) return 0
    this.lastAppendAt = performance.now()
    if (this.appender) return this.appender.append(decisions)
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

  /** Decisions matching `query`, at most `query.limit`, in its order, however long it takes. */
  async search(query: DecisionQuery): Promise<StoredDecision[]> {
    return (await this.searchWithin(query, Number.POSITIVE_INFINITY)).decisions
  }

  /**
   * Decisions matching `query`, at most `query.limit`, in its order, searched for at most about
   * `budgetMs` (see decision-scan.ts). `stoppedAt` is set when the budget ran out first: every
   * decision up to it was checked, and a search after it finds the rest.
   */
  async searchWithin(
    query: DecisionQuery,
    budgetMs: number,
  ): Promise<{ decisions: StoredDecision[]; stoppedAt?: DecisionPosition }> {
    const { rows, stoppedAt } = await this.scanner.search(query, budgetMs)
    return { decisions: rows.map(toStored), ...(stoppedAt ? { stoppedAt } : {}) }
  }

  /**
   * Adds up to `maxRows` decisions to the full-text index (SQLite's FTS table, PostgreSQL's
   * `decision_texts`; 0 on PostgreSQL without pg_trgm).
   * Searches are exact whether or not this has run; it only makes rare terms fast.
   * Resolves to the number indexed, 0 when the index is current.
   */
  indexText(maxRows: number): Promise<number> {
    return this.scanner.indexText(maxRows)
  }

  /** Decisions per time bucket and result kind (see decision-counts.ts). */
  countByBucket(query: DecisionCountQuery): Promise<DecisionCount[]> {
    return countDecisions(this.db, this.dialect, query)
  }

  /** Number of stored decisions (for tests, benchmarks and metrics). */
  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('decisions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }
}

function toStored(row: DecisionRow): StoredDecision {
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
