/**
 * Delays between upstream requests, as an OPA agent spaces them (download.go, util/backoff.go):
 * after a success a uniform random delay in [min, max]; after the n-th consecutive error
 * `100ms * 1.6^n` capped at max and jittered by ±20% (the first retry waits nothing).
 *
 * NOTE(relay): p-retry suits bounded retries of one operation; a puller is an endless loop
 * whose delay also depends on success, so the two formulas live here instead.
 */

const BASE_MS = 100
const FACTOR = 1.6
const JITTER = 0.2

/** The delay after a success, uniform in [minSeconds, maxSeconds]. */
export function successDelayMs(
  minSeconds: number,
  maxSeconds: number,
  random: () => number = Math.random,
): number {
  return Math.round((minSeconds + random() * (maxSeconds - minSeconds)) * 1000)
}

/** The delay before retry number `retry` (0 for the first) after errors, capped at `maxSeconds`. */
export function errorBackoffMs(
  retry: number,
  maxSeconds: number,
  random: () => number = Math.random,
): number {
  if (retry <= 0) return 0
  const capped = Math.min(BASE_MS * FACTOR ** retry, maxSeconds * 1000)
  const jittered = capped * (1 + JITTER * (random() * 2 - 1))
  return Math.round(Math.min(jittered, maxSeconds * 1000))
}

/** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
