/** Retention of the activity log by age and by rows, counted in metrics, on both databases. */
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ActivityRetention } from '../../../service/activity/retention.js'
import { createServiceMetrics, type ServiceMetrics } from '../../../service/metrics.js'
import type { NewActivity, ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../../store/backends.js'

const NOW = Date.parse('2026-06-01T00:00:00Z')
const DAY_MS = 86_400_000

function entry(i: number, ageDays: number): NewActivity {
  return {
    requestId: `r${i}`,
    tsUs: (NOW - ageDays * DAY_MS) * 1000,
    activityClass: 'activity',
    method: 'GET',
    path: '/v1/systems',
    requestedBy: 'admin',
    statusCode: 200,
    outcome: 'allowed',
    record: '{}',
  }
}

async function deletedCount(metrics: ServiceMetrics, reason: string): Promise<number> {
  const metric = await metrics.activityDeleted.get()
  return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`activity retention on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    let metrics: ServiceMetrics
    beforeEach(async () => {
      ;({ store, close } = await openTestStore(backend))
      metrics = createServiceMetrics()
    })
    afterEach(async () => close?.())

    const retention = (maxAgeMs: number, maxRows: number) =>
      new ActivityRetention({
        store,
        metrics,
        logger: pino({ level: 'silent' }),
        limits: { maxAgeMs, maxRows },
        intervalMs: 60_000,
        batchRows: 7,
      })

    it('deletes records older than max_age, in batches, and counts them', async () => {
      // 30 old (40 days) and 5 recent (1 day), interleaved in insertion order.
      await store.activity.appendMany(Array.from({ length: 35 }, (_, i) => entry(i, i % 7 === 0 ? 1 : 40)))
      const deleted = await retention(30 * DAY_MS, 0).applyOnce(NOW)
      expect(deleted).toEqual({ maxAge: 30, maxRows: 0 })
      expect(await store.activity.count()).toBe(5)
      expect(await deletedCount(metrics, 'max_age')).toBe(30)
      // A second pass finds nothing.
      expect((await retention(30 * DAY_MS, 0).applyOnce(NOW)).maxAge).toBe(0)
    })

    it('keeps only the newest max_rows', async () => {
      await store.activity.appendMany(Array.from({ length: 20 }, (_, i) => entry(i, 20 - i)))
      const deleted = await retention(0, 8).applyOnce(NOW)
      expect(deleted).toEqual({ maxAge: 0, maxRows: 12 })
      const left = await store.activity.search({ order: 'ASC', limit: 100 })
      expect(left.map((r) => r.requestId)).toEqual(Array.from({ length: 8 }, (_, i) => `r${i + 12}`))
      expect(await deletedCount(metrics, 'max_rows')).toBe(12)
    })

    it('keeps everything when both bounds are off', async () => {
      await store.activity.appendMany(Array.from({ length: 5 }, (_, i) => entry(i, 1000)))
      expect(await retention(0, 0).applyOnce(NOW)).toEqual({ maxAge: 0, maxRows: 0 })
      expect(await store.activity.count()).toBe(5)
    })
  })
}
