/**
 * Long-poll waiters: agents holding `GET /v1/<resource>` with `Prefer: wait=N` until a newer
 * bundle is promoted. A promotion wakes every waiter of that resource at once (one pass over a
 * set, no per-waiter work beyond clearing its timer), and the total is capped so a crowd of
 * agents cannot hold unbounded sockets and timers.
 */

/** Why a wait ended. */
export type WaitOutcome = 'promoted' | 'timeout' | 'closed' | 'aborted'

interface Waiter {
  resolve(outcome: WaitOutcome): void
  timer: NodeJS.Timeout
}

/** The set of held requests, per resource. */
export class LongPollWaiters {
  private readonly byResource = new Map<string, Set<Waiter>>()
  private total = 0
  private closed = false

  constructor(private readonly maxWaiters: number) {}

  /** How many requests are held now. */
  get count(): number {
    return this.total
  }

  /**
   * Holds until `resource` is promoted, `waitMs` passes, `signal` aborts (the agent went away)
   * or the relay closes. Undefined when the cap is reached: the caller answers at once.
   */
  wait(resource: string, waitMs: number, signal?: AbortSignal): Promise<WaitOutcome> | undefined {
    if (this.closed) return Promise.resolve('closed')
    if (this.total >= this.maxWaiters) return undefined
    if (signal?.aborted) return Promise.resolve('aborted')
    let set = this.byResource.get(resource)
    if (!set) {
      set = new Set()
      this.byResource.set(resource, set)
    }
    const waiters = set
    this.total++
    return new Promise<WaitOutcome>((resolve) => {
      const finish = (outcome: WaitOutcome) => {
        if (!waiters.delete(waiter)) return
        this.total--
        clearTimeout(waiter.timer)
        signal?.removeEventListener('abort', onAbort)
        if (waiters.size === 0 && this.byResource.get(resource) === waiters) this.byResource.delete(resource)
        resolve(outcome)
      }
      const onAbort = () => finish('aborted')
      const waiter: Waiter = { resolve: finish, timer: setTimeout(() => finish('timeout'), waitMs) }
      waiters.add(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Wakes every waiter of `resource`; returns how many were woken. */
  wake(resource: string): number {
    const set = this.byResource.get(resource)
    if (!set) return 0
    const woken = [...set]
    for (const waiter of woken) waiter.resolve('promoted')
    return woken.length
  }

  /** Ends every wait (shutdown) and refuses new ones, so the server can close. */
  close(): void {
    this.closed = true
    for (const set of [...this.byResource.values()]) for (const waiter of [...set]) waiter.resolve('closed')
  }
}
