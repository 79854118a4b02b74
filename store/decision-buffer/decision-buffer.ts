/**
 * The durable decision-log buffer: a FIFO of raw event texts in one SQLite file (WAL).
 *
 * Writers: intake appends groups of events in one transaction (the caller acknowledges agents
 * only after it returns); the forwarder claims the oldest pending events as a batch, then
 * acknowledges (deletes) or dead-letters seq ranges of it. Every change is one transaction, so a
 * kill at any moment leaves either the old or the new state, and nothing committed is lost.
 *
 * Counters of what is stored are kept in memory for cheap checks on every append, and re-read
 * from the file whenever another process (`regent relay logs redrive`) has written to it.
 */
import type Database from 'better-sqlite3'
import { openBufferDatabase } from './schema.js'
import {
  type DeadRow,
  INSERT_CHUNK,
  type InFlightRow,
  insertSql,
  prepareStatements,
  toDeadBatch,
} from './statements.js'
import type {
  AppendOutcome,
  Batch,
  BufferStats,
  DeadBatch,
  DecisionBufferOptions,
  DropNotice,
  InFlightBatch,
  RawEvent,
} from './types.js'

interface InFlight {
  id: number
  firstSeq: number
  lastSeq: number
  events: number
  bytes: number
  claimedAt: number
  /** Whether the claim has a row in `batches` (written at its first failure, not before). */
  recorded: boolean
}

/** Size of the row a write probe stores and removes: a few pages, as a small append needs. */
const PROBE_BYTES = 64 * 1024

/** Why a batch (or part of one) is moved to the dead-letter table. */
export interface DeadLetterReason {
  status: number
  reason: string
  attempts: number
}

/** The decision-log buffer over one SQLite file; see the module comment. */
export class DecisionBuffer {
  /** Set when the file failed its integrity check at open and was moved aside. */
  readonly quarantinedTo: string | undefined
  /** In-flight batches returned to pending when the buffer was opened. */
  readonly recoveredBatches: number

  private readonly db: Database.Database
  private readonly options: DecisionBufferOptions
  private events = 0
  private bytes = 0
  private deadEvents = 0
  private deadBytes = 0
  private deadBatches = 0
  private dataVersion = 0
  private readonly inFlight = new Map<number, InFlight>()
  private closed = false
  private readonly sql: ReturnType<typeof prepareStatements>
  /** Multi-row INSERT statements by their number of rows, prepared when first needed. */
  private readonly inserts = new Map<number, Database.Statement>()
  private readonly insertParams: unknown[] = []

  private constructor(options: DecisionBufferOptions) {
    this.options = options
    const opened = openBufferDatabase(options.path, {
      sync: options.sync,
      busyTimeoutMs: options.busyTimeoutMs,
      integrityCheck: options.integrityCheck ?? 'quick',
      recoverInFlight: options.recoverInFlight ?? true,
    })
    this.db = opened.db
    this.quarantinedTo = opened.quarantinedTo
    this.recoveredBatches = opened.recoveredBatches
    this.sql = prepareStatements(this.db)
    this.reloadTotals()
  }

  /** Opens or creates the buffer file, checks it and recovers batches left in flight. */
  static open(options: DecisionBufferOptions): DecisionBuffer {
    return new DecisionBuffer(options)
  }

  /** The options the buffer was opened with. */
  get settings(): Readonly<DecisionBufferOptions> {
    return this.options
  }

  /** Appends one group of events in its own transaction. */
  append(events: RawEvent[], now = Date.now()): AppendOutcome {
    return this.appendGroups([events], now)[0]!
  }

