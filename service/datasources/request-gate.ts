/**
 * The RateLimiter and ParallelismLimiter mix-ins at work: every request a run sends to its
 * source passes `gate.run`, which waits for a free slot (at most `parallel` in flight) and for
 * the rate (at most `rateLimit` starts per second, spaced evenly, no bursts). Clock and sleep are
 * injectable so the spacing is tested without timing.
 */

export interface RequestGateOptions {
  /** Requests started per second at most; Infinity for no limit. */
  rateLimit: number
  /** Requests in flight at most. */
  parallel: number
  now?: () => number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

const realSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })

/** Limits the requests of one run. */
export class RequestGate {
  private inFlight = 0
  private readonly waiting: Array<() => void> = []
  private nextStartAt = 0
  private readonly now: () => number
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>

  constructor(private readonly options: RequestGateOptions) {
    this.now = options.now ?? Date.now
    this.sleep = options.sleep ?? realSleep
  }

  /** A gate that never waits (categories with one request per run and no RateLimiter). */
  static unlimited(): RequestGate {
    return new RequestGate({ rateLimit: Number.POSITIVE_INFINITY, parallel: Number.POSITIVE_INFINITY })
  }

  /** Runs `request` once a slot and the rate allow; the slot is freed when it settles. */
  async run<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquireSlot()
    try {
      await this.waitForRate(signal)
      return await request()
    } finally {
      this.releaseSlot()
    }
  }

  private acquireSlot(): Promise<void> {
    if (this.inFlight < this.options.parallel) {
      this.inFlight++
      return Promise.resolve()
    }
    // The releasing request hands its slot over: inFlight stays the same.
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  private releaseSlot(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.inFlight--
  }

  private async waitForRate(signal?: AbortSignal): Promise<void> {
    if (!Number.isFinite(this.options.rateLimit)) return
    const spacing = 1000 / this.options.rateLimit
    const now = this.now()
    const startAt = Math.max(now, this.nextStartAt)
    this.nextStartAt = startAt + spacing
    if (startAt > now) await this.sleep(startAt - now, signal)
  }
}
