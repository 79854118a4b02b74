/**
 * `/metrics` of `regent run -s`, in Prometheus text format (prom-client), with OPA's HTTP metric:
 * `http_request_duration_seconds{code, handler, method}` (handler named as OPA names its routes:
 * `v1/data`, `v1/query`, `health`, `metrics`, `index`, …), plus Node's process metrics (OPA's
 * `go_*` and `process_*`). One registry per server so several in one process do not collide.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client'
import type { AppEnv } from '../core/http/index.js'

/** The registry and the instrument the request middleware records into. */
export interface AgentMetrics {
  registry: Registry
  requestDuration: Histogram<'code' | 'handler' | 'method'>
  /** Registries served beside it (the `-c` plugins' bundle, decision-log and status metrics). */
  also: Registry[]
}

/** Creates the registry (default process metrics unless turned off, as tests may). */
export function createAgentMetrics(
  options: { processMetrics?: boolean; also?: Registry[] } = {},
): AgentMetrics {
  const registry = new Registry()
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry })
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'A histogram of duration for requests.',
    labelNames: ['code', 'handler', 'method'],
    registers: [registry],
  })
  return { registry, requestDuration, also: options.also ?? [] }
}

// The routes the server has; any other path is counted as `other`, so that requests for random
// paths cannot grow the label set (and the process's memory) without bound.
const KNOWN_HANDLERS = new Set([
  'v0/data',
  'v1/data',
  'v1/query',
  'v1/policies',
  'v1/compile',
  'v1/config',
  'v1/status',
  'health',
  'metrics',
  'debug',
])

/** OPA's handler label for a path: `v1/data` for `/v1/data/x/y`, `health` for `/health/live`. */
export function handlerLabel(path: string): string {
  const parts = path.split('/').filter((p) => p !== '')
  if (parts.length === 0) return 'index'
  const name = parts[0] === 'v0' || parts[0] === 'v1' ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] as string)
  return KNOWN_HANDLERS.has(name) ? name : 'other'
}

/** Times every request, refusals (401, 404) included. */
export function metricsMiddleware(metrics: AgentMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const end = metrics.requestDuration.startTimer()
    try {
      await next()
    } finally {
      end({
        code: String(c.res.status),
        handler: handlerLabel(c.req.path),
        method: c.req.method.toLowerCase(),
      })
    }
  }
}

/** `GET /metrics`. */
export function metricsRoutes(metrics: AgentMetrics): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  app.get('/metrics', async (c: Context<AppEnv>) => {
    const texts = await Promise.all([metrics.registry, ...metrics.also].map((r) => r.metrics()))
    return c.body(texts.join('\n'), 200, { 'Content-Type': metrics.registry.contentType })
  })
  return app
}