  /**
   * Appends several groups (one per intake request) in ONE transaction, so concurrent requests
   * share one commit (and one fsync with `sync: full`). Each group is stored whole or refused
   * whole. Throws the SQLite error (disk full, busy past the timeout) with nothing stored.
   */
  appendGroups(groups: RawEvent[][], now = Date.now()): AppendOutcome[] {
    this.assertOpen()
    const { maxBytes, overflow } = this.options
    let events = this.events
    let bytes = this.bytes
    const drops: DropNotice[] = []
    const outcomes = this.db
      .transaction((): AppendOutcome[] => {
        const results: AppendOutcome[] = []
        for (const group of groups) {
          let groupBytes = 0
          const sizes = new Array<number>(group.length)
          for (let i = 0; i < group.length; i++) {
            const e = group[i]!
            sizes[i] = e.bytes ?? Buffer.byteLength(e.text)
            groupBytes += sizes[i]!
          }
          if (groupBytes > maxBytes) {
            results.push({ kind: 'too_large', bytes: groupBytes, maxBytes })
            continue
          }
          let droppedEvents = 0
          let droppedBytes = 0
          if (bytes + groupBytes > maxBytes) {
            const freeBytes = maxBytes - bytes
            if (overflow === 'backpressure') {
              results.push({ kind: 'full', needBytes: groupBytes, freeBytes })
              continue
            }
            const dropped = this.dropOldestPending(groupBytes - freeBytes)
            if (bytes - dropped.bytes + groupBytes > maxBytes) {
              // Only in-flight rows are left to drop; they are being delivered right now.
              results.push({ kind: 'full', needBytes: groupBytes, freeBytes: freeBytes + dropped.bytes })
              if (dropped.events > 0) drops.push({ reason: 'drop_oldest', ...dropped })
              events -= dropped.events
              bytes -= dropped.bytes
              continue
            }
            droppedEvents = dropped.events
            droppedBytes = dropped.bytes
            if (dropped.events > 0) drops.push({ reason: 'drop_oldest', ...dropped })
          }
          this.insertRows(group, sizes, now)
          events += group.length - droppedEvents
          bytes += groupBytes - droppedBytes
          results.push({
            kind: 'stored',
            events: group.length,
            bytes: groupBytes,
            droppedEvents,
            droppedBytes,
          })
        }
        return results
      })
      .immediate()
    this.events = events
    this.bytes = bytes
    for (const drop of drops) this.options.onDrop?.(drop)
    return outcomes
  }

  /**
   * Writes a row of PROBE_BYTES and deletes it again in one transaction, so the commit needs
   * room on the disk (and in the file's page limit) as an append of that size would.
   * @throws the SQLite error (SQLITE_FULL while the disk is full); nothing is left behind.
   */
  probeWrite(): void {
    this.assertOpen()
    this.db
      .transaction(() => {
        this.db.exec('CREATE TABLE IF NOT EXISTS write_probe (id INTEGER PRIMARY KEY, filler BLOB NOT NULL)')
        this.db.prepare('INSERT INTO write_probe (filler) VALUES (zeroblob(?))').run(PROBE_BYTES)
        this.db.exec('DELETE FROM write_probe')
      })
      .immediate()
  }

  /**
   * Claims the oldest pending events, up to `maxEvents` and `maxBytes` of text (always at least
   * one event when any is pending), as a batch in flight. Undefined when nothing is pending.
   */
  claim(maxEvents: number, maxBytes: number, now = Date.now()): Batch | undefined {
    this.assertOpen()
    this.refreshIfChangedElsewhere()
    const after = this.claimedThrough()
    const seqs: number[] = []
    const texts: string[] = []
    const sizes: number[] = []
    let bytes = 0
    for (const row of this.sql.head.iterate(after, maxEvents) as Iterable<{
      seq: number
      bytes: number
      body: string
    }>) {
      if (seqs.length > 0 && bytes + row.bytes > maxBytes) break
      seqs.push(row.seq)
      texts.push(row.body)
      sizes.push(row.bytes)
      bytes += row.bytes
    }
    if (seqs.length === 0) return undefined
    const firstSeq = seqs[0]!
    const lastSeq = seqs[seqs.length - 1]!
    // NOTE(decision-logs): a claim is kept in memory only; it gets a `batches` row at its first
    // failure (for `relay logs status`). The happy path is then one read and one delete.
    const id = firstSeq
    this.inFlight.set(id, {
      id,
      firstSeq,
      lastSeq,
      events: seqs.length,
      bytes,
      claimedAt: now,
      recorded: false,
    })
    return { id, firstSeq, lastSeq, seqs, texts, sizes, bytes }
  }

