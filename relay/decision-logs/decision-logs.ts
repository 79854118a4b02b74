/**
 * The decision-log part of the relay, assembled: the buffer file in the storage folder, group
 * commit, intake routes, the forwarder, metrics and status. The relay creates one with
 * `DecisionLogs.start(...)`, mounts it with `installRoutes(app)`, shows `status()` in
 * `/v1/relay/status`, and calls `stop()` on SIGTERM.
 */
import { existsSync } from 'node:fs'
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
import { BufferOpenError, type BufferStats, type DropNotice } from '../../store/decision-buffer/index.js'
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
  /** Quiet time after which an empty buffer's thread is closed until the next upload (10 min). */
  idleCloseMs?: number
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

/** Stats of a buffer that is not open: the file is absent or holds nothing. */
const EMPTY_STATS: BufferStats = {
  events: 0,
  bytes: 0,
  inFlightEvents: 0,
  oldestReceivedAt: null,
  deadEvents: 0,
  deadBytes: 0,
  deadBatches: 0,
}

/** How long the buffer stays open with nothing in it and no upload, by default. */
const IDLE_CLOSE_MS = 10 * 60_000

/**
 * The decision-log intake, buffer and forwarder of one relay process.
 *
 * The buffer thread (a V8 isolate of its own, about 25 MB resident) runs only while the buffer
 * holds something or intake is used: a relay whose buffer file is absent opens it with the first
 * upload; one whose file holds no events (nor dead letters) opens it at start to check it, then
 * closes it again. A file that holds events is opened at start and forwarded at once, as before.
 * Once everything is forwarded and no upload came for `idleCloseMs`, the thread is closed again.
 */
export class DecisionLogs {
  readonly metrics: DecisionLogMetrics
  private readonly parser: ParsePool
  private thread: BufferThread | undefined
  private forwarder: Forwarder | undefined
  /** Closing an empty buffer; opening waits for it, so two threads never write one file. */
  private closing: Promise<void> | undefined
  /** An open on demand in progress (see openAsync). */
  private opening: Promise<void> | undefined
  private stopping = false
  private activeRequests = 0
  private stopped: Promise<void> | undefined
  private lastUpload = Date.now()
  private idleTimer: NodeJS.Timeout | undefined

  private constructor(private readonly options: DecisionLogsOptions) {
    const { config, logger } = options
    const unwritable = unwritableReason(options.storageDir)
    if (unwritable !== undefined) {
      throw new BufferOpenError(
        `the relay storage folder ${options.storageDir} is not writable (${unwritable}); decision logs cannot be kept`,
      )
    }
    this.metrics = new DecisionLogMetrics(options.registry, () => this.currentStats())
    // Workers start under concurrent intake only, and exit once it is idle (see ParsePool).
    this.parser = new ParsePool(config.intake.parse_workers, logger, () => this.buffer.connectParser(), {
      onDemand: true,
    })
    if (!options.upstream)
      logger.warn('no upstream for decision logs: events are kept on disk and not forwarded')
    if (existsSync(this.path)) {
      this.open()
      if (isEmpty(this.currentStats())) this.closeEmpty()
    } else {
      logger.info({ path: this.path }, 'decision-log buffer opens with the first upload')
    }
  }

  /** Opens the buffer if it holds events (resuming them) and starts forwarding. */
  static start(options: DecisionLogsOptions): DecisionLogs {
    return new DecisionLogs(options)
  }

  /**
   * The buffer, on a thread of its own (SQLite never runs on the main thread); opened here if it
   * is not open yet.
   */
  get buffer(): BufferThread {
    return this.thread ?? this.open()
  }

  /** Whether the buffer's thread runs now (it opens on demand and closes when empty and quiet). */
  get bufferOpen(): boolean {
    return this.thread !== undefined
  }

  /**
   * Why the buffer cannot take events now, for readiness (undefined while it is not open: an open
   * that fails on an upload answers that upload 503, and the next upload tries again).
   */
  get failure(): string | undefined {
    return this.thread?.failure
  }

