/**
 * The decision-log part of the relay, assembled: the buffer file in the storage folder, group
 * commit, intake routes, the forwarder, metrics and status. The relay creates one with
 * `DecisionLogs.start(...)`, mounts it with `installRoutes(app)`, shows `status()` in
 * `/v1/relay/status`, and calls `stop()` on SIGTERM.
 */
import { join } from 'node:path'
import type { Hono } from 'hono'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { AppEnv } from '../../core/http/index.js'
import { BufferThread } from '../../plugins/logs/buffer-thread.js'
import { BUFFER_FILE_NAME, type DecisionLogsConfig } from '../../plugins/logs/config.js'
import { Forwarder, type ForwarderState } from '../../plugins/logs/forwarder.js'
import { DecisionLogMetrics } from '../../plugins/logs/metrics.js'
import { ParsePool } from '../../plugins/logs/parse-pool.js'
import type { UpstreamTarget } from '../../plugins/logs/upload.js'
import { BufferOpenError } from '../../store/decision-buffer/index.js'
import { unwritableReason } from '../storage.js'
import { type IntakeDeps, installDecisionLogRoutes } from './intake.js'

export interface DecisionLogsOptions {
  config: DecisionLogsConfig
  /** The relay's storage folder; the buffer is `<storageDir>/decision-logs.db`. */
  storageDir: string
  /** Where batches go; without one, events are kept on disk until an upstream is configured. */
  upstream?: UpstreamTarget
  /** Metrics are registered here (the relay's `/metrics` registry). */
  registry: Registry
  logger: Logger
}

/** The `decision_logs` object of `GET /v1/relay/status`. */
export interface DecisionLogsStatus {
  buffer: {
    path: string
    events: number
    bytes: number
    max_bytes: number
    overflow: string
    sync: string
    in_flight_events: number
    oldest_undelivered_age_seconds: number | null
    dead_letter: { batches: number; events: number; bytes: number }
  }
  intake: {
    /** Parse worker threads running (fewer than configured when they failed to start). */
    parse_workers: number
    requests: number
    events: number
    malformed_events: number
    rejected_requests: number
    dropped_events: number
  }
  upload: {
    url: string | null
    state: ForwarderState['state'] | 'no_upstream'
    uploaded_events: number
    uploaded_batches: number
    failures: number
    consecutive_failures: number
    dead_lettered_events: number
    last_successful_upload: string | null
    last_error: { status: string; message: string; at: string } | null
  }
}

/** The decision-log intake, buffer and forwarder of one relay process. */
export class DecisionLogs {
  /** The buffer, on a thread of its own (SQLite never runs on the main thread). */
  readonly buffer: BufferThread
  readonly metrics: DecisionLogMetrics
  private readonly parser: ParsePool
  private readonly forwarder: Forwarder | undefined
  private stopping = false
  private activeRequests = 0
  private stopped: Promise<void> | undefined

  private constructor(private readonly options: DecisionLogsOptions) {
    const { config, logger } = options
    const unwritable = unwritableReason(options.storageDir)
    if (unwritable !== undefined) {
      throw new BufferOpenError(
        `the relay storage folder ${options.storageDir} is not writable (${unwritable}); decision logs cannot be kept`,
      )
    }
    let metrics: DecisionLogMetrics | undefined
    this.buffer = BufferThread.open(
      {
        path: join(options.storageDir, BUFFER_FILE_NAME),
        sync: config.buffer.sync,
        maxBytes: config.buffer.max_bytes,
        overflow: config.buffer.overflow,
        busyTimeoutMs: config.buffer.busy_timeout_ms,
        integrityCheck: config.buffer.integrity_check,
        deadLetterMaxEvents: config.dead_letter.max_events,
        deadLetterMaxBytes: config.dead_letter.max_bytes,
        onDrop: (drop) => {
          metrics?.drop(drop.reason, drop.events)
          logger.warn(
            { reason: drop.reason, events: drop.events, bytes: drop.bytes },
            'dropped undelivered decision events',
          )
        },
      },
      logger,
    )
    this.metrics = metrics = new DecisionLogMetrics(options.registry, () =>
      this.buffer.isClosed ? undefined : this.buffer.stats(),
    )
    if (this.buffer.quarantinedTo) {
      logger.error(
        { moved_to: this.buffer.quarantinedTo },
        'decision-log buffer failed its integrity check; moved it aside and started empty',
      )
    }
    const stats = this.buffer.stats()
    logger.info(
      {
        path: join(options.storageDir, BUFFER_FILE_NAME),
        events: stats.events,
        dead_events: stats.deadEvents,
        recovered_batches: this.buffer.recoveredBatches,
      },
      'decision-log buffer opened',
    )
    this.forwarder = options.upstream
      ? new Forwarder(this.buffer, options.upstream, config, this.metrics, logger)
      : undefined
    this.parser = new ParsePool(config.intake.parse_workers, logger, () => this.buffer.connectParser())
    if (!options.upstream)
      logger.warn('no upstream for decision logs: events are kept on disk and not forwarded')
  }

