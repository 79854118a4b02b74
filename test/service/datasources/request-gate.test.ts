import { describe, expect, it } from 'vitest'
import { nextRunDelay } from '../../../service/datasources/backoff.js'
import { RequestGate } from '../../../service/datasources/request-gate.js'

describe('RequestGate', () => {
  it('keeps at most `parallel` requests in flight', async () => {
    const gate = new RequestGate({ rateLimit: Number.POSITIVE_INFINITY, parallel: 2 })
    let inFlight = 0
    let most = 0
    const releases: Array<() => void> = []
    const request = () =>
      gate.run(async () => {
        inFlight++
        most = Math.max(most, inFlight)
        await new Promise<void>((resolve) => releases.push(resolve))
        inFlight--
      })
    const all = Promise.all([request(), request(), request(), request(), request()])
    for (let released = 0; released < 5; released++) {
      while (releases.length === 0) await new Promise((r) => setImmediate(r))
      expect(inFlight).toBeLessThanOrEqual(2)
      releases.shift()!()
    }
    await all
    expect(most).toBe(2)
  })

  it('spaces request starts by 1/rate_limit seconds, without bursts', async () => {
    let clock = 1_000
    const slept: number[] = []
    const gate = new RequestGate({
      rateLimit: 4,
      parallel: 10,
      now: () => clock,
      sleep: async (ms) => {
        slept.push(ms)
      },
    })
    const starts: number[] = []
    await Promise.all([0, 1, 2, 3].map(() => gate.run(async () => starts.push(clock))))
    // All four asked at t=1000: the first goes at once, the others wait 250, 500, 750 ms.
    expect(slept).toEqual([250, 500, 750])
    clock = 3_000
    slept.length = 0
    await gate.run(async () => undefined)
    expect(slept).toEqual([])
  })
})

describe('nextRunDelay', () => {
  it('waits one interval after a success and doubles after each failure, up to 5 minutes', () => {
    expect(nextRunDelay(30_000, 0)).toBe(30_000)
    expect([1, 2, 3, 4, 5, 6].map((f) => nextRunDelay(30_000, f))).toEqual([
      30_000, 60_000, 120_000, 240_000, 300_000, 300_000,
    ])
    expect(nextRunDelay(3_600_000, 5)).toBe(3_600_000)
  })
})
