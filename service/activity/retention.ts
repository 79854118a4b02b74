/**
 * Keeps the activity log bounded (`service.activity.retention`): every `interval` it deletes
 * records older than `max_age`, then the oldest beyond the newest `max_rows`, in batches of short
 * statements (the log stays writable meanwhile), counting deletions in
 * `regent_service_activity_deleted_total{reason}`. Several replicas may run it at once: deletes
 * of the same rows simply find nothing.
 */
import type { Logger } from 'pino'
import { BackgroundLoop } from '../../core/background-loop.js'
import type { ServiceStore } from '../../store/service/index.js'
import type { ServiceMetrics } from '../metrics.js'

export interface RetentionLimits {
  /** Milliseconds a record is kept; 0: no age limit. */
  maxAgeMs: number
  /** Records kept at most; 0: no row limit. */
  maxRows: number
}

export interface ActivityRetentionOptions {
  store: ServiceStore
  metrics: ServiceMetrics
  logger: Logger
  limits: RetentionLimits
  intervalMs: number
  /** Rows deleted per statement. */
  batchRows?: number
}

// One pass deletes at most this many batches (10M rows at the default batch) and resumes next time.
const MAX_BATCHES_PER_PASS = 1000

/** Applies retention now and then, until stopped. */
export class ActivityRetention {
  private readonly loop = new BackgroundLoop(async () => {
    await this.applyOnce()
    return this.options.intervalMs
  })

  constructor(private readonly options: ActivityRetentionOptions) {}

  /** Starts: the first pass right away, then one every interval. */
  start(): void {
    this.loop.start()
  }

  /** Stops after the pass in progress, if any. */
  stop(): Promise<void> {
    return this.loop.stop()
  }

  /**
   * One pass; resolves to the number deleted by each bound. Failures are logged and retried at
   * the next interval.
   */
  async applyOnce(now = Date.now()): Promise<{ maxAge: number; maxRows: number }> {
    const { store, metrics, limits, batchRows = 10_000 } = this.options
    const deleted = { maxAge: 0, maxRows: 0 }
    try {
      if (limits.maxAgeMs > 0) {
        const beforeUs = (now - limits.maxAgeMs) * 1000
        deleted.maxAge = await inBatches(
          (n) => store.activity.deleteOlderThan(beforeUs, n),
          batchRows,
          (n) => metrics.activityDeleted.inc({ reason: 'max_age' }, n),
        )
      }
      if (limits.maxRows > 0) {
        deleted.maxRows = await inBatches(
          (n) => store.activity.deleteBeyondNewest(limits.maxRows, n),
          batchRows,
          (n) => metrics.activityDeleted.inc({ reason: 'max_rows' }, n),
        )
      }
      if (deleted.maxAge + deleted.maxRows > 0) {
        this.options.logger.info(
          { deleted_by_age: deleted.maxAge, deleted_by_rows: deleted.maxRows },
          'activity retention applied',
        )
      }
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'activity retention failed; retrying later')
    }
    return deleted
  }
}

async function inBatches(
  deleteBatch: (maxRows: number) => Promise<number>,
  batchRows: number,
  counted: (n: number) => void,
): Promise<number> {
  let total = 0
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const n = await deleteBatch(batchRows)
    if (n > 0) counted(n)
    total += n
    if (n < batchRows) break
  }
  return total
}
