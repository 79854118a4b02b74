/**
 * Forwards agents' latest status reports upstream, coalesced: every interval, each agent whose
 * report changed since the last post is posted once (its newest report only), followed by the
 * relay's own report when it changed. A failed post keeps the report pending for the next round
 * and backs off; there is no backlog to replay because only the latest state matters (as in
 * OPA's status plugin, which also never retries an old report). The own report is posted again
 * after `heartbeatMs` even unchanged, as a sign of life. A report the upstream refuses
 * (4xx) or that cannot be serialised is dropped, so one bad report never holds back the others.
 */
import type { Logger } from 'pino'
import { errorBackoffMs, sleep } from '../bundle/backoff.js'
import type { PluginMetrics } from '../metrics.js'
import type { ServiceClient } from '../rest/service-client.js'
import type { AgentStatuses } from './agent-statuses.js'

export interface StatusForwarderOptions {
  client: ServiceClient
  /** `status.partition_name` of the relay's config: where the relay's own report goes. */
  partition?: string
  /** Reports of agents behind a relay, forwarded before the own report (none for a single agent). */
  agents?: AgentStatuses
  ownReport: () => Record<string, unknown>
  intervalMs: number
  /**
   * An unchanged own report is posted again after this long (default 60 s), so the control plane
   * can tell a quiet, healthy process from one that stopped (the console flags agents silent past
   * a threshold, 5 minutes by default: docs/console.md).
   */
  heartbeatMs?: number
  /** The clock, for tests. */
  now?: () => number
  metrics: PluginMetrics
  logger: Logger
}

/** How often an unchanged own report is posted anyway. */
export const DEFAULT_HEARTBEAT_MS = 60_000

/** The coalescing status forwarder. */
export class StatusForwarder {
  private readonly abort = new AbortController()
  private running?: Promise<void>
  private lastOwnReport = ''
  private lastOwnPostAt = Number.NEGATIVE_INFINITY
  private failures = 0

  constructor(private readonly options: StatusForwarderOptions) {}

  start(): void {
    this.running ??= this.loop()
  }

  /** Stops after one last bounded attempt to post what is pending. */
  async stop(): Promise<void> {
    this.abort.abort()
    await this.running
  }

  /** Posts everything pending once; resolves to whether every post succeeded. Exposed for tests. */
  async forwardOnce(signal?: AbortSignal): Promise<boolean> {
    const { agents } = this.options
    agents?.expire()
    for (const status of agents?.pending() ?? []) {
      const outcome = await this.post(status.body, status.partition ?? this.options.partition, signal)
      if (outcome === 'failed') return false
      // Posted, or refused for good: either way this report is done (a newer one is sent anew).
      agents?.markForwarded(status)
    }
    const own = this.options.ownReport()
    // Timestamps inside the report change on every pull; compare without them.
    const fingerprint = JSON.stringify(own, (key, value) =>
      /^last_(successful_)?request$/.test(key) ? undefined : value,
    )
    const now = (this.options.now ?? Date.now)()
    const due = now - this.lastOwnPostAt >= (this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS)
    if (fingerprint !== this.lastOwnReport || due) {
      if ((await this.post(own, this.options.partition, signal)) === 'failed') return false
      this.lastOwnReport = fingerprint
      this.lastOwnPostAt = now
    }
    return true
  }

  private async loop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const ok = await this.forwardOnce(this.abort.signal)
      this.failures = ok ? 0 : this.failures + 1
      const delay = ok
        ? this.options.intervalMs
        : Math.max(this.options.intervalMs, errorBackoffMs(this.failures, 60))
      await sleep(delay, this.abort.signal)
    }
    // One last try so a clean stop does not lose the latest reports; bounded by the timeout.
    await this.forwardOnce(AbortSignal.timeout(2000)).catch(() => false)
  }

  /**
   * Posts one report: `ok`, `refused` (the upstream said 4xx, or the report cannot be
   * serialised: retrying it cannot help) or `failed` (network, 5xx, 408, 429: try again later).
   */
  private async post(
    body: Record<string, unknown>,
    partition: string | undefined,
    signal?: AbortSignal,
  ): Promise<'ok' | 'refused' | 'failed'> {
    const { client, metrics, logger } = this.options
    let text: string
    try {
      text = JSON.stringify(body)
    } catch (err) {
      metrics.statusForwards.inc({ outcome: 'http_error' })
      logger.warn({ err: (err as Error).message }, 'status report cannot be serialised; dropped')
      return 'refused'
    }
    try {
      const response = await client.send({
        method: 'POST',
        resource: partition ? `status/${partition}` : 'status',
        headers: { 'Content-Type': 'application/json' },
        body: text,
        signal,
      })
      await response.body.dump()
      const status = response.statusCode
      if (status >= 200 && status < 300) {
        metrics.statusForwards.inc({ outcome: 'ok' })
        return 'ok'
      }
      metrics.statusForwards.inc({ outcome: 'http_error' })
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
        logger.warn({ http_status: status }, 'status report refused upstream; dropped')
        return 'refused'
      }
      logger.warn({ http_status: status }, 'status forward refused upstream')
    } catch (err) {
      metrics.statusForwards.inc({ outcome: 'network_error' })
      logger.warn({ err: (err as Error).message }, 'status forward failed')
    }
    return 'failed'
  }
}
