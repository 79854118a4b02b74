/**
 * Decisions per time bucket and result kind (the console's chart, `GET /v1/decisions/counts`),
 * counted by the database: one GROUP BY per slice of the range, so a wide range over a large log
 * never holds the event loop for one long query (better-sqlite3 blocks it while a query runs).
 */
import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { SqlDialect } from '../database.js'
import type { ServiceTables } from './tables.js'

/**
 * What to count: `[startUs, endUs]` (both ends included, as in the search) cut into buckets of
 * `bucketUs` from `startUs`; a decision at exactly `endUs` counts in the last bucket.
 */
export interface DecisionCountQuery {
  startUs: number
  endUs: number
  bucketUs: number
  /** Undefined: every system (and decisions without one). */
  systemIds?: string[]
  /** Undefined: every kind. */
  resultKinds?: string[]
}

/** Decisions of one result kind in one bucket (index from 0); buckets without any are left out. */
export interface DecisionCount {
  bucket: number
  resultKind: string
  count: number
}

// Slices of the range counted per query; the event loop is free between them.
const SLICES = 16

/** The counts of `query`, in bucket order. */
export async function countDecisions(
  db: Kysely<ServiceTables>,
  dialect: SqlDialect,
  query: DecisionCountQuery,
): Promise<DecisionCount[]> {
  const { startUs, endUs, bucketUs } = query
  if (query.systemIds?.length === 0 || query.resultKinds?.length === 0 || endUs <= startUs) return []
  const buckets = Math.ceil((endUs - startUs) / bucketUs)
  const perSlice = Math.max(1, Math.ceil(buckets / SLICES))
  const out: DecisionCount[] = []
  for (let first = 0; first < buckets; first += perSlice) {
    const from = startUs + first * bucketUs
    const last = first + perSlice >= buckets
    const to = last ? endUs : startUs + (first + perSlice) * bucketUs
    const bucket = bucketExpression(dialect, startUs, bucketUs)
    let select = db
      .selectFrom('decisions')
      .select([bucket.as('bucket'), 'result_kind', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('ts_us', '>=', from)
      .where('ts_us', last ? '<=' : '<', to)
    if (query.systemIds) select = select.where('system_id', 'in', query.systemIds)
    if (query.resultKinds) select = select.where('result_kind', 'in', query.resultKinds)
    // By position: PostgreSQL would not see two copies of the parameterized bucket as the same.
    const rows = await select.groupBy([sql`1`, sql`2`]).orderBy(sql`1`).execute()
    for (const row of rows) {
      out.push({
        bucket: Math.min(Number(row.bucket), buckets - 1),
        resultKind: row.result_kind,
        count: Number(row.n),
      })
    }
    if (!last) await new Promise((resolve) => setImmediate(resolve))
  }
  return out
}

// Integer division in both: SQLite may bind a whole JS number as REAL, so it is cast back.
function bucketExpression(dialect: SqlDialect, startUs: number, bucketUs: number): RawBuilder<number> {
  return dialect === 'sqlite'
    ? sql<number>`cast((ts_us - ${startUs}) / ${bucketUs} as integer)`
    : sql<number>`((ts_us - ${startUs}::bigint) / ${bucketUs}::bigint)`
}