  /**
   * Gives back the tail of a claimed batch, keeping its first `keep` events in flight (used when
   * the batch compresses to more than the upload limit). Returns the shortened batch.
   */
  shrink(batch: Batch, keep: number): Batch {
    const flight = this.flight(batch.id)
    if (keep <= 0 || keep >= batch.seqs.length) return batch
    const seqs = batch.seqs.slice(0, keep)
    const texts = batch.texts.slice(0, keep)
    const sizes = batch.sizes.slice(0, keep)
    const bytes = sizes.reduce((sum, n) => sum + n, 0)
    const lastSeq = seqs[keep - 1]!
    if (flight.recorded) this.sql.updateClaim.run(flight.firstSeq, lastSeq, keep, bytes, batch.id)
    Object.assign(flight, { lastSeq, events: keep, bytes })
    return { id: batch.id, firstSeq: batch.firstSeq, lastSeq, seqs, texts, sizes, bytes }
  }

  /** Deletes the delivered events `fromSeq..toSeq` of a batch; ends the batch once all are done. */
  acknowledge(batch: Batch, fromSeq = batch.firstSeq, toSeq = batch.lastSeq): void {
    this.acknowledgeMany([{ batch, fromSeq, toSeq }])
  }

  /**
   * Deletes several delivered seq ranges in ONE transaction (one commit, one fsync with
   * `sync: full`): the forwarder acknowledges the batches delivered while the previous commit
   * ran together. Ranges are settled in the order given, as `acknowledge` would one by one.
   */
  acknowledgeMany(ranges: ReadonlyArray<{ batch: Batch; fromSeq: number; toSeq: number }>): void {
    const flights = ranges.map((r) => this.flight(r.batch.id))
    // The claims' rows are exactly the batches' (nothing else deletes rows in flight), so the
    // totals come from the batches instead of a second query.
    let events = 0
    let bytes = 0
    for (const { batch, fromSeq, toSeq } of ranges) {
      for (let i = 0; i < batch.seqs.length; i++) {
        const seq = batch.seqs[i]!
        if (seq >= fromSeq && seq <= toSeq) {
          events++
          bytes += batch.sizes[i]!
        }
      }
    }
    this.db
      .transaction(() => {
        for (let k = 0; k < ranges.length; k++) {
          const { fromSeq, toSeq } = ranges[k]!
          this.sql.deleteRange.run(fromSeq, toSeq)
          this.settleRange(flights[k]!, toSeq)
        }
      })
      .immediate()
    this.events -= events
    this.bytes -= bytes
  }

  /** Records a failed attempt on a batch (visible to `regent relay logs status`). */
  recordFailure(batch: Batch, status: number, error: string): void {
    const flight = this.flight(batch.id)
    if (!flight.recorded) {
      this.sql.claim.run(
        flight.id,
        flight.firstSeq,
        flight.lastSeq,
        flight.events,
        flight.bytes,
        flight.claimedAt,
      )
      flight.recorded = true
    }
    this.sql.recordFailure.run(status, error.slice(0, 500), batch.id)
  }

