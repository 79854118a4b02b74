/**
 * The SQL of the decision-log buffer, prepared once per connection, and the row shapes it reads.
 * Kept apart from decision-buffer.ts so the class reads as the buffer's rules, not its SQL.
 */
import type Database from 'better-sqlite3'
import type { DeadBatch } from './types.js'

/** A `batches` row. */
export interface InFlightRow {
  id: number
  events: number
  bytes: number
  attempts: number
  last_status: number | null
  last_error: string | null
  claimed_at: number
}

/** A `dead_batches` row. */
export interface DeadRow {
  id: number
  events: number
  bytes: number
  status: number
  reason: string
  attempts: number
  dead_at: number
  first_received_at: number
}

/** A dead batch as the buffer's API shows it. */
export const toDeadBatch = (r: DeadRow): DeadBatch => ({
  id: r.id,
  events: r.events,
  bytes: r.bytes,
  status: r.status,
  reason: r.reason,
  attempts: r.attempts,
  deadAt: r.dead_at,
  firstReceivedAt: r.first_received_at,
})

/** Rows per INSERT statement on append (SQLite allows 32766 parameters; this uses 6 a row). */
export const INSERT_CHUNK = 64

/** An INSERT of `rows` events, in the order given (AUTOINCREMENT numbers them in that order). */
export function insertSql(rows: number): string {
  return `INSERT INTO events (received_at, bytes, decision_id, timestamp, agent_id, body) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ')}`
}

/** Every statement the buffer runs, prepared once per connection. */
export function prepareStatements(db: Database.Database) {
  return {
    head: db.prepare('SELECT seq, bytes, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
    headSizes: db.prepare('SELECT seq, bytes FROM events WHERE seq > ? ORDER BY seq'),
    peek: db.prepare('SELECT body FROM events ORDER BY seq LIMIT ?'),
    oldest: db.prepare('SELECT received_at FROM events ORDER BY seq LIMIT 1'),
    totals: db.prepare('SELECT count(*) AS events, sum(bytes) AS bytes FROM events'),
    rangeTotals: db.prepare(
      'SELECT count(*) AS events, coalesce(sum(bytes), 0) AS bytes, min(received_at) AS first FROM events WHERE seq BETWEEN ? AND ?',
    ),
    deleteRange: db.prepare('DELETE FROM events WHERE seq BETWEEN ? AND ?'),
    claim: db.prepare(
      "INSERT INTO batches (id, state, first_seq, last_seq, events, bytes, claimed_at) VALUES (?, 'in_flight', ?, ?, ?, ?, ?)",
    ),
    updateClaim: db.prepare(
      'UPDATE batches SET first_seq = ?, last_seq = ?, events = ?, bytes = ? WHERE id = ?',
    ),
    updateClaimStart: db.prepare('UPDATE batches SET first_seq = ? WHERE id = ?'),
    endClaim: db.prepare('DELETE FROM batches WHERE id = ?'),
    listInFlight: db.prepare('SELECT * FROM batches ORDER BY first_seq'),
    recordFailure: db.prepare(
      'UPDATE batches SET attempts = attempts + 1, last_status = ?, last_error = ? WHERE id = ?',
    ),
    insertDeadBatch: db.prepare(
      'INSERT INTO dead_batches (events, bytes, status, reason, attempts, dead_at, first_received_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    copyToDead: db.prepare(
      `INSERT INTO dead_events (seq, dead_batch_id, received_at, bytes, decision_id, timestamp, agent_id, body)
       SELECT seq, ?, received_at, bytes, decision_id, timestamp, agent_id, body FROM events WHERE seq BETWEEN ? AND ?`,
    ),
    deadTotals: db.prepare(
      'SELECT count(*) AS batches, sum(events) AS events, sum(bytes) AS bytes FROM dead_batches',
    ),
    listDead: db.prepare('SELECT * FROM dead_batches ORDER BY id DESC LIMIT ?'),
    allDeadIds: db.prepare('SELECT id FROM dead_batches ORDER BY id'),
    oldestDead: db.prepare('SELECT id, events, bytes FROM dead_batches ORDER BY id LIMIT 1'),
    deadEvents: db.prepare('SELECT body FROM dead_events WHERE dead_batch_id = ? ORDER BY seq'),
    redriveEvents: db.prepare(
      `INSERT INTO events (received_at, bytes, decision_id, timestamp, agent_id, body)
       SELECT received_at, bytes, decision_id, timestamp, agent_id, body FROM dead_events WHERE dead_batch_id = ? ORDER BY seq`,
    ),
    deleteDeadEvents: db.prepare('DELETE FROM dead_events WHERE dead_batch_id = ?'),
    deleteDeadBatch: db.prepare('DELETE FROM dead_batches WHERE id = ?'),
  }
}
