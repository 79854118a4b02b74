/**
 * Decision-log metrics: prom-client series on the registry the relay passes in, plus the same
 * totals as plain numbers for `/v1/relay/status` (prom-client's getters are async and costly).
 * Gauges of what is buffered are read from the buffer when scraped, so they are never stale.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { BufferStats } from '../../store/decision-buffer/index.js'

/** Running totals since the process started. */
export interface DecisionLogTotals {
  receivedEvents: number
  receivedRequests: number
  malformedEvents: number
  rejectedRequests: number
  droppedEvents: number
  uploadedEvents: number
  uploadedBatches: number
  uploadFailures: number
  deadLetteredEvents: number
  /** Milliseconds since the epoch of the last 2xx from the upstream, or null. */
  lastSuccessfulUploadAt: number | null
}

/** Counters and gauges for intake, buffer and forwarder; one instance per relay. */
export class DecisionLogMetrics {
  readonly totals: DecisionLogTotals = {
    receivedEvents: 0,
    receivedRequests: 0,
    malformedEvents: 0,
    rejectedRequests: 0,
    droppedEvents: 0,
    uploadedEvents: 0,
    uploadedBatches: 0,
    uploadFailures: 0,
    deadLetteredEvents: 0,
    lastSuccessfulUploadAt: null,
  }
  private readonly intakeRequests: Counter<'code'>
  private readonly received: Counter
  private readonly malformed: Counter
  private readonly dropped: Counter<'reason'>
  private readonly uploaded: Counter
  private readonly uploadFailuresByStatus: Counter<'status'>
  private readonly deadLettered: Counter
  private readonly lastSuccess: Gauge
  private readonly uploadSeconds: Histogram

  constructor(registry: Registry, stats: () => BufferStats | undefined) {
    const registers = [registry]
    const p = 'regent_decision_logs_'
    this.intakeRequests = new Counter({
      name: `${p}intake_requests_total`,
      help: 'Decision-log uploads received from agents, by response status.',
      labelNames: ['code'],
      registers,
    })
    this.received = new Counter({
      name: `${p}received_events_total`,
      help: 'Events committed to the buffer.',
      registers,
    })
    this.malformed = new Counter({
      name: `${p}malformed_events_total`,
      help: 'Events accepted without a string decision_id or timestamp.',
      registers,
    })
    this.dropped = new Counter({
      name: `${p}dropped_events_total`,
      help: 'Events deleted undelivered: drop_oldest overflow or dead-letter bounds.',
      labelNames: ['reason'],
      registers,
    })
    this.uploaded = new Counter({
      name: `${p}uploaded_events_total`,
      help: 'Events the upstream acknowledged.',
      registers,
    })
    this.uploadFailuresByStatus = new Counter({
      name: `${p}upload_failures_total`,
      help: 'Failed upload attempts by HTTP status (or timeout, network).',
      labelNames: ['status'],
      registers,
    })
    this.deadLettered = new Counter({
      name: `${p}dead_lettered_events_total`,
      help: 'Events moved to the dead-letter table.',
      registers,
    })
    this.lastSuccess = new Gauge({
      name: `${p}last_successful_upload_timestamp_seconds`,
      help: 'Unix time of the last upload the upstream acknowledged.',
      registers,
    })
    this.uploadSeconds = new Histogram({
      name: `${p}upload_duration_seconds`,
      help: 'Time of one upload attempt.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    })
    const gauge = (name: string, help: string, read: (s: BufferStats) => number) =>
      new Gauge({
        name: `${p}${name}`,
        help,
        registers,
        collect() {
          const s = stats()
          if (s) this.set(read(s))
        },
      })
    gauge('buffered_events', 'Events waiting for upload (including in flight).', (s) => s.events)
    gauge('buffered_bytes', 'Bytes of event text waiting for upload.', (s) => s.bytes)
    gauge('oldest_undelivered_age_seconds', 'Age of the oldest event waiting for upload.', (s) =>
      s.oldestReceivedAt === null ? 0 : Math.max(0, (Date.now() - s.oldestReceivedAt) / 1000),
    )
    gauge('dead_letter_events', 'Events in the dead-letter table.', (s) => s.deadEvents)
  }

  /** One intake request answered with `code`; `events` committed, `malformed` among them. */
  intake(code: number, events = 0, malformed = 0): void {
    this.intakeRequests.inc({ code: String(code) })
    this.totals.receivedRequests++
    if (code >= 300) this.totals.rejectedRequests++
    if (events > 0) {
      this.received.inc(events)
      this.totals.receivedEvents += events
    }
    if (malformed > 0) {
      this.malformed.inc(malformed)
      this.totals.malformedEvents += malformed
    }
  }

  drop(reason: string, events: number): void {
    this.dropped.inc({ reason }, events)
    this.totals.droppedEvents += events
  }

  uploadSucceeded(events: number, seconds: number, now = Date.now()): void {
    this.uploaded.inc(events)
    this.uploadSeconds.observe(seconds)
    this.lastSuccess.set(now / 1000)
    this.totals.uploadedEvents += events
    this.totals.uploadedBatches++
    this.totals.lastSuccessfulUploadAt = now
  }

  /** `status` is an HTTP status or `timeout` / `network`. */
  uploadFailed(status: string, seconds: number): void {
    this.uploadFailuresByStatus.inc({ status })
    this.uploadSeconds.observe(seconds)
    this.totals.uploadFailures++
  }

  deadLetter(events: number): void {
    this.deadLettered.inc(events)
    this.totals.deadLetteredEvents += events
  }
}