  /**
   * Moves events `fromSeq..toSeq` of a batch to the dead-letter table, then enforces the
   * dead-letter bounds by dropping the oldest dead batches. Returns the events moved.
   */
  deadLetter(
    batch: Batch,
    why: DeadLetterReason,
    fromSeq = batch.firstSeq,
    toSeq = batch.lastSeq,
    now = Date.now(),
  ): number {
    const flight = this.flight(batch.id)
    const drops: DropNotice[] = []
    const moved = this.db
      .transaction(() => {
        const range = this.sql.rangeTotals.get(fromSeq, toSeq) as {
          events: number
          bytes: number
          first: number | null
        }
        if (range.events === 0) {
          this.settleRange(flight, toSeq)
          return range
        }
        const deadId = Number(
          this.sql.insertDeadBatch.run(
            range.events,
            range.bytes,
            why.status,
            why.reason.slice(0, 500),
            why.attempts,
            now,
            range.first,
          ).lastInsertRowid,
        )
        this.sql.copyToDead.run(deadId, fromSeq, toSeq)
        this.sql.deleteRange.run(fromSeq, toSeq)
        this.settleRange(flight, toSeq)
        const limited = this.enforceDeadLetterBounds(
          this.deadEvents + range.events,
          this.deadBytes + range.bytes,
        )
        if (limited.events > 0)
          drops.push({ reason: 'dead_letter_limit', events: limited.events, bytes: limited.bytes })
        return range
      })
      .immediate()
    this.events -= moved.events
    this.bytes -= moved.bytes
    this.reloadDeadTotals()
    for (const drop of drops) this.options.onDrop?.(drop)
    return moved.events
  }

  /** Returns this process's batches in flight to pending (on shutdown, after the forwarder stopped). */
  releaseAll(): void {
    if (this.closed) return
    for (const flight of this.inFlight.values()) if (flight.recorded) this.sql.endClaim.run(flight.id)
    this.inFlight.clear()
  }

  /** Batches in flight (of any process using the file), with their failed attempts so far. */
  listInFlight(): InFlightBatch[] {
    this.assertOpen()
    return (this.sql.listInFlight.all() as InFlightRow[]).map((r) => ({
      id: r.id,
      events: r.events,
      bytes: r.bytes,
      attempts: r.attempts,
      lastStatus: r.last_status,
      lastError: r.last_error,
      claimedAt: r.claimed_at,
    }))
  }

  /** Dead batches, newest first. */
  listDeadBatches(limit = 100): DeadBatch[] {
    this.assertOpen()
    return (this.sql.listDead.all(limit) as DeadRow[]).map(toDeadBatch)
  }

  /** The raw texts of one dead batch, in ingest order (for inspection). */
  deadBatchEvents(id: number): string[] {
    this.assertOpen()
    return (this.sql.deadEvents.all(id) as Array<{ body: string }>).map((r) => r.body)
  }

  /**
   * Moves dead batches (all, or those listed) back to the tail of the queue with fresh seqs, so
   * the forwarder uploads them again after what is pending. Returns what was moved.
   */
  redrive(ids?: number[]): { batches: number; events: number } {
    this.assertOpen()
    const result = this.db
      .transaction(() => {
        const targets = ids ?? (this.sql.allDeadIds.all() as Array<{ id: number }>).map((r) => r.id)
        let batches = 0
        let events = 0
        for (const id of targets) {
          const moved = this.sql.redriveEvents.run(id).changes
          this.sql.deleteDeadEvents.run(id)
          if (this.sql.deleteDeadBatch.run(id).changes > 0) batches++
          events += moved
        }
        return { batches, events }
      })
      .immediate()
    this.reloadTotals()
    return result
  }

  /** What is stored now (re-read from the file if another process changed it). */
  stats(): BufferStats {
    this.assertOpen()
    this.refreshIfChangedElsewhere()
    const head = this.sql.oldest.get() as { received_at: number } | undefined
    let inFlightEvents = 0
    for (const f of this.inFlight.values()) inFlightEvents += f.events
    return {
      events: this.events,
      bytes: this.bytes,
      inFlightEvents,
      oldestReceivedAt: head?.received_at ?? null,
      deadEvents: this.deadEvents,
      deadBytes: this.deadBytes,
      deadBatches: this.deadBatches,
    }
  }

  /** Raw texts of stored events in ingest order (tests and `relay logs status --show`). */
  peek(limit: number): string[] {
    this.assertOpen()
    return (this.sql.peek.all(limit) as Array<{ body: string }>).map((r) => r.body)
  }

