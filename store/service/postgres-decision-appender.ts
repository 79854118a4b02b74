/**
 * Decision appends on PostgreSQL, as the service's intake makes them: one transaction at a time,
 * shared by the uploads that arrived while the one before committed (group commit), on one
 * connection of the pool, rows through a multi-row INSERT prepared once per connection (a named
 * statement) instead of one Kysely builds and the server parses and plans for every upload.
 *
 * Each caller resolves after the commit holding its rows (group-commit.ts); a failed statement or
 * commit rolls back.
 */
import type pg from 'pg'
import { decisionInsertText, decisionParams, INSERT_CHUNK_ROWS } from './decision-insert.js'
import type { NewDecision } from './decisions.js'
import { GroupCommit } from './group-commit.js'

const FULL_CHUNK = decisionInsertText(INSERT_CHUNK_ROWS, 'dollar')

/** See the module comment. */
export class PostgresDecisionAppender {
  private readonly group = new GroupCommit((uploads) => this.insertAll(uploads))

  constructor(private readonly pool: pg.Pool) {}

  /** Stores `rows` (skipping known decision ids); resolves to the number stored, after the commit. */
  append(rows: NewDecision[]): Promise<number> {
    return this.group.append(rows)
  }

  /** One transaction for every waiting upload; the count of new rows of each. */
  private async insertAll(uploads: NewDecision[][]): Promise<number[]> {
    const client = await this.pool.connect()
    let broken: Error | undefined
    try {
      await client.query('BEGIN')
      try {
        const counts: number[] = []
        for (const rows of uploads) counts.push(await insert(client, rows))
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
  for (let i = 0; i < rows.length; i += INSERT_CHUNK_ROWS) {
    const size = Math.min(INSERT_CHUNK_ROWS, rows.length - i)
    // Only the full chunk is named (prepared once per connection); a shorter last chunk of each
    // size would leave a statement per size on every connection.
    const query =
      size === INSERT_CHUNK_ROWS
        ? { name: 'regent-decisions-insert', text: FULL_CHUNK, values: decisionParams(rows, i, size) }
        : { text: decisionInsertText(size, 'dollar'), values: decisionParams(rows, i, size) }
    inserted += (await client.query(query)).rowCount ?? 0
  }
  return inserted
}