  /** What the intake routes need; pass to `installDecisionLogRoutes` to mount elsewhere. */
  get intakeDeps(): IntakeDeps {
    return {
      config: this.options.config,
      // Resolved per call: the thread may open (or close, when empty) between requests.
      buffer: {
        append: (split) => this.buffer.append(split),
        appendRaw: (raw, encoding, max) => this.buffer.appendRaw(raw, encoding, max),
        ticket: () => this.buffer.ticket(),
        forget: (id) => this.buffer.forget(id),
      },
      parser: this.parser,
      afterCommit: () => this.forwarder?.wake(),
      metrics: this.metrics,
      logger: this.options.logger,
      enter: () => {
        if (this.stopping) return false
        this.activeRequests++
        this.lastUpload = Date.now()
        return true
      },
      leave: () => {
        this.activeRequests--
      },
      concurrent: () => this.activeRequests,
      ready: async () => {
        // A close of the empty buffer in progress ends first; the next call opens it again.
        if (this.closing) await this.closing
        if (!this.thread) await this.openAsync()
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
    const s = this.currentStats()
    const f = this.forwarder?.state
    return {
      buffer: {
        path: this.path,
        events: s.events,
        bytes: s.bytes,
        max_bytes: config.buffer.max_bytes,
        overflow: config.buffer.overflow,
        sync: config.buffer.sync,
        in_flight_events: s.inFlightEvents,
        oldest_undelivered_age_seconds: s.oldestReceivedAt
          ? Math.max(0, (now - s.oldestReceivedAt) / 1000)
          : null,
        dead_letter: { batches: s.deadBatches, events: s.deadEvents, bytes: s.deadBytes },
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
        state: f?.state ?? (this.options.upstream ? 'idle' : 'no_upstream'),
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
      clearInterval(this.idleTimer)
      // Uploads that arrived before the stop still get their commit (bounded: a stuck client
      // cannot hold the shutdown past the drain time).
      const deadline = Date.now() + Math.max(1000, this.options.config.upload.drain_timeout_ms)
      while (this.activeRequests > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
      await this.parser.close()
      await this.closing
      await this.opening?.catch(() => {})
      const thread = this.thread
      if (!thread) return
      await this.forwarder?.stop()
      // Closing commits whatever was submitted before it, then checkpoints the WAL.
      await thread.close()
      const left = thread.stats()
      this.options.logger.info(
        { events_left: left.events, dead_events: left.deadEvents },
        'decision-log buffer closed',
      )
    })()
    return this.stopped
  }

  private get path(): string {
    return join(this.options.storageDir, BUFFER_FILE_NAME)
  }

  private currentStats(): BufferStats {
    const thread = this.thread
    return thread && !thread.isClosed ? thread.stats() : EMPTY_STATS
  }

  /** Opens the buffer thread (synchronously, as at start) and starts forwarding what it holds. */
  private open(): BufferThread {
    return this.adopt(BufferThread.open(this.bufferOptions(), this.options.logger))
  }

  /**
   * Opens the buffer thread for an upload without blocking the main thread meanwhile; uploads that
   * arrive during the open share it.
   */
  private openAsync(): Promise<void> {
    this.opening ??= BufferThread.openAsync(this.bufferOptions(), this.options.logger)
      .then((thread) => {
        // Someone (a test, a status call) opened it synchronously meanwhile: keep that one.
        if (this.thread) return thread.close()
        this.adopt(thread)
      })
      .finally(() => {
        this.opening = undefined
      })
    return this.opening
  }

  private bufferOptions() {
    const { config, logger } = this.options
    return {
      path: this.path,
      sync: config.buffer.sync,
      maxBytes: config.buffer.max_bytes,
      overflow: config.buffer.overflow,
      busyTimeoutMs: config.buffer.busy_timeout_ms,
      integrityCheck: config.buffer.integrity_check,
      deadLetterMaxEvents: config.dead_letter.max_events,
      deadLetterMaxBytes: config.dead_letter.max_bytes,
      onDrop: (drop: DropNotice) => {
        this.metrics.drop(drop.reason, drop.events)
        logger.warn(
          { reason: drop.reason, events: drop.events, bytes: drop.bytes },
          'dropped undelivered decision events',
        )
      },
    }
  }

  /** Takes an opened thread: logs what it holds and starts forwarding it. */
  private adopt(thread: BufferThread): BufferThread {
    const { config, logger, upstream } = this.options
    this.thread = thread
    if (thread.quarantinedTo) {
      logger.error(
        { moved_to: thread.quarantinedTo },
        'decision-log buffer failed its integrity check; moved it aside and started empty',
      )
    }
    const stats = thread.stats()
    logger.info(
      {
        path: this.path,
        events: stats.events,
        dead_events: stats.deadEvents,
        recovered_batches: thread.recoveredBatches,
      },
      'decision-log buffer opened',
    )
    if (upstream) {
      this.forwarder = new Forwarder(thread, upstream, config, this.metrics, logger)
      this.forwarder.start()
    }
    const idleMs = this.options.idleCloseMs ?? IDLE_CLOSE_MS
    this.idleTimer ??= setInterval(() => this.closeIfIdle(idleMs), Math.max(10, idleMs / 4)).unref()
    return thread
  }

  /** Closes the thread of a buffer that holds nothing and had no upload for `idleMs`. */
  private closeIfIdle(idleMs: number): void {
    if (!this.thread || this.closing || this.opening || this.stopping || this.activeRequests > 0) return
    // Parse workers hold a port to this thread: it closes only after they stopped (a quiet minute).
    if (this.parser.workers > 0) return
    if (Date.now() - this.lastUpload < idleMs || !isEmpty(this.currentStats())) return
    this.options.logger.info('decision-log buffer empty and quiet; its thread stops until the next upload')
    this.closeEmpty()
  }

  /**
   * Closes a buffer that holds nothing (nothing to forward, nothing to list): its thread ends
   * until the next upload opens it again. Only called with no upload in progress; uploads that
   * arrive meanwhile wait for the close (`ready`), so every acknowledged event is committed.
   */
  private closeEmpty(): void {
    const thread = this.thread as BufferThread
    const forwarder = this.forwarder
    this.thread = undefined
    this.forwarder = undefined
    this.closing = (async () => {
      await forwarder?.stop(0)
      await thread.close()
    })()
      .catch((err: unknown) =>
        this.options.logger.warn({ err }, 'closing the empty decision-log buffer failed'),
      )
      .finally(() => {
        this.closing = undefined
      })
  }
}

function isEmpty(s: BufferStats): boolean {
  return s.events === 0 && s.deadEvents === 0 && s.inFlightEvents === 0
}

/**
 * The upstream logs URL from a service URL and an OPA `resource` (default `/logs`), joined with
 * exactly one slash as OPA does.
 * @example upstreamLogsUrl('https://svc/v1/', 'logs') // 'https://svc/v1/logs'
 */
export function upstreamLogsUrl(serviceUrl: string, resource = '/logs'): string {
  return `${serviceUrl.replace(/\/+$/, '')}/${resource.replace(/^\/+/, '')}`
}
