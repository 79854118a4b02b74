/**
 * PostgreSQL's text index is filled after intake (migration 0012): the progress mark must never
 * pass a decision whose insert is still open, or that decision would be neither indexed nor in
 * the unindexed tail searches check directly. Sequence numbers are taken at insert and commits
 * come in any order, so a later row can be visible before an earlier one.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NewDecision, ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore, type TestDatabase } from '../backends.js'

const postgres = BACKENDS.find((b) => b.name === 'postgres')!

function row(id: string): NewDecision {
  return {
    decisionId: id,
    systemId: 's',
    path: 'p',
    resultKind: 'ALLOWED',
    tsUs: 1,
    receivedUs: 1,
    raw: `{"decision_id":"${id}","note":"needle ${id}"}`,
  }
}

// Skipped without REGENT_TEST_PG_URL: the case is PostgreSQL's (SQLite has one writer at a time).
describe.skipIf(!postgres.available)('decision text progress on postgres', () => {
  let store: ServiceStore
  let close: () => Promise<void>
  let other: pg.Client
  let database: TestDatabase
  beforeAll(async () => {
    database = await postgres.create()
    ;({ store, close } = await openTestStore({ ...postgres, create: async () => database }))
    other = new pg.Client({ connectionString: database.url })
    await other.connect()
    await other.query(`SET search_path TO "${database.schema}", public`)
  })
  afterAll(async () => {
    await other?.end()
    await close?.()
  })

  const indexedIds = async () => {
    const { rows } = await other.query<{ seq: string }>('select seq from decision_texts order by seq')
    return rows.map((r) => Number(r.seq))
  }
  const seqOf = async (id: string) => {
    const { rows } = await other.query<{ seq: string }>('select seq from decisions where decision_id = $1', [
      id,
    ])
    return Number(rows[0]!.seq)
  }

  it('waits for an open insert with a lower sequence number before moving past it', async () => {
    await store.decisions.append([row('first')])
    expect(await store.decisions.indexText(100)).toBe(1)

    // An upload whose transaction is still open holds the lower number...
    await other.query('BEGIN')
    await other.query(
      `insert into decisions (decision_id, system_id, path, result_kind, ts_us, received_us, raw)
       values ('open', 's', 'p', 'ALLOWED', 1, 1, '{"note":"needle open"}')`,
    )
    // ...while a later one commits the higher number.
    await store.decisions.append([row('later')])
    const indexing = store.decisions.indexText(100)
    // Bounded wait until the indexer is seen waiting for the open insert (pg_locks is live,
    // not a snapshot, so the open transaction may read it).
    let waiting = 0
    for (let n = 0; n < 500 && waiting === 0; n++) {
      const { rows } = await other.query<{ n: string }>(
        `select count(*) as n from pg_locks where not granted and relation = 'decisions'::regclass`,
      )
      waiting = Number(rows[0]!.n)
      if (waiting === 0) await new Promise((r) => setTimeout(r, 10))
    }
    expect(waiting).toBe(1)
    await other.query('COMMIT')
    expect(await indexing).toBe(2)
    const open = await seqOf('open')
    expect(open).toBeLessThan(await seqOf('later'))
    expect(await indexedIds()).toEqual([await seqOf('first'), open, await seqOf('later')])
    const found = await store.decisions.search({
      order: 'ASC',
      limit: 10,
      terms: [{ kind: 'text', value: 'NEEDLE' }],
    })
    expect(found.map((d) => d.decisionId)).toEqual(['first', 'open', 'later'])
  })
})
