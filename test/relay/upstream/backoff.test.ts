import { describe, expect, it } from 'vitest'
import { errorBackoffMs, sleep, successDelayMs } from '../../../plugins/bundle/backoff.js'

describe('backoff', () => {
  it('spreads success delays uniformly over [min, max]', () => {
    expect(successDelayMs(10, 20, () => 0)).toBe(10_000)
    expect(successDelayMs(10, 20, () => 0.5)).toBe(15_000)
    expect(successDelayMs(10, 20, () => 0.999)).toBeLessThanOrEqual(20_000)
  })

  it('grows errors as 100ms * 1.6^n, jittered by 20%, capped at max', () => {
    const mid = () => 0.5 // no jitter
    expect(errorBackoffMs(0, 120, mid)).toBe(0)
    expect(errorBackoffMs(1, 120, mid)).toBe(160)
    expect(errorBackoffMs(5, 120, mid)).toBe(Math.round(100 * 1.6 ** 5))
    expect(errorBackoffMs(50, 120, mid)).toBe(120_000)
    expect(errorBackoffMs(3, 120, () => 0)).toBe(Math.round(100 * 1.6 ** 3 * 0.8))
    expect(errorBackoffMs(3, 120, () => 1)).toBe(Math.round(100 * 1.6 ** 3 * 1.2))
    expect(errorBackoffMs(50, 120, () => 1)).toBe(120_000)
  })

  it('sleeps until aborted', async () => {
    const abort = new AbortController()
    const started = Date.now()
    setTimeout(() => abort.abort(), 20)
    await sleep(10_000, abort.signal)
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})
