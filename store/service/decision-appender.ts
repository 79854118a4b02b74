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
 * Each caller resolves after the commit that holds its rows (group-commit.ts).
 */
import type Database from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { decisionInsertText, decisionParams, INSERT_CHUNK_ROWS } from './decision-insert.js'
import type { NewDecision } from './decisions.js'
import { GroupCommit } from './group-commit.js'
import type { ServiceTables } from './tables.js'

/** Statements for odd chunk sizes kept at most (the full size is always kept). */
const MAX_CACHED_SIZES = 16

/** See the module comment. */
export class SqliteDecisionAppender {
  private readonly statements = new Map<number, Database.Statement>()
  private readonly params: unknown[] = []
  private readonly group: GroupCommit

  constructor(
    private readonly db: Kysely<ServiceTables>,
    private readonly sqlite: Database.Database,
  ) {
    this.group = new GroupCommit(
      (uploads) => this.db.connection().execute(async () => this.insertAll(uploads)),
      // The commit before ran synchronously: uploads whose rows arrived meanwhile (a parse
      // worker's answers, sockets) are still in the event loop's queue. One turn of it lets
      // them join this group, else every commit held one upload (measured: 100 of 100).
      () => new Promise<void>((resolve) => setImmediate(resolve)),
    )
  }

  /** Stores `rows` (skipping known decision ids); resolves to the number stored, after the commit. */
  append(rows: NewDecision[]): Promise<number> {
    return this.group.append(rows)
  }

  /** One transaction for every waiting upload; the count of new rows of each. */
  private insertAll(uploads: NewDecision[][]): number[] {
    return this.sqlite.transaction(() => uploads.map((rows) => this.insert(rows))).immediate()
  }

  private insert(rows: NewDecision[]): number {
    let inserted = 0
    const params = this.params
    for (let i = 0; i < rows.length; i += INSERT_CHUNK_ROWS) {
      const size = Math.min(INSERT_CHUNK_ROWS, rows.length - i)
      inserted += this.statement(size).run(decisionParams(rows, i, size, params)).changes
    }
    // The event texts are not kept until the next upload.
    params.length = 0
    return inserted
  }

  private statement(rows: number): Database.Statement {
    let statement = this.statements.get(rows)
    if (!statement) {
      if (this.statements.size >= MAX_CACHED_SIZES) {
        for (const size of this.statements.keys())
          if (size !== INSERT_CHUNK_ROWS) this.statements.delete(size)
      }
      statement = this.sqlite.prepare(decisionInsertText(rows, 'question'))
      this.statements.set(rows, statement)
    }
    return statement
  }
}
