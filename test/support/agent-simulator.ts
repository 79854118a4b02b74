/**
 * A small stand-in for an OPA agent's bundle downloader (download.go), for tests and benches:
 * it keeps the last ETag and sends it as `If-None-Match`; in long-poll mode it sends
 * `Prefer: modes=snapshot,delta;wait=N` and re-requests at once after each answer, staying in
 * that mode only while 200s carry `application/vnd.openpolicyagent.bundles`; on any error it
 * clears the ETag (the next request is unconditional) and backs off.
 */
import { Agent, type Dispatcher, request } from 'undici'
import { readBundle } from '../../core/bundle/index.js'

export interface AgentSimulatorOptions {
  /** Full URL of the bundle, e.g. `http://127.0.0.1:8282/v1/bundles/authz`. */
  url: string
  /** `long_polling_timeout_seconds`; undefined polls periodically. */
  longPollSeconds?: number
  /** Delay between periodic polls (ms). */
  pollIntervalMs?: number
  /** Delay after an error (ms). */
  errorDelayMs?: number
  /** Read the revision from each downloaded bundle (off for benches). */
  readRevision?: boolean
  headers?: Record<string, string>
  dispatcher?: Dispatcher
}

/** One activation: a 200 the agent took. */
export interface Activation {
  etag: string
  revision?: string
  at: number
}

/** A simulated agent. */
export class AgentSimulator {
  etag?: string
  revision?: string
  readonly activations: Activation[] = []
  readonly statusCodes: number[] = []
  longPolling: boolean
  private running = false
  private loopDone?: Promise<void>
  private readonly abort = new AbortController()
  private readonly listeners = new Set<() => void>()

  constructor(private readonly options: AgentSimulatorOptions) {
    this.longPolling = options.longPollSeconds !== undefined
  }

  /** One request; returns its status code (0 for a network error). */
  async pollOnce(): Promise<number> {
    const headers: Record<string, string> = {
      Prefer: this.longPolling
        ? `modes=snapshot,delta;wait=${this.options.longPollSeconds}`
        : 'modes=snapshot,delta',
      'User-Agent': 'Open Policy Agent/simulated',
      ...this.options.headers,
    }
    if (this.etag) headers['If-None-Match'] = this.etag
    try {
      const res = await request(this.options.url, {
        headers,
        dispatcher: this.options.dispatcher,
        signal: this.abort.signal,
        headersTimeout: 0,
      })
      this.statusCodes.push(res.statusCode)
      if (res.statusCode === 200) {
        const bytes = new Uint8Array(await res.body.arrayBuffer())
        const etag = (res.headers.etag as string | undefined) ?? ''
        this.longPolling =
          this.options.longPollSeconds !== undefined &&
          res.headers['content-type'] === 'application/vnd.openpolicyagent.bundles'
        const revision =
          this.options.readRevision === false ? undefined : (await readBundle(bytes)).manifest.revision
        this.etag = etag || undefined
        this.revision = revision
        this.activations.push({ etag, revision, at: performance.now() })
        for (const listener of this.listeners) listener()
      } else if (res.statusCode === 304) {
        await res.body.dump()
        const etag = res.headers.etag as string | undefined
        if (etag) this.etag = etag
      } else {
        await res.body.dump()
        this.etag = undefined
      }
      return res.statusCode
    } catch {
      this.statusCodes.push(0)
      this.etag = undefined
      return 0
    }
  }

  /** Polls in a loop until stopped. */
  start(): this {
    this.running = true
    this.loopDone = (async () => {
      while (this.running) {
        const code = await this.pollOnce()
        if (!this.running) break
        const ok = code === 200 || code === 304
        const delay = !ok
          ? (this.options.errorDelayMs ?? 100)
          : this.longPolling
            ? 0
            : (this.options.pollIntervalMs ?? 100)
        if (delay > 0) await new Promise((r) => setTimeout(r, delay))
      }
    })()
    return this
  }

  /** Resolves once the agent has activated `revision`; rejects after `timeoutMs`. */
  waitForRevision(revision: string, timeoutMs = 10_000): Promise<void> {
    if (this.revision === revision) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(check)
        reject(new Error(`agent did not activate ${revision} within ${timeoutMs} ms (has ${this.revision})`))
      }, timeoutMs)
      const check = () => {
        if (this.revision !== revision) return
        clearTimeout(timer)
        this.listeners.delete(check)
        resolve()
      }
      this.listeners.add(check)
    })
  }

  /** Stops the loop, aborting a held request. */
  async stop(): Promise<void> {
    this.running = false
    this.abort.abort()
    await this.loopDone
  }
}

/** An undici dispatcher for many simulated agents (one connection each, no pool limit). */
export function agentDispatcher(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, connections: null })
}
