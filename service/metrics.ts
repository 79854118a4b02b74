/**
 * Prometheus metrics of one service instance, on a registry of its own (tests start several
 * services in one process, and the default registry is global).
 */
import type { MiddlewareHandler } from 'hono'
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'
import type { ServiceEnv } from './types.js'

/** The service's counters and histograms. */
export interface ServiceMetrics {
  registry: Registry
  httpRequests: Counter<'method' | 'status'>
  httpDuration: Histogram<'method'>
  decisionsReceived: Counter<'outcome'>
  bundleBuilds: Counter<'kind' | 'outcome'>
  /** Upload attempts to bundle registries, by bundle kind and outcome (uploaded, failed). */
  registryUploads: Counter<'kind' | 'outcome'>
  /** Activity records written, by class (audit, activity). */
  activityRecorded: Counter<'class'>
  /** Activity records that could not be written. */
  activityRecordFailures: Counter
  /** Activity records deleted by retention, by reason (max_age, max_rows). */
  activityDeleted: Counter<'reason'>
}

/** Creates the metrics; process metrics only when `withProcessMetrics`. */
export function createServiceMetrics(withProcessMetrics = false): ServiceMetrics {
  const registry = new Registry()
  if (withProcessMetrics) collectDefaultMetrics({ register: registry })
  return {
    registry,
    httpRequests: new Counter({
      name: 'regent_service_http_requests_total',
      help: 'HTTP requests answered, by method and status',
      labelNames: ['method', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'regent_service_http_request_duration_seconds',
      help: 'Time to answer HTTP requests (long polls included)',
      labelNames: ['method'],
      buckets: [0.001, 0.005, 0.02, 0.1, 0.5, 2, 10, 60],
      registers: [registry],
    }),
    decisionsReceived: new Counter({
      name: 'regent_service_decisions_received_total',
      help: 'Decision events received, by outcome (stored or duplicate)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    bundleBuilds: new Counter({
      name: 'regent_service_bundle_builds_total',
      help: 'Bundle builds, by kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    registryUploads: new Counter({
      name: 'regent_service_registry_uploads_total',
      help: 'Upload attempts to bundle registries, by bundle kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    activityRecorded: new Counter({
      name: 'regent_service_activity_recorded_total',
      help: 'Activity records written, by class',
      labelNames: ['class'],
      registers: [registry],
    }),
    activityRecordFailures: new Counter({
      name: 'regent_service_activity_record_failures_total',
      help: 'Activity records that could not be written',
      registers: [registry],
    }),
    activityDeleted: new Counter({
      name: 'regent_service_activity_deleted_total',
      help: 'Activity records deleted by retention, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
  }
}

/** Middleware counting every request and its duration. */
export function countRequests(metrics: ServiceMetrics): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    const stop = metrics.httpDuration.startTimer({ method: c.req.method })
    try {
      await next()
    } finally {
      stop()
      metrics.httpRequests.inc({ method: c.req.method, status: String(c.res.status) })
    }
  }
}
