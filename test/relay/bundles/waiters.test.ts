import { afterEach, describe, expect, it, vi } from 'vitest'
import { LongPollWaiters, TICK_MS, type WaitOutcome } from '../../../plugins/bundle/waiters.js'

describe('LongPollWaiters', () => {
  it('wakes every waiter of a resource at once and leaves others waiting', async () => {
    const waiters = new LongPollWaiters(100)
    const a = Array.from({ length: 50 }, () => waiters.wait('bundles/a', 10_000)!)
    const b = waiters.wait('bundles/b', 50)!
    expect(waiters.count).toBe(51)
    expect(waiters.wake('bundles/a')).toBe(50)
    expect(await Promise.all(a)).toEqual(Array(50).fill('promoted'))
    expect(waiters.count).toBe(1)
    expect(await b).toBe('timeout')
    expect(waiters.count).toBe(0)
  })

  it('refuses past the cap and counts aborted waits out', async () => {
    const waiters = new LongPollWaiters(2)
    const abort = new AbortController()
    const first = waiters.wait('r', 10_000, abort.signal)!
    const second = waiters.wait('r', 10_000)!
    expect(waiters.wait('r', 10_000)).toBeUndefined()
    abort.abort()
    expect(await first).toBe('aborted')
    expect(waiters.count).toBe(1)
    waiters.close()
    expect(await second).toBe('closed')
    expect(await waiters.wait('r', 10_000)).toBe('closed')
    expect(waiters.count).toBe(0)
  })

  describe('one shared timer wheel', () => {
    afterEach(() => vi.useRealTimers())

    it('ends a wait at its deadline, never before, and at most one tick after', () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] })
      const waiters = new LongPollWaiters(10)
      const ended: WaitOutcome[] = []
      waiters.hold('r', 1000, (o) => ended.push(o))
      waiters.hold('r', 3000, (o) => ended.push(o))
      vi.advanceTimersByTime(999)
      expect(ended).toEqual([])
      vi.advanceTimersByTime(1 + TICK_MS)
      expect(ended).toEqual(['timeout'])
      expect(waiters.count).toBe(1)
      vi.advanceTimersByTime(2000 + TICK_MS)
      expect(ended).toEqual(['timeout', 'timeout'])
    })

    it('runs its one interval only while something waits', () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] })
      const waiters = new LongPollWaiters(10)
      expect(vi.getTimerCount()).toBe(0)
      const held = Array.from({ length: 5 }, (_, i) => waiters.hold('r', 1000 * (i + 1), () => {})!)
      expect(vi.getTimerCount()).toBe(1)
      for (const waiter of held) waiters.release(waiter, 'aborted')
      expect(waiters.count).toBe(0)
      expect(vi.getTimerCount()).toBe(0)
    })

    it('calls back once per wait: a release after the end is a no-op', () => {
      const waiters = new LongPollWaiters(10)
      const ended: WaitOutcome[] = []
      const waiter = waiters.hold('r', 60_000, (o) => ended.push(o))!
      expect(waiters.wake('r')).toBe(1)
      waiters.release(waiter, 'aborted')
      expect(ended).toEqual(['promoted'])
      expect(waiters.count).toBe(0)
    })
  })
})
