import { describe, expect, it } from 'vitest'
import { LongPollWaiters } from '../../../plugins/bundle/waiters.js'

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
})