  /** Opens the buffer (resuming what it holds) and starts forwarding. */
  static start(options: DecisionLogsOptions): DecisionLogs {
    const logs = new DecisionLogs(options)
    logs.forwarder?.start()
    return logs
  }

  /** What the intake routes need; pass to `installDecisionLogRoutes` to mount elsewhere. */
  get intakeDeps(): IntakeDeps {
    return {
      config: this.options.config,
      buffer: this.buffer,
      parser: this.parser,
      afterCommit: () => this.forwarder?.wake(),
      metrics: this.metrics,
      logger: this.options.logger,
      enter: () => {
        if (this.stopping) return false
        this.activeRequests++
        return true
      },
      leave: () => {
        this.activeRequests--
      },
    }
  }

  /** Mounts the intake routes (configured paths, with and without a partition) on `app`. */
  installRoutes(app: Hono<AppEnv>): void {
    installDecisionLogRoutes(app, this.intakeDeps)
  }

  /** The status object for `/v1/relay/status`. */
  status(now = Date.now()): DecisionLogsStatus {
    const { config } = this.options
    const t = this.metrics.totals
    const s = this.buffer.isClosed ? undefined : this.buffer.stats()
    const f = this.forwarder?.state
    return {
      buffer: {
        path: join(this.options.storageDir, BUFFER_FILE_NAME),
        events: s?.events ?? 0,
        bytes: s?.bytes ?? 0,
        max_bytes: config.buffer.max_bytes,
        overflow: config.buffer.overflow,
        sync: config.buffer.sync,
        in_flight_events: s?.inFlightEvents ?? 0,
        oldest_undelivered_age_seconds: s?.oldestReceivedAt
          ? Math.max(0, (now - s.oldestReceivedAt) / 1000)
          : null,
        dead_letter: { batches: s?.deadBatches ?? 0, events: s?.deadEvents ?? 0, bytes: s?.deadBytes ?? 0 },
      },
      intake: {
        parse_workers: this.parser.workers,
        requests: t.receivedRequests,
        events: t.receivedEvents,
        malformed_events: t.malformedEvents,
        rejected_requests: t.rejectedRequests,
        dropped_events: t.droppedEvents,
      },
      upload: {
        url: this.options.upstream?.url ?? null,
        state: f?.state ?? 'no_upstream',
        uploaded_events: t.uploadedEvents,
        uploaded_batches: t.uploadedBatches,
        failures: t.uploadFailures,
        consecutive_failures: f?.consecutiveFailures ?? 0,
        dead_lettered_events: t.deadLetteredEvents,
        last_successful_upload:
          t.lastSuccessfulUploadAt === null ? null : new Date(t.lastSuccessfulUploadAt).toISOString(),
        last_error: f?.lastError ? { ...f.lastError, at: new Date(f.lastError.at).toISOString() } : null,
      },
    }
  }

  /**
   * Graceful stop: new uploads get 503, commits in progress finish, a final upload runs for up to
   * `upload.drain_timeout_ms`, then the database is checkpointed and closed.
   */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true
      // Uploads that arrived before the stop still get their commit (bounded: a stuck client
      // cannot hold the shutdown past the drain time).
      const deadline = Date.now() + Math.max(1000, this.options.config.upload.drain_timeout_ms)
      while (this.activeRequests > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
      await this.parser.close()
      await this.forwarder?.stop()
      // Closing commits whatever was submitted before it, then checkpoints the WAL.
      await this.buffer.close()
      const left = this.buffer.stats()
      this.options.logger.info(
        { events_left: left.events, dead_events: left.deadEvents },
        'decision-log buffer closed',
      )
    })()
    return this.stopped
  }
}

/**
 * The upstream logs URL from a service URL and an OPA `resource` (default `/logs`), joined with
 * exactly one slash as OPA does.
 * @example upstreamLogsUrl('https://svc/v1/', 'logs') // 'https://svc/v1/logs'
 */
export function upstreamLogsUrl(serviceUrl: string, resource = '/logs'): string {
  return `${serviceUrl.replace(/\/+$/, '')}/${resource.replace(/^\/+/, '')}`
}
