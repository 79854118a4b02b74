/**
 * Long-poll waiters: agents holding `GET /v1/<resource>` with `Prefer: wait=N` until a newer
 * bundle is promoted. A promotion wakes every waiter of that resource at once (one pass over a
 * set), and the total is capped so a crowd of agents cannot hold unbounded sockets.
 *
 * NOTE(relay): memory per held request is what scales with the fleet (10,000 agents per relay),
 * so a waiter is one small object: no promise, no AbortController, no timer of its own. Waits
 * end on one shared timer wheel: deadlines are kept in buckets of TICK_MS and one interval,
 * running only while something waits, ends the buckets that are due. A wait therefore ends up to
 * TICK_MS after its deadline, never before.
 */

/** Why a wait ended. */
export type WaitOutcome = 'promoted' | 'timeout' | 'closed' | 'aborted'

/** Granularity of wait deadlines (the wheel's tick). */
export const TICK_MS = 250

/** One held request (opaque to callers: pass it back to `release`). */
export interface Waiter {
  readonly resource: string
  /** The resource's set while registered; undefined once ended. */
  set: Set<Waiter> | undefined
  bucket: number
  readonly onEnd: (outcome: WaitOutcome) => void
}

/** The set of held requests, per resource. */
export class LongPollWaiters {
  private readonly byResource = new Map<string, Set<Waiter>>()
  /** Waiters by deadline bucket (performance.now() / TICK_MS, rounded up). */
  private readonly buckets = new Map<number, Set<Waiter>>()
  private wheel: NodeJS.Timeout | undefined
  private total = 0
  private closed = false

  constructor(private readonly maxWaiters: number) {}

  /** How many requests are held now. */
  get count(): number {
    return this.total
  }

  /**
   * Holds until `resource` is promoted, `waitMs` passes or `release` ends it; `onEnd` is called
   * once with the outcome (asynchronously when the relay is already closed). Undefined when the
   * cap is reached: the caller answers at once.
   */
  hold(resource: string, waitMs: number, onEnd: (outcome: WaitOutcome) => void): Waiter | undefined {
    const waiter: Waiter = { resource, set: undefined, bucket: 0, onEnd }
    if (this.closed) {
      queueMicrotask(() => onEnd('closed'))
      return waiter
    }
    if (this.total >= this.maxWaiters) return undefined
    let set = this.byResource.get(resource)
    if (!set) {
      set = new Set()
      this.byResource.set(resource, set)
    }
    set.add(waiter)
    waiter.set = set
    waiter.bucket = Math.ceil((performance.now() + waitMs) / TICK_MS)
    let bucket = this.buckets.get(waiter.bucket)
    if (!bucket) {
      bucket = new Set()
      this.buckets.set(waiter.bucket, bucket)
    }
    bucket.add(waiter)
    this.total++
    if (!this.wheel) {
      this.wheel = setInterval(() => this.sweep(), TICK_MS)
      this.wheel.unref()
    }
    return waiter
  }

  /** Ends a wait with `outcome` (the agent went away: 'aborted'); a no-op once it has ended. */
  release(waiter: Waiter, outcome: WaitOutcome): void {
    const set = waiter.set
    if (!set?.delete(waiter)) return
    waiter.set = undefined
    this.total--
    const bucket = this.buckets.get(waiter.bucket)
    if (bucket?.delete(waiter) && bucket.size === 0) this.buckets.delete(waiter.bucket)
    if (set.size === 0 && this.byResource.get(waiter.resource) === set)
      this.byResource.delete(waiter.resource)
    if (this.total === 0 && this.wheel) {
      clearInterval(this.wheel)
      this.wheel = undefined
    }
    waiter.onEnd(outcome)
  }

  /**
   * `hold` as a promise: resolves with the outcome; `signal` aborting ends it ('aborted').
   * Undefined when the cap is reached.
   */
  wait(resource: string, waitMs: number, signal?: AbortSignal): Promise<WaitOutcome> | undefined {
    if (this.closed) return Promise.resolve('closed')
    if (this.total >= this.maxWaiters) return undefined
    if (signal?.aborted) return Promise.resolve('aborted')
    return new Promise<WaitOutcome>((resolve) => {
      const onAbort = () => this.release(waiter, 'aborted')
      const waiter = this.hold(resource, waitMs, (outcome) => {
        signal?.removeEventListener('abort', onAbort)
        resolve(outcome)
      }) as Waiter
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Wakes every waiter of `resource`; returns how many were woken. */
  wake(resource: string): number {
    const set = this.byResource.get(resource)
    if (!set) return 0
    const woken = [...set]
    for (const waiter of woken) this.release(waiter, 'promoted')
    return woken.length
  }

  /** Ends every wait (shutdown) and refuses new ones, so the server can close. */
  close(): void {
    this.closed = true
    for (const set of [...this.byResource.values()])
      for (const waiter of [...set]) this.release(waiter, 'closed')
  }

  /** Ends the waits whose bucket is due. */
  private sweep(): void {
    const now = performance.now() / TICK_MS
    for (const [bucket, waiters] of this.buckets) {
      if (bucket > now) continue
      for (const waiter of [...waiters]) this.release(waiter, 'timeout')
    }
  }
}
