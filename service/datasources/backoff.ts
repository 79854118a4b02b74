/**
 * When a datasource runs next. After a success: one polling interval later. After failures in a
 * row, the interval doubles with each (1, 2, 4, … intervals) up to five minutes, or one interval
 * when that is longer already, so a failing source is not hammered and recovers within bounds.
 */

/** The longest wait backoff alone adds (intervals above it are kept as they are). */
export const MAX_BACKOFF_MS = 5 * 60_000

/**
 * Milliseconds until the next run after `failures` failed runs in a row (0 after a success).
 * @example nextRunDelay(30_000, 3) // 120_000
 */
export function nextRunDelay(intervalMs: number, failures: number): number {
  if (failures <= 0) return intervalMs
  const backedOff = intervalMs * 2 ** Math.min(failures - 1, 30)
  return Math.min(backedOff, Math.max(intervalMs, MAX_BACKOFF_MS))
}
