import { describe, expect, it } from 'vitest'
import { BundleWatch } from '../../service/bundle-watch.js'

function watchOver(revisions: Map<string, string>, recheckMs: number | null) {
  return new BundleWatch({ readRevision: async (id) => revisions.get(id), recheckMs })
}

describe('BundleWatch', () => {
  it('wakes a waiter when a newer revision is announced, not for the known one', async () => {
    const watch = watchOver(new Map([['s', 'r1']]), null)
    const waiting = watch.waitForChange('s', 'policy', { known: 'r1', timeoutMs: 5000 })
    watch.notify('s', 'policy', 'r1')
    watch.notify('other', 'policy', 'r9')
    watch.notify('s', 'discovery', 'r9')
    setTimeout(() => watch.notify('s', 'policy', 'r2'), 20)
    expect(await waiting).toBe('r2')
    expect(watch.waiting).toBe(0)
  })

  it('ends without a change on timeout, abort and close', async () => {
    const watch = watchOver(new Map([['s', 'r1']]), null)
    expect(await watch.waitForChange('s', 'policy', { known: 'r1', timeoutMs: 30 })).toBeUndefined()
    const abort = new AbortController()
    const aborted = watch.waitForChange('s', 'policy', { known: 'r1', timeoutMs: 5000, signal: abort.signal })
    abort.abort()
    expect(await aborted).toBeUndefined()
    const closing = watch.waitForChange('s', 'policy', { known: 'r1', timeoutMs: 5000 })
    watch.close()
    expect(await closing).toBeUndefined()
    expect(await watch.waitForChange('s', 'policy', { known: 'r1', timeoutMs: 5000 })).toBeUndefined()
  })

  it('catches a build that landed before the wait subscribed', async () => {
    const watch = watchOver(new Map([['s', 'r2']]), null)
    expect(await watch.waitForChange('s', 'policy', { known: 'r1', timeoutMs: 5000 })).toBe('r2')
  })

  it('finds builds of other replicas by re-reading, once per watched bundle', async () => {
    const revisions = new Map([['s', 'r1']])
    let reads = 0
    const watch = new BundleWatch({
      readRevision: async (id) => {
        reads++
        return revisions.get(id)
      },
      recheckMs: 20,
    })
    const waiters = Array.from({ length: 50 }, () =>
      watch.waitForChange('s', 'policy', { known: 'r1', timeoutMs: 5000 }),
    )
    await new Promise((r) => setTimeout(r, 70))
    const readsWhileIdle = reads - 50 // one re-read per waiter at subscription
    expect(readsWhileIdle).toBeGreaterThan(0)
    expect(readsWhileIdle).toBeLessThan(10)
    revisions.set('s', 'r2')
    expect(await Promise.all(waiters)).toEqual(Array(50).fill('r2'))
    expect(watch.waiting).toBe(0)
  })
})
