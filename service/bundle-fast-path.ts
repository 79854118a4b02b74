/**
 * The service's hot path: an agent's plain bundle poll (`GET /v1/bundles/systems/{id}` or
 * `GET /v1/systems/{id}/discovery`, a 304 most of the time), answered on Node's request and
 * response before Hono when everything it needs is already in memory: the token row and the
 * revision in the store's read cache (store/service/read-cache.ts), a current grant index with
 * the decision the authorization middleware would take, and the bytes in the route's
 * BundleCache. The status, headers, body, request id, metrics and log line are the ones the app
 * gives for the same request (test/service/bundle-fast-path.test.ts compares them).
 *
 * Everything else goes to the app unchanged, which then decides and answers as before: other
 * methods (HEAD included), queries and encoded paths, long polls held on the current revision,
 * any token not in the cache (missing, unknown, just revoked or rewritten, a JWT), expired or
 * path-restricted tokens, refusals by authorization, a grant index due for its check, and bytes
 * not yet cached. So no cache is trusted beyond what the app itself trusts: a write through this
 * process drops the cached rows, and the next poll takes the app's path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { Counter, Histogram } from 'prom-client'
import { acceptedRequestId, type FastPath } from '../core/http/index.js'
import type { BundleKind, ServiceStore } from '../store/service/index.js'
import { cachedTokenPrincipal } from './auth.js'
import type { Authorizer } from './authz/authorizer.js'
import type { BundleCache } from './bundle-cache.js'
import type { ServiceMetrics } from './metrics.js'
import { BUNDLE_CONTENT_TYPE, etagOf, ifNoneMatchHas, preferredWaitSeconds } from './routes/bundles.js'
import { isValidId } from './validation.js'

const POLICY_PATH = /^\/v1\/bundles\/systems\/([^/?%]+)$/
const DISCOVERY_PATH = /^\/v1\/systems\/([^/?%]+)\/discovery$/

export interface BundleFastPathOptions {
  store: ServiceStore
  authorizer: Authorizer
  /** The bytes the bundle route has served (shared with it). */
  cache: BundleCache
  metrics: ServiceMetrics
  logger: Logger
}

/** The fast path for agents' plain bundle polls (see the file's comment for what it leaves to the app). */
export function bundleFastPath(options: BundleFastPathOptions): FastPath {
  const { store, authorizer, cache, logger } = options
  const count = requestCounting(options.metrics)
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET') return false
    const path = req.url ?? ''
    let kind: BundleKind = 'policy'
    let match = POLICY_PATH.exec(path)
    if (!match) {
      match = DISCOVERY_PATH.exec(path)
      kind = 'discovery'
    }
    const systemId = match?.[1]
    if (systemId === undefined || !isValidId(systemId) || !authorizer.isCurrent()) return false
    const started = performance.now()
    const headers = req.headers
    const principal = cachedTokenPrincipal(store, headers.authorization, path)
    if (!principal || !authorizer.decide(principal, { method: 'GET', path, query: {} }).allowed) return false
    const revision = store.bundles.revisionIfCached(systemId, kind)
    if (revision === undefined) return false
    const etag = etagOf(revision)
    let status: 200 | 304
    let bytes: Uint8Array | undefined
    if (ifNoneMatchHas(headers['if-none-match'], etag)) {
      // A long poll on the current revision waits for the next build: the app holds it.
      const prefer = headers.prefer
      if (preferredWaitSeconds(Array.isArray(prefer) ? prefer.join(', ') : prefer)) return false
      status = 304
    } else {
      bytes = cache.get(systemId, kind, revision)
      if (!bytes) return false
      status = 200
    }
    const offered = headers['x-request-id']
    const requestId = acceptedRequestId(typeof offered === 'string' ? offered : undefined)
    if (bytes) {
      res.writeHead(200, [
        'content-type',
        BUNDLE_CONTENT_TYPE,
        'etag',
        etag,
        'x-request-id',
        requestId,
        'content-length',
        String(bytes.byteLength),
      ])
      res.end(bytes)
    } else {
      // NOTE(service): the Content-Type the app's body-less 304 has always carried (Hono's c.body(null)).
      res.writeHead(304, [
        'content-type',
        'text/plain; charset=UTF-8',
        'etag',
        etag,
        'x-request-id',
        requestId,
      ])
      res.end()
    }
    const seconds = (performance.now() - started) / 1000
    count(status, seconds)
    if (logger.isLevelEnabled('info')) {
      const duration = Math.round(seconds * 100_000) / 100
      logger.info({ req_id: requestId, method: 'GET', path, status, duration_ms: duration }, 'request')
    }
    return true
  }
}

/**
 * What countRequests (service/metrics.ts) records for a GET, through label children made on
 * first use (prom-client hashes the labels on every `inc({...})`; a child does not).
 */
function requestCounting(metrics: ServiceMetrics): (status: 200 | 304, seconds: number) => void {
  let duration: ReturnType<Histogram<'method'>['labels']> | undefined
  const byStatus = new Map<number, ReturnType<Counter<'method' | 'status'>['labels']>>()
  return (status, seconds) => {
    duration ??= metrics.httpDuration.labels({ method: 'GET' })
    duration.observe(seconds)
    let counter = byStatus.get(status)
    if (!counter) {
      counter = metrics.httpRequests.labels({ method: 'GET', status: String(status) })
      byStatus.set(status, counter)
    }
    counter.inc()
  }
}
