/**
 * One puller per target: an endless loop that fetches the bundle from upstream the way an OPA
 * agent does (conditional GET, optional long poll, jittered delays, capped exponential backoff),
 * verifies what it gets and promotes it. Nothing that goes wrong upstream reaches agents: a
 * failure is recorded, counted and logged, and the last good bundle keeps being served.
 */
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import type { PluginMetrics } from '../metrics.js'
import type { ServiceClient } from '../rest/service-client.js'
import { errorBackoffMs, sleep, successDelayMs } from './backoff.js'
import type { BundleCache, TargetState } from './bundle-cache.js'
import { fetchBundle, LONG_POLL_CONTENT_TYPE, UpstreamError } from './fetch-bundle.js'
import type { Target } from './targets.js'
import { BundleRejected, type VerifiedBundle, verifyDownload } from './verify.js'

/** Called after each promotion (discovery uses it to learn bundles). */
export type PromotionListener = (target: Target, verified: VerifiedBundle) => void | Promise<void>

export interface PullerOptions {
  target: Target
  client: ServiceClient
  cache: BundleCache
  metrics: PluginMetrics
  logger: Logger
  onPromote?: PromotionListener
  /** Called after every upstream exchange, successful or not (status reporting). */
  onContact?: (at: Date, ok: boolean) => void
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number
}

/** The longest a refused bundle is left alone before it is fetched again. */
const REFUSED_RETRY_CAP_MS = 60 * 60 * 1000

/** Pulls one target until stopped. */
export class BundlePuller {
  private readonly abort = new AbortController()
  private running?: Promise<void>
  private retry = 0
  /** OPA turns long polling off when a 200 comes back with another media type. */
  private longPoll: boolean
  private readonly state: TargetState
  private readonly log: Logger
  /**
   * The last download refused (by verification, or for its size). Until `retryAt` its ETag is
   * sent in If-None-Match and its body is not read, and without an ETag its digest spares a
   * second verification. Then it is fetched once more, in case the refusal had a passing cause
   * (a proxy cutting the body short looks like a corrupt archive); each refusal of the same
   * bundle doubles the wait, from twice max_delay_seconds up to an hour.
   */
  private refused?: { etag?: string; digest?: string; times: number; retryAt: number }

  constructor(private readonly options: PullerOptions) {
    this.state = options.cache.add(options.target)
    this.longPoll = options.target.longPollingTimeoutSeconds !== undefined
    this.log = options.logger.child({ kind: options.target.kind, bundle: options.target.name })
  }

  /** Starts the loop (idempotent). */
  start(): void {
    this.running ??= this.loop()
  }

  /** Stops the loop, aborting a request in flight, and waits for it to end. */
  async stop(): Promise<void> {
    this.abort.abort()
    await this.running
  }

