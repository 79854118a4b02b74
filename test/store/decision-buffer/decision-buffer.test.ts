import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  DecisionBuffer,
  type DecisionBufferOptions,
  type DropNotice,
  type RawEvent,
} from '../../../store/decision-buffer/index.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-buffer-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function options(overrides: Partial<DecisionBufferOptions> = {}): DecisionBufferOptions {
  return {
    path: join(dir, 'decision-logs.db'),
    sync: 'normal',
    maxBytes: 1024 * 1024,
    overflow: 'backpressure',
    busyTimeoutMs: 100,
    deadLetterMaxEvents: 1000,
    deadLetterMaxBytes: 1024 * 1024,
    ...overrides,
  }
}

/** An event whose text is exactly 100 bytes, with a req_id beyond 2^53 to catch any re-encoding. */
function event(i: number): RawEvent {
  const head = `{"decision_id":"d-${String(i).padStart(6, '0')}","req_id":18446744073709551615,"x":"`
  const text = `${head}${'a'.repeat(100 - head.length - 2)}"}`
  return {
    text,
    decisionId: `d-${String(i).padStart(6, '0')}`,
    timestamp: '2024-01-01T00:00:00Z',
    agentId: 'agent-1',
  }
}
const events = (from: number, count: number) => Array.from({ length: count }, (_, k) => event(from + k))

