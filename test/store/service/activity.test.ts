/** The activity repository on SQLite and PostgreSQL: order, paging, filters, budgeted text scans. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ACTIVITY_SCAN_CHUNK_ROWS,
  type ActivityPosition,
  type NewActivity,
  type ServiceStore,
} from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../backends.js'

const BASE_US = 1_800_000_000_000_000
const ROWS = ACTIVITY_SCAN_CHUNK_ROWS * 2 + 10

function entry(i: number): NewActivity {
  return {
    requestId: i === 3 ? 'dup' : `r${i}`,
    // Pairs share a timestamp: the sequence breaks the tie.
    tsUs: BASE_US + Math.floor(i / 2) * 1000,
    activityClass: i % 2 === 0 ? 'audit' : 'activity',
    method: 'GET',
    path: '/v1/systems',
    requestedBy: `user-${i % 3}`,
    statusCode: i % 10 === 0 ? 403 : 200,
    outcome: i % 10 === 0 ? 'denied' : 'allowed',
    record: JSON.stringify({ n: i, note: i === 1 ? 'Needle-In-Haystack' : 'hay' }),
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`activity repository on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
      await store.activity.appendMany(Array.from({ length: ROWS }, (_, i) => entry(i)))
      await store.activity.append({ ...entry(ROWS), requestId: 'dup' })
    })
    afterAll(async () => close?.())

    it('pages in (time, sequence) order both ways without gaps or repeats', async () => {
      const seen: number[] = []
      let after: ActivityPosition | undefined
      for (let page = 0; page < 100; page++) {
        const rows = await store.activity.search({ order: 'ASC', limit: 997, ...(after ? { after } : {}) })
        seen.push(...rows.map((r) => JSON.parse(r.record).n as number))
        if (rows.length < 997) break
        after = rows.at(-1)!
      }
      expect(seen).toEqual(Array.from({ length: ROWS + 1 }, (_, i) => i))
      const newest = await store.activity.search({ order: 'DESC', limit: 3 })
      expect(newest.map((r) => JSON.parse(r.record).n)).toEqual([ROWS, ROWS - 1, ROWS - 2])
    })

    it('filters by class, outcome, time and request id; get answers the newest of an id', async () => {
      const audits = await store.activity.search({ order: 'ASC', limit: 5, activityClass: 'audit' })
      expect(audits.map((r) => r.activityClass)).toEqual(Array(5).fill('audit'))
      const denied = await store.activity.search({ order: 'ASC', limit: 3, outcome: 'denied' })
      expect(denied.map((r) => r.statusCode)).toEqual([403, 403, 403])
      const window = await store.activity.search({
        order: 'ASC',
        limit: 100,
        startUs: BASE_US + 1000,
        endUs: BASE_US + 2000,
      })
      expect(window.map((r) => JSON.parse(r.record).n)).toEqual([2, 3, 4, 5])
      const dup = await store.activity.search({ order: 'DESC', limit: 10, requestId: 'dup' })
      expect(dup.map((r) => JSON.parse(r.record).n)).toEqual([ROWS, 3])
      expect(JSON.parse((await store.activity.get('dup'))!.record).n).toBe(ROWS)
      expect(await store.activity.get('absent')).toBeUndefined()
    })

    it('scans text in chunks within a budget, and a search from where it stopped finds the rest', async () => {
      const query = { order: 'DESC' as const, limit: 10, terms: ['needle-in'] }
      const unbounded = await store.activity.search(query)
      expect(unbounded.map((r) => JSON.parse(r.record).n)).toEqual([1])
      // No budget: one chunk per call, each continuing where the last stopped.
      let after: ActivityPosition | undefined
      let found: number[] = []
      let calls = 0
      for (; calls < 100; calls++) {
        const { records, stoppedAt } = await store.activity.searchWithin(
          { ...query, ...(after ? { after } : {}) },
          0,
        )
        found = found.concat(records.map((r) => JSON.parse(r.record).n))
        if (!stoppedAt) break
        after = stoppedAt
      }
      expect(found).toEqual([1])
      expect(calls).toBe(2)
    })
  })
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`completing an activity record on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
    })
    afterAll(async () => close?.())

    it('appends inside a transaction, answers the sequence, and completes that row in place', async () => {
      const first = await store.transaction((tx) => tx.activity.append({ ...entry(1), requestId: 'change' }))
      const second = await store.activity.append({ ...entry(2), requestId: 'later' })
      expect(second).toBeGreaterThan(first)
      const completed = await store.activity.complete(first, {
        ...entry(1),
        requestId: 'change',
        statusCode: 500,
        outcome: 'error',
        record: JSON.stringify({ completed: true }),
      })
      expect(completed).toBe(true)
      const row = await store.activity.get('change')
      expect(row).toMatchObject({ seq: first, statusCode: 500, outcome: 'error', tsUs: entry(1).tsUs })
      expect(JSON.parse(row!.record)).toEqual({ completed: true })
      expect(await store.activity.count()).toBe(2)
      expect(await store.activity.complete(second + 1000, entry(3))).toBe(false)
    })

    it('keeps nothing of a record whose transaction rolled back', async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.activity.append({ ...entry(4), requestId: 'rolled-back' })
          throw new Error('the change failed')
        }),
      ).rejects.toThrow('the change failed')
      expect(await store.activity.get('rolled-back')).toBeUndefined()
    })
  })
}
