/**
 * The agent's decision-log plugin (OPA's plugins/logs), with regent's durable buffer in place of
 * OPA's memory buffer: each event is committed to `<persistence_directory>/decision-logs.db`
 * (SQLite on a thread of its own) before the decision is answered, and the forwarder uploads
 * batches as OPA does (POST of a gzip JSON array to `<service>/logs`, `upload_size_limit_bytes`
 * per batch), deleting them only after a 2xx. Nothing acknowledged is lost across a SIGKILL; a
 * batch in flight at the kill is sent again, and the service removes the duplicate by
 * decision_id.
 *
 * OPA's `reporting` keys map onto the buffer: `buffer_size_limit_bytes` bounds it and drops the
 * oldest undelivered events past it (OPA's policy), `upload_size_limit_bytes` bounds a batch,
 * `min/max_delay_seconds` bound the retry backoff. Uploads start as soon as events are committed
 * rather than every few minutes: the buffer makes batching by time unnecessary.
 */
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import { splitEventSpans } from '../../core/decision-events/index.js'
import { makePrivateDir } from '../../core/state-files.js'
import { BufferThread } from '../../plugins/logs/buffer-thread.js'
import { type DecisionLogsConfig, decisionLogsSectionSchema } from '../../plugins/logs/config.js'
import { Forwarder } from '../../plugins/logs/forwarder.js'
import { DecisionLogMetrics } from '../../plugins/logs/metrics.js'
import { serviceUploadTarget } from '../../plugins/logs/upload.js'
import type { ServiceClient } from '../../plugins/rest/service-client.js'
import type { AgentDecisionLogsConfig } from '../config/schema.js'
import type { DecisionLogSink } from '../decision-logging.js'
import { pickService } from './services.js'

/** The buffer file inside the persistence directory. */
export const AGENT_BUFFER_FILE = 'decision-logs.db'

export interface AgentDecisionLogsOptions {
  config: AgentDecisionLogsConfig
  clients: ReadonlyMap<string, ServiceClient>
  persistenceDir: string
  labels: Record<string, string>
  registry: Registry
  logger: Logger
  /** Called after each upload attempt (status reporting). */
  onChange?: () => void
}

/** OPA's decision-log status: the last upload's outcome. */
export interface DecisionLogsStatus {
  code?: string
  message?: string
  http_code?: number
}

/** Buffer plus forwarder plus console output, as configured. */
export class AgentDecisionLogs implements DecisionLogSink {
  readonly labels: Record<string, string>
  private readonly buffer: BufferThread | undefined
  private readonly forwarder: Forwarder | undefined
  private readonly metrics: DecisionLogMetrics | undefined

  constructor(private readonly options: AgentDecisionLogsOptions) {
    this.labels = options.labels
    const { config, logger } = options
    const client =
      config.service !== undefined || !config.console
        ? pickService(options.clients, config.service)
        : undefined
    if (!client) return
    const settings = bufferSettings(config)
    makePrivateDir(options.persistenceDir)
    this.buffer = BufferThread.open(
      {
        path: join(options.persistenceDir, AGENT_BUFFER_FILE),
        sync: settings.buffer.sync,
        maxBytes: settings.buffer.max_bytes,
        overflow: settings.buffer.overflow,
        busyTimeoutMs: settings.buffer.busy_timeout_ms,
        integrityCheck: settings.buffer.integrity_check,
        deadLetterMaxEvents: settings.dead_letter.max_events,
        deadLetterMaxBytes: settings.dead_letter.max_bytes,
        onDrop: (drop) =>
          logger.warn({ reason: drop.reason, events: drop.events }, 'dropped undelivered decision events'),
      },
      logger,
    )
    this.metrics = new DecisionLogMetrics(options.registry, () =>
      this.buffer?.isClosed === false ? this.buffer.stats() : undefined,
    )
    const resource = config.resource ?? (config.partition_name ? `/logs/${config.partition_name}` : '/logs')
    this.forwarder = new Forwarder(
      this.buffer,
      serviceUploadTarget(client, resource),
      settings,
      this.metrics,
      logger,
    )
    logger.info(
      {
        path: join(options.persistenceDir, AGENT_BUFFER_FILE),
        events: this.buffer.stats().events,
        url: client.urlOf(resource),
      },
      'decision-log buffer opened',
    )
  }

  start(): void {
    this.forwarder?.start()
  }

  async record(eventText: string): Promise<void> {
    if (this.options.config.console)
      this.options.logger.info({ event: JSON.parse(eventText) }, 'Decision Log')
    if (!this.buffer) return
    try {
      const answer = await this.buffer.append(splitEventSpans(`[${eventText}]`))
      if (!answer.ok || answer.outcome.kind !== 'stored') {
        this.options.logger.error(
          { answer: answer.ok ? answer.outcome.kind : answer.message },
          'decision event not stored',
        )
        return
      }
      this.forwarder?.wake()
    } catch (err) {
      // The decision itself stands; a failing disk is reported, not turned into a failed request.
      this.options.logger.error({ err: (err as Error).message }, 'decision event not stored')
    }
  }

  /** The `decision_logs` object of a status report. */
  status(): DecisionLogsStatus {
    const last = this.forwarder?.state.lastError
    if (!last || this.forwarder?.state.consecutiveFailures === 0) return {}
    const http = Number(last.status)
    return {
      code: 'decision_logs_error',
      message: last.message,
      ...(Number.isInteger(http) ? { http_code: http } : {}),
    }
  }

  /**
   * Uploads what it can within the drain time, then closes the buffer (the rest waits on disk).
   * Resolves to the number of events left undelivered (`regent exec` reports it).
   */
  async stop(): Promise<number> {
    await this.forwarder?.stop()
    const left = this.buffer?.isClosed === false ? this.buffer.stats().events : 0
    await this.buffer?.close()
    return left
  }
}

function bufferSettings(config: AgentDecisionLogsConfig): DecisionLogsConfig {
  const r = config.reporting
  return decisionLogsSectionSchema.parse({
    buffer: {
      overflow: 'drop_oldest',
      ...(r.buffer_size_limit_bytes !== undefined ? { max_bytes: r.buffer_size_limit_bytes } : {}),
    },
    upload: { max_batch_bytes: r.upload_size_limit_bytes },
    retry: {
      ...(r.min_delay_seconds !== undefined ? { min_delay_ms: r.min_delay_seconds * 1000 } : {}),
      ...(r.max_delay_seconds !== undefined ? { max_delay_ms: r.max_delay_seconds * 1000 } : {}),
    },
  })
}
