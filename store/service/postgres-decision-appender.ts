/**
 * Decision appends on PostgreSQL, as the service's intake makes them: one transaction at a time,
 * shared by the uploads that arrived while the one before committed (group commit), on one
 * connection of the pool, rows through a multi-row INSERT prepared once per connection (a named
 * statement) instead of one Kysely builds and the server parses and plans for every upload.
 *
 * Each caller resolves after the commit holding its rows, with the number of its rows that were
 * new; a failed statement or commit rolls back and rejects every caller of that commit (nothing
 * of theirs is stored).
 */
import type pg from 'pg'
import type { NewDecision } from './decisions.js'

/** Rows per INSERT: 7 parameters each, far below PostgreSQL's 65,535. */
const CHUNK_ROWS = 500
const COLUMNS = '(decision_id, system_id, path, result_kind, ts_us, received_us, raw)'

function insertText(rows: number): string {
  const values: string[] = []
  for (let r = 0, n = 0; r < rows; r++) {
    values.push(`($${++n}, $${++n}, $${++n}, $${++n}, $${++n}, $${++n}, $${++n})`)
  }
  return `INSERT INTO decisions ${COLUMNS} VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`
}

const FULL_CHUNK = insertText(CHUNK_ROWS)

interface Waiting {
  rows: NewDecision[]
  resolve: (inserted: number) => void
  reject: (err: unknown) => void
}

/** See the module comment. */
export class PostgresDecisionAppender {
  private queue: Waiting[] = []
  private flushing = false

  constructor(private readonly pool: pg.Pool) {}

  /** Stores `rows` (skipping known decision ids); resolves to the number stored, after the commit. */
  append(rows: NewDecision[]): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ rows, resolve, reject })
      if (!this.flushing) void this.flush()
    })
  }

  // One group at a time: the uploads that arrived while the last commit ran share the next one.
  private async flush(): Promise<void> {
    this.flushing = true
    try {
      while (this.queue.length > 0) {
        const group = this.queue
        this.queue = []
        try {
          const counts = await this.insertAll(group)
          for (let i = 0; i < group.length; i++) group[i]!.resolve(counts[i]!)
        } catch (err) {
          for (const waiting of group) waiting.reject(err)
        }
      }
    } finally {
      this.flushing = false
    }
  }

  private async insertAll(group: Waiting[]): Promise<number[]> {
    const client = await this.pool.connect()
    let broken: Error | undefined
    try {
      await client.query('BEGIN')
      try {
        const counts: number[] = []
        for (const waiting of group) counts.push(await insert(client, waiting.rows))
        await client.query('COMMIT')
        return counts
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError
        })
        throw err
      }
    } finally {
      // A connection whose rollback failed is closed rather than reused.
      client.release(broken)
    }
  }
}

async function insert(client: pg.PoolClient, rows: NewDecision[]): Promise<number> {
  let inserted = 0
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    const size = Math.min(CHUNK_ROWS, rows.length - i)
    // Only the full chunk is named (prepared once per connection); a shorter last chunk of each
    // size would leave a statement per size on every connection.
    const query =
      size === CHUNK_ROWS
        ? { name: 'regent-decisions-insert', text: FULL_CHUNK, values: params(rows, i, size) }
        : { text: insertText(size), values: params(rows, i, size) }
    inserted += (await client.query(query)).rowCount ?? 0
  }
  return inserted
}

function params(rows: NewDecision[], from: number, size: number): unknown[] {
  const out = new Array<unknown>(size * 7)
  for (let k = 0, at = 0; k < size; k++) {
    const d = rows[from + k] as NewDecision
    out[at++] = d.decisionId
    out[at++] = d.systemId
    out[at++] = d.path
    out[at++] = d.resultKind
    out[at++] = d.tsUs
    out[at++] = d.receivedUs
    out[at++] = d.raw
  }
  return out
}
