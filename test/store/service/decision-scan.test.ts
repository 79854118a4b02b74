/**
 * The decision search's chunked scan, time budget and full-text index (store/service/decision-scan.ts)
 * must answer exactly what a plain scan answers. Each search here is compared with the same
 * filter computed in JavaScript over the generated rows, on a log of several chunks so the scan
 * crosses chunk boundaries and rare terms go through the index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type ServiceDatabase } from '../../../store/database.js'
import { migrateToLatest } from '../../../store/migrations/index.js'
import {
  type DecisionQuery,
  DecisionRepository,
  DecisionScanner,
  type NewDecision,
  SCAN_CHUNK_ROWS,
  type SearchTerm,
  type ServiceStore,
} from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../backends.js'

const ROWS = Math.floor(SCAN_CHUNK_ROWS * 2.5)
const NEEDLES = new Set([17, 5000, 9100]) // none in the newest chunk, so the index answers them
const INDEXED = 7000

function row(i: number): NewDecision {
  const needle = NEEDLES.has(i) ? ',"note":"a Needle-7 here"' : ''
  const short = i === 4321 ? ',"tag":"zq"' : ''
  const user = i === 777 ? 'rare-user' : `u${i % 40}`
  return {
    decisionId: `d${i}`,
    systemId: i % 3 === 0 ? 'sys-b' : 'sys-a',
    path: 'app/allow',
    resultKind: i % 2 === 0 ? 'ALLOWED' : 'DENIED',
    // Several decisions share a timestamp, so the order's tie-break on seq is exercised.
    tsUs: 1_700_000_000_000_000 + Math.floor(i / 3) * 1000,
    receivedUs: 1_700_000_000_000_000,
    raw: `{"decision_id":"d${i}","input":{"user":"${user}"},"result":${i % 2 === 0}${needle}${short},"x":"dle-7"}`,
  }
}

const ascii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** The same search in JavaScript: every row, filtered, in order. */
function expected(rows: NewDecision[], query: Omit<DecisionQuery, 'limit'>): string[] {
  const matches = rows.filter((r) => {
    if (query.systemIds && !query.systemIds.includes(r.systemId!)) return false
    if (query.resultKinds && !query.resultKinds.includes(r.resultKind)) return false
    return (query.terms ?? []).every((t) => {
      let hit: boolean
      if (t.kind === 'text') hit = ascii(r.raw).includes(ascii(t.value))
      else if (t.kind === 'field') hit = JSON.parse(r.raw).input.user === t.value
      else throw new Error('not used here')
      return t.negate ? !hit : hit
    })
  })
  const seq = (r: NewDecision) => Number(r.decisionId.slice(1))
  matches.sort((a, b) => a.tsUs - b.tsUs || seq(a) - seq(b))
  if (query.order === 'DESC') matches.reverse()
  return matches.map((r) => r.decisionId)
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`decision search scan and index on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    const rows = Array.from({ length: ROWS }, (_, i) => row(i))
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
      // The older rows go into the text index; the newest stay a tail not indexed yet, which
      // searches must check directly (d9100 holds the rare term there).
      for (let i = 0; i < INDEXED; i += 2000)
        await store.decisions.append(rows.slice(i, Math.min(i + 2000, INDEXED)))
      let indexed = 0
      for (let n = 0; n < 100; n++) {
        const batch = await store.decisions.indexText(1000)
        indexed += batch
        if (batch === 0) break
      }
      expect(indexed).toBe(INDEXED)
      for (let i = INDEXED; i < rows.length; i += 2000) await store.decisions.append(rows.slice(i, i + 2000))
    }, 60_000)
    afterAll(async () => close?.())

    const text = (value: string, negate = false): SearchTerm => ({ kind: 'text', value, negate })
    const cases: Array<[string, Omit<DecisionQuery, 'limit'>]> = [
      ['a rare term (index)', { order: 'DESC', terms: [text('needle-7')] }],
      ['a rare term in capitals, ascending', { order: 'ASC', terms: [text('NEEDLE-7')] }],
      ['a rare term within a system', { order: 'DESC', systemIds: ['sys-a'], terms: [text('Needle')] }],
      ['two terms', { order: 'DESC', terms: [text('needle'), text('"result":false')] }],
      ['LIKE wildcards are literal', { order: 'DESC', terms: [text('dle_7')] }],
      [
        'a field term (index)',
        { order: 'DESC', terms: [{ kind: 'field', pointer: ['input', 'user'], value: 'rare-user' }] },
      ],
      ['a short term (scan)', { order: 'DESC', terms: [text('zq')] }],
      ['a rare result kind with a term', { order: 'ASC', resultKinds: ['DENIED'], terms: [text('needle')] }],
      [
        'a negated term (scan)',
        { order: 'DESC', systemIds: ['sys-b'], terms: [text('u1', true), text('needle', true)] },
      ],
    ]
    for (const [name, query] of cases) {
      it(`finds exactly what a plain scan finds: ${name}`, async () => {
        const want = expected(rows, query)
        const all = await store.decisions.search({ ...query, limit: 50 })
        expect(all.map((d) => d.decisionId)).toEqual(want.slice(0, 50))
        // Paging two at a time gives the same sequence.
        const paged: string[] = []
        let after: DecisionQuery['after']
        for (let n = 0; n < 10; n++) {
          const page = await store.decisions.search({ ...query, limit: 2, after })
          paged.push(...page.map((d) => d.decisionId))
          if (page.length < 2) break
          after = { tsUs: page[1]!.tsUs, seq: page[1]!.seq }
        }
        expect(paged).toEqual(want.slice(0, paged.length))
        expect(paged.length).toBe(Math.min(want.length, 20))
      })
    }

    it('stops at its budget with a position to continue from, and continuing finds the rest', async () => {
      // A budget of 0 ms stops after every chunk: the scan is cut short, never wrong.
      const query: DecisionQuery = { order: 'DESC', limit: 100, terms: [text('zq')] }
      const found: string[] = []
      const stops: number[] = []
      let after: DecisionQuery['after']
      for (let n = 0; n < 10; n++) {
        const page = await store.decisions.searchWithin({ ...query, after }, 0)
        found.push(...page.decisions.map((d) => d.decisionId))
        if (!page.stoppedAt) break
        stops.push(page.stoppedAt.seq)
        after = page.stoppedAt
      }
      expect(found).toEqual(['d4321'])
      expect(stops.length).toBeGreaterThanOrEqual(2) // cut short at each chunk boundary
    })
  })
}

describe('decision search when the text index names too many rows (sqlite)', () => {
  let database: ServiceDatabase
  let cleanup: () => Promise<void>
  const rows = Array.from({ length: ROWS }, (_, i) => row(i))
  beforeAll(async () => {
    const created = await BACKENDS[0]!.create()
    cleanup = created.cleanup
    database = await openDatabase({ url: created.url })
    await migrateToLatest(database)
    const repository = new DecisionRepository(database.db, database.dialect)
    for (let i = 0; i < rows.length; i += 2000) await repository.append(rows.slice(i, i + 2000))
  }, 60_000)
  afterAll(async () => {
    await database?.close()
    await cleanup?.()
  })

  it('goes on with the chunked scan, and finds the same rows', async () => {
    const query: DecisionQuery = { order: 'DESC', limit: 50, terms: [{ kind: 'text', value: 'needle-7' }] }
    const want = expected(rows, query)
    // A cap of 2: first every row is an unindexed tail, then (all indexed) the 3 needles exceed it.
    const scanner = new DecisionScanner(database.db, database.dialect, 2)
    const seqs = (found: { rows: Array<{ decision_id: string }> }) => found.rows.map((r) => r.decision_id)
    expect(seqs(await scanner.search(query, Number.POSITIVE_INFINITY))).toEqual(want)
    while ((await scanner.indexText(5000)) > 0) {}
    expect(seqs(await scanner.search(query, Number.POSITIVE_INFINITY))).toEqual(want)
    // With the cap out of the way the index answers, with the same rows.
    expect(seqs(await new DecisionScanner(database.db, database.dialect).search(query, 1000))).toEqual(want)
  })
})