describe('DecisionBuffer', () => {
  it('stores raw texts and hands them out in ingest order, deleting only what is acknowledged', () => {
    const buffer = DecisionBuffer.open(options())
    expect(buffer.append(events(0, 5))).toEqual({
      kind: 'stored',
      events: 5,
      bytes: 500,
      droppedEvents: 0,
      droppedBytes: 0,
    })
    buffer.append(events(5, 5))
    const batch = buffer.claim(4, 1e9)!
    expect(batch.texts).toEqual(events(0, 4).map((e) => e.text))
    expect(buffer.stats()).toMatchObject({ events: 10, bytes: 1000, inFlightEvents: 4 })
    // The next claim starts after what is in flight.
    const second = buffer.claim(100, 250)!
    expect(second.texts).toEqual(events(4, 2).map((e) => e.text))
    buffer.acknowledge(batch)
    buffer.acknowledge(second)
    expect(buffer.stats()).toMatchObject({ events: 4, bytes: 400, inFlightEvents: 0 })
    expect(buffer.peek(10)).toEqual(events(6, 4).map((e) => e.text))
    buffer.close()
  })

  it('deletes the delivered ranges of several batches in one call, settling each claim', () => {
    const buffer = DecisionBuffer.open(options())
    buffer.append(events(0, 10))
    const first = buffer.claim(4, 1e9)!
    const second = buffer.claim(4, 1e9)!
    // The first batch whole, and the front half of the second: its claim goes on from seq 7.
    buffer.acknowledgeMany([
      { batch: first, fromSeq: first.firstSeq, toSeq: first.lastSeq },
      { batch: second, fromSeq: second.seqs[0]!, toSeq: second.seqs[1]! },
    ])
    // (A claim counts as in flight, whole, until its last event is settled, as with acknowledge.)
    expect(buffer.stats()).toMatchObject({ events: 4, bytes: 400, inFlightEvents: 4 })
    expect(buffer.peek(10)).toEqual(events(6, 4).map((e) => e.text))
    buffer.acknowledge(second, second.seqs[2]!, second.lastSeq)
    expect(buffer.stats()).toMatchObject({ events: 2, inFlightEvents: 0 })
    // A range of a batch that is not in flight is refused, and nothing of the call is deleted.
    const third = buffer.claim(1, 1e9)!
    expect(() =>
      buffer.acknowledgeMany([
        { batch: third, fromSeq: third.firstSeq, toSeq: third.lastSeq },
        { batch: first, fromSeq: first.firstSeq, toSeq: first.lastSeq },
      ]),
    ).toThrow(/not in flight/)
    expect(buffer.stats().events).toBe(2)
    buffer.close()
  })

  it('returns batches in flight to pending when reopened after a crash', () => {
    const first = DecisionBuffer.open(options())
    first.append(events(0, 3))
    const failing = first.claim(2, 1e9)!
    // A claim is written down at its first failure, for `relay logs status` to show.
    first.recordFailure(failing, 503, 'upstream busy')
    first.recordFailure(failing, 500, 'upstream broken')
    expect(first.listInFlight()).toEqual([
      expect.objectContaining({
        id: failing.id,
        events: 2,
        attempts: 2,
        lastStatus: 500,
        lastError: 'upstream broken',
      }),
    ])
    first.claim(1, 1e9)
    // No close(): simulate the process dying with batches in flight.
    const again = DecisionBuffer.open(options())
    expect(again.recoveredBatches).toBe(1)
    expect(again.listInFlight()).toEqual([])
    expect(again.claim(10, 1e9)!.texts).toHaveLength(3)
    again.close()
    first.close()
  })

  it('refuses a group whole under backpressure and stores it once space frees up', () => {
    const buffer = DecisionBuffer.open(options({ maxBytes: 1000 }))
    buffer.append(events(0, 8))
    expect(buffer.append(events(8, 3))).toEqual({ kind: 'full', needBytes: 300, freeBytes: 200 })
    expect(buffer.stats().events).toBe(8)
    buffer.acknowledge(buffer.claim(2, 1e9)!)
    expect(buffer.append(events(8, 3)).kind).toBe('stored')
    expect(buffer.stats()).toMatchObject({ events: 9, bytes: 900 })
    expect(buffer.append(events(0, 11))).toEqual({ kind: 'too_large', bytes: 1100, maxBytes: 1000 })
    buffer.close()
  })

  it('drop_oldest deletes exactly the oldest pending events it reports, never those in flight', () => {
    const drops: DropNotice[] = []
    const buffer = DecisionBuffer.open(
      options({ maxBytes: 1000, overflow: 'drop_oldest', onDrop: (d) => drops.push(d) }),
    )
    buffer.append(events(0, 10))
    const inFlight = buffer.claim(2, 1e9)!
    const outcome = buffer.append(events(10, 3))
    expect(outcome).toEqual({ kind: 'stored', events: 3, bytes: 300, droppedEvents: 3, droppedBytes: 300 })
    expect(drops).toEqual([{ reason: 'drop_oldest', events: 3, bytes: 300 }])
    // Events 2, 3 and 4 are gone; 0 and 1 (in flight) stay.
    const all = buffer.peek(100)
    expect(all).toEqual([...events(0, 2), ...events(5, 8)].map((e) => e.text))
    buffer.acknowledge(inFlight)
    expect(buffer.stats()).toMatchObject({ events: 8, bytes: 800 })
    buffer.close()
  })

  it('appends several groups in one transaction with an outcome each', () => {
    const buffer = DecisionBuffer.open(options({ maxBytes: 650 }))
    const outcomes = buffer.appendGroups([events(0, 3), events(3, 3), events(6, 1)])
    expect(outcomes.map((o) => o.kind)).toEqual(['stored', 'stored', 'full'])
    expect(buffer.stats().events).toBe(6)
    buffer.close()
  })

  it('keeps ingest order and every indexed field across multi-row inserts, in 16 KiB pages', () => {
    const buffer = DecisionBuffer.open(options({ maxBytes: 1e9 }))
    // Group sizes around the rows-per-statement chunk (64), so full and partial chunks mix.
    const sizes = [1, 63, 64, 65, 130, 7]
    const starts = sizes.map((_, k) => sizes.slice(0, k).reduce((a, b) => a + b, 0))
    const next = sizes.reduce((a, b) => a + b, 0)
    buffer.appendGroups(sizes.map((n, k) => events(starts[k]!, n)))
    buffer.close()
    const db = new Database(join(dir, 'decision-logs.db'), { readonly: true })
    expect(db.pragma('page_size', { simple: true })).toBe(16384)
    const rows = db
      .prepare('SELECT seq, decision_id, timestamp, agent_id, bytes, body FROM events ORDER BY seq')
      .all() as Array<Record<string, unknown>>
    db.close()
    expect(rows.map((r) => r.body)).toEqual(events(0, next).map((e) => e.text))
    expect(rows.map((r) => r.decision_id)).toEqual(events(0, next).map((e) => e.decisionId))
    expect(
      rows.every(
        (r) => r.timestamp === '2024-01-01T00:00:00Z' && r.agent_id === 'agent-1' && r.bytes === 100,
      ),
    ).toBe(true)
  })

  it('shrinks a claim and acknowledges or dead-letters parts of a batch', () => {
    const buffer = DecisionBuffer.open(options())
    buffer.append(events(0, 6))
    const batch = buffer.shrink(buffer.claim(6, 1e9)!, 4)
    expect(batch.seqs).toHaveLength(4)
    expect(batch.bytes).toBe(400)
    const middle = batch.seqs[1]!
    buffer.acknowledge(batch, batch.firstSeq, middle)
    expect(
      buffer.deadLetter(batch, { status: 400, reason: 'bad', attempts: 3 }, middle + 1, batch.lastSeq),
    ).toBe(2)
    expect(buffer.stats()).toMatchObject({
      events: 2,
      inFlightEvents: 0,
      deadEvents: 2,
      deadBatches: 1,
      deadBytes: 200,
    })
    const [dead] = buffer.listDeadBatches()
    expect(dead).toMatchObject({ events: 2, status: 400, reason: 'bad', attempts: 3 })
    expect(buffer.deadBatchEvents(dead!.id)).toEqual(events(2, 2).map((e) => e.text))
    // Re-driven events go to the tail, after what is pending.
    expect(buffer.redrive()).toEqual({ batches: 1, events: 2 })
    expect(buffer.peek(10)).toEqual([...events(4, 2), ...events(2, 2)].map((e) => e.text))
    expect(buffer.stats()).toMatchObject({ events: 4, deadEvents: 0, deadBatches: 0 })
    buffer.close()
  })

  it('keeps the dead-letter table within its bounds by dropping the oldest dead batches', () => {
    const drops: DropNotice[] = []
    const buffer = DecisionBuffer.open(options({ deadLetterMaxEvents: 5, onDrop: (d) => drops.push(d) }))
    buffer.append(events(0, 9))
    for (const size of [3, 3, 3]) {
      const batch = buffer.claim(size, 1e9)!
      buffer.deadLetter(batch, { status: 400, reason: 'bad', attempts: 1 })
    }
    expect(buffer.stats()).toMatchObject({ deadEvents: 3, deadBatches: 1 })
    expect(drops).toEqual([
      { reason: 'dead_letter_limit', events: 3, bytes: 300 },
      { reason: 'dead_letter_limit', events: 3, bytes: 300 },
    ])
    buffer.close()
  })

  it('sees changes made by another process (a redrive) through data_version', () => {
    const relay = DecisionBuffer.open(options())
    relay.append(events(0, 2))
    relay.deadLetter(relay.claim(2, 1e9)!, { status: 400, reason: 'bad', attempts: 1 })
    expect(relay.stats().events).toBe(0)
    const cli = DecisionBuffer.open(options({ integrityCheck: 'off' }))
    expect(cli.redrive()).toEqual({ batches: 1, events: 2 })
    cli.close()
    expect(relay.stats()).toMatchObject({ events: 2, bytes: 200, deadEvents: 0 })
    expect(relay.claim(10, 1e9)!.texts).toHaveLength(2)
    relay.close()
  })

  it('keeps seqs unique after the queue empties, so dead and live events never collide', () => {
    const buffer = DecisionBuffer.open(options())
    buffer.append(events(0, 2))
    buffer.deadLetter(buffer.claim(1, 1e9)!, { status: 400, reason: 'bad', attempts: 1 })
    buffer.acknowledge(buffer.claim(1, 1e9)!)
    buffer.append(events(2, 2))
    const next = buffer.claim(1, 1e9)!
    buffer.deadLetter(next, { status: 400, reason: 'bad', attempts: 1 })
    expect(buffer.stats()).toMatchObject({ deadEvents: 2, deadBatches: 2, events: 1 })
    buffer.close()
  })

  it('fails the write (nothing stored) when another process holds the lock past the busy timeout', () => {
    const buffer = DecisionBuffer.open(options({ busyTimeoutMs: 50 }))
    const other = new Database(join(dir, 'decision-logs.db'))
    other.prepare('BEGIN IMMEDIATE').run()
    expect(() => buffer.append(events(0, 1))).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }))
    other.prepare('ROLLBACK').run()
    other.close()
    expect(buffer.stats().events).toBe(0)
    expect(buffer.append(events(0, 1)).kind).toBe('stored')
    buffer.close()
  })

  it('moves a corrupt file aside and starts empty', () => {
    const path = join(dir, 'decision-logs.db')
    writeFileSync(path, 'this is not a database'.repeat(300))
    const buffer = DecisionBuffer.open(options())
    expect(buffer.quarantinedTo).toMatch(/decision-logs\.db\.corrupt-/)
    expect(readdirSync(dir).some((f) => f.includes('.corrupt-'))).toBe(true)
    expect(buffer.append(events(0, 1)).kind).toBe('stored')
    buffer.close()
  })

  it('persists across a clean close and reopen', () => {
    const first = DecisionBuffer.open(options({ sync: 'full' }))
    first.append(events(0, 3))
    first.close()
    first.close()
    const again = DecisionBuffer.open(options({ sync: 'full' }))
    expect(again.stats()).toMatchObject({ events: 3, bytes: 300 })
    expect(again.stats().oldestReceivedAt).toBeGreaterThan(Date.now() - 60_000)
    again.close()
  })
})