  /** Checkpoints the WAL into the main file and closes. Safe to call twice. */
  close(): void {
    if (this.closed) return
    this.releaseAll()
    this.closed = true
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)')
    } finally {
      this.db.close()
    }
  }

  /** Whether `close()` was called. */
  get isClosed(): boolean {
    return this.closed
  }

  /**
   * Inserts a group's rows, in order, `INSERT_CHUNK` rows per statement: one statement per row
   * costs SQLite a statement start and an AUTOINCREMENT update each time, and the binding a call
   * across the native boundary.
   */
  private insertRows(group: RawEvent[], sizes: number[], now: number): void {
    let i = 0
    while (i < group.length) {
      const rows = Math.min(INSERT_CHUNK, group.length - i)
      const statement = this.insertStatement(rows)
      const params = this.insertParams
      params.length = rows * 6
      for (let k = 0, at = 0; k < rows; k++, i++) {
        const e = group[i]!
        params[at++] = now
        params[at++] = sizes[i]
        params[at++] = e.decisionId
        params[at++] = e.timestamp
        params[at++] = e.agentId
        params[at++] = e.text
      }
      statement.run(params)
    }
    // Let go of the event texts until the next append.
    this.insertParams.length = 0
  }

  private insertStatement(rows: number): Database.Statement {
    let statement = this.inserts.get(rows)
    if (!statement) {
      statement = this.db.prepare(insertSql(rows))
      this.inserts.set(rows, statement)
    }
    return statement
  }

  private claimedThrough(): number {
    let through = 0
    for (const f of this.inFlight.values()) through = Math.max(through, f.lastSeq)
    return through
  }

  private flight(id: number): InFlight {
    this.assertOpen()
    const flight = this.inFlight.get(id)
    if (!flight) throw new Error(`batch ${id} is not in flight`)
    return flight
  }

  /** After `..toSeq` of a batch is resolved: shrink its claim from the front, or end it. */
  private settleRange(flight: InFlight, toSeq: number): void {
    if (toSeq >= flight.lastSeq) {
      if (flight.recorded) this.sql.endClaim.run(flight.id)
      this.inFlight.delete(flight.id)
      return
    }
    flight.firstSeq = toSeq + 1
    if (flight.recorded) this.sql.updateClaimStart.run(flight.firstSeq, flight.id)
  }

  private dropOldestPending(needBytes: number): { events: number; bytes: number } {
    const after = this.claimedThrough()
    let events = 0
    let bytes = 0
    let through = after
    for (const row of this.sql.headSizes.iterate(after) as Iterable<{ seq: number; bytes: number }>) {
      if (bytes >= needBytes) break
      events++
      bytes += row.bytes
      through = row.seq
    }
    if (events > 0) this.sql.deleteRange.run(after + 1, through)
    return { events, bytes }
  }

  private enforceDeadLetterBounds(events: number, bytes: number): { events: number; bytes: number } {
    const dropped = { events: 0, bytes: 0 }
    const { deadLetterMaxEvents, deadLetterMaxBytes } = this.options
    while (events - dropped.events > deadLetterMaxEvents || bytes - dropped.bytes > deadLetterMaxBytes) {
      const oldest = this.sql.oldestDead.get() as { id: number; events: number; bytes: number } | undefined
      if (!oldest) break
      this.sql.deleteDeadEvents.run(oldest.id)
      this.sql.deleteDeadBatch.run(oldest.id)
      dropped.events += oldest.events
      dropped.bytes += oldest.bytes
    }
    return dropped
  }

  private refreshIfChangedElsewhere(): void {
    const version = this.db.pragma('data_version', { simple: true }) as number
    if (version !== this.dataVersion) this.reloadTotals()
  }

  private reloadTotals(): void {
    const t = this.sql.totals.get() as { events: number; bytes: number | null }
    this.events = t.events
    this.bytes = t.bytes ?? 0
    this.reloadDeadTotals()
    this.dataVersion = this.db.pragma('data_version', { simple: true }) as number
  }

  private reloadDeadTotals(): void {
    const d = this.sql.deadTotals.get() as { batches: number; events: number | null; bytes: number | null }
    this.deadBatches = d.batches
    this.deadEvents = d.events ?? 0
    this.deadBytes = d.bytes ?? 0
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the decision-log buffer is closed')
  }
}