  /** One download attempt; returns the delay before the next. Exposed for tests. */
  async pullOnce(): Promise<number> {
    const { target, client, metrics } = this.options
    const labels = { kind: target.kind, bundle: target.name }
    const started = performance.now()
    this.state.lastRequest = new Date()
    const waitSeconds = this.longPoll ? target.longPollingTimeoutSeconds : undefined
    try {
      const result = await fetchBundle(client, target.resource, {
        etag: this.state.served?.upstreamEtag,
        refusedEtag: this.activeRefusal()?.etag,
        waitSeconds,
        maxBytes: target.sizeLimitBytes,
        signal: this.abort.signal,
      })
      metrics.upstreamLatency.observe(labels, (performance.now() - started) / 1000)
      this.state.lastSuccessfulRequest = new Date()
      this.options.onContact?.(this.state.lastSuccessfulRequest, true)
      if (result.kind === 'refused-again') return this.refusedAgain()
      if (result.kind === 'not-modified') {
        metrics.upstreamRequests.inc({ ...labels, outcome: 'not_modified' })
      } else {
        const digest = createHash('sha256').update(result.bytes).digest('hex')
        if (digest === this.activeRefusal()?.digest) return this.refusedAgain()
        metrics.upstreamRequests.inc({ ...labels, outcome: 'modified' })
        if (waitSeconds !== undefined && result.contentType !== LONG_POLL_CONTENT_TYPE) {
          this.log.info(
            { content_type: result.contentType },
            'upstream does not long-poll; polling periodically',
          )
          this.longPoll = false
        }
        try {
          await this.accept(result.bytes, result.etag)
        } catch (err) {
          if (err instanceof BundleRejected) this.rememberRefusal(result.etag, digest)
          throw err
        }
        this.refused = undefined
      }
      this.state.lastError = undefined
      this.retry = 0
      return waitSeconds !== undefined && this.longPoll
        ? 0
        : successDelayMs(target.minDelaySeconds, target.maxDelaySeconds)
    } catch (err) {
      if (this.abort.signal.aborted) return 0
      if (err instanceof UpstreamError && err.code === 'too_large' && err.etag) {
        this.rememberRefusal(err.etag, undefined)
      }
      this.recordFailure(err)
      this.retry++
      return errorBackoffMs(this.retry, target.maxDelaySeconds)
    }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  private activeRefusal(): { etag?: string; digest?: string } | undefined {
    return this.refused && this.now() < this.refused.retryAt ? this.refused : undefined
  }

  private rememberRefusal(etag: string | undefined, digest: string | undefined): void {
    const previous = this.refused
    const same =
      previous !== undefined &&
      ((etag !== undefined && etag === previous.etag) || (digest !== undefined && digest === previous.digest))
    const times = same ? previous.times + 1 : 1
    const baseMs = 2 * this.options.target.maxDelaySeconds * 1000
    const waitMs = Math.min(REFUSED_RETRY_CAP_MS, baseMs * 2 ** (times - 1))
    this.refused = { etag, digest, times, retryAt: this.now() + waitMs }
  }

  /**
   * The upstream still has the bundle refused last: nothing was downloaded (or, without an ETag,
   * nothing verified). The refusal stays the target's last error, and the next look waits a
   * normal polling interval: the request is conditional and costs the upstream nothing.
   */
  private refusedAgain(): number {
    const { target, metrics } = this.options
    metrics.upstreamRequests.inc({ kind: target.kind, bundle: target.name, outcome: 'refused_again' })
    return successDelayMs(target.minDelaySeconds, target.maxDelaySeconds)
  }

  private async loop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const delay = await this.pullOnce()
      await sleep(delay, this.abort.signal)
    }
  }

  private async accept(bytes: Uint8Array, upstreamEtag: string | undefined): Promise<void> {
    const { target, cache } = this.options
    const served = this.state.served
    if (served && sameBytes(served.bytes, bytes)) {
      // The upstream re-sent what is served (e.g. it ignores If-None-Match): nothing to wake.
      served.upstreamEtag = upstreamEtag ?? served.upstreamEtag
      return
    }
    const verified = await verifyDownload(bytes, target)
    await cache.promote(target, { bytes, upstreamEtag, revision: verified.revision })
    await this.options.onPromote?.(target, verified)
  }

  private recordFailure(err: unknown): void {
    const { target, metrics } = this.options
    const labels = { kind: target.kind, bundle: target.name }
    const at = new Date()
    if (err instanceof BundleRejected) {
      metrics.upstreamRequests.inc({ ...labels, outcome: 'rejected' })
      metrics.bundleRejections.inc({ ...labels, reason: err.reason })
      this.state.rejections[err.reason] = (this.state.rejections[err.reason] ?? 0) + 1
      this.state.lastError = { code: err.reason, message: err.message, at }
      this.log.warn(
        { reason: err.reason, err: err.message, serving: this.state.served?.revision ?? null },
        'bundle refused; last good bundle kept',
      )
      return
    }
    if (err instanceof UpstreamError) {
      metrics.upstreamRequests.inc({ ...labels, outcome: err.code })
      if (err.code === 'too_large') {
        metrics.bundleRejections.inc({ ...labels, reason: 'bundle_size_limit' })
        this.state.rejections.bundle_size_limit = (this.state.rejections.bundle_size_limit ?? 0) + 1
      }
      this.options.onContact?.(at, false)
      this.state.lastError = { code: err.code, message: err.message, httpStatus: err.httpStatus, at }
      this.log.warn(
        { code: err.code, http_status: err.httpStatus, err: err.message, retry: this.retry },
        'upstream request failed',
      )
      return
    }
    // Anything else (a disk write failing during promotion) is ours, not the upstream's.
    metrics.upstreamRequests.inc({ ...labels, outcome: 'internal_error' })
    this.state.lastError = { code: 'internal_error', message: (err as Error).message ?? String(err), at }
    this.log.error({ err }, 'bundle promotion failed; last good bundle kept')
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)
}
