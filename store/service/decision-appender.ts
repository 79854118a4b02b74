/**
 * Decision appends on SQLite, as the service's intake makes them: concurrent uploads share one
 * transaction (one commit, one fsync), and rows go in through multi-row INSERT statements
 * prepared once, on the raw better-sqlite3 connection.
 *
 * Why not Kysely here: it builds and compiles a query of 3,500 parameters per batch and
 * better-sqlite3 prepares it again each time, which cost about as much as the insert itself
 * (docs/performance.md). The raw connection is used only while Kysely's connection is held
 * (`db.connection()`), so no Kysely transaction is open on it meanwhile, and the work inside is
 * synchronous, so nothing else runs on it either.
 *
 * Each caller resolves after the commit that holds its rows, with the number of its rows that
 * were new; a failed commit rejects every caller of that commit (nothing of theirs is stored).
 */
import type Database from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type { NewDecision } from './decisions.js'
import type { ServiceTables } from './tables.js'

/** Rows per INSERT: 7 parameters each, well below SQLite's 32,766. */
const CHUNK_ROWS = 500
/** Statements for odd chunk sizes kept at most (the full size is always kept). */
const MAX_CACHED_SIZES = 16

interface Waiting {
  rows: NewDecision[]
  resolve: (inserted: number) => void
  reject: (err: unknown) => void
}

/** See the module comment. */
export class SqliteDecisionAppender {
  private queue: Waiting[] = []
  private flushing = false
  private readonly statements = new Map<number, Database.Statement>()
  private readonly params: unknown[] = []

  constructor(
    private readonly db: Kysely<ServiceTables>,
    private readonly sqlite: Database.Database,
  ) {}

  /** Stores `rows` (skipping known decision ids); resolves to the number stored, after the commit. */
  append(rows: NewDecision[]): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ rows, resolve, reject })
      if (!this.flushing) void this.flush()
    })
  }

  private async flush(): Promise<void> {
    this.flushing = true
    try {
      while (this.queue.length > 0) {
        // The commit above ran synchronously: uploads whose rows arrived meanwhile (a parse
        // worker's answers, sockets) are still in the event loop's queue. One turn of it lets
        // them join this group, else every commit held one upload (measured: 100 of 100).
        await new Promise<void>((resolve) => setImmediate(resolve))
        const group = this.queue
        this.queue = []
        try {
          const counts = await this.db.connection().execute(async () => this.insertAll(group))
          for (let i = 0; i < group.length; i++) group[i]!.resolve(counts[i]!)
        } catch (err) {
          for (const waiting of group) waiting.reject(err)
        }
      }
    } finally {
      this.flushing = false
    }
  }

  /** One transaction for every waiting upload; the count of new rows of each. */
  private insertAll(group: Waiting[]): number[] {
    return this.sqlite.transaction(() => group.map((waiting) => this.insert(waiting.rows))).immediate()
  }

  private insert(rows: NewDecision[]): number {
    let inserted = 0
    const params = this.params
    for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
      const size = Math.min(CHUNK_ROWS, rows.length - i)
      params.length = size * 7
      for (let k = 0, at = 0; k < size; k++) {
        const d = rows[i + k]!
        params[at++] = d.decisionId
        params[at++] = d.systemId
        params[at++] = d.path
        params[at++] = d.resultKind
        params[at++] = d.tsUs
        params[at++] = d.receivedUs
        params[at++] = d.raw
      }
      inserted += this.statement(size).run(params).changes
    }
    // The event texts are not kept until the next upload.
    params.length = 0
    return inserted
  }

  private statement(rows: number): Database.Statement {
    let statement = this.statements.get(rows)
    if (!statement) {
      if (this.statements.size >= MAX_CACHED_SIZES) {
        for (const size of this.statements.keys()) if (size !== CHUNK_ROWS) this.statements.delete(size)
      }
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')
      statement = this.sqlite.prepare(
        `INSERT INTO decisions (decision_id, system_id, path, result_kind, ts_us, received_us, raw) VALUES ${values} ON CONFLICT DO NOTHING`,
      )
      this.statements.set(rows, statement)
    }
    return statement
  }
}
