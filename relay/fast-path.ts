/**
 * The hot path of a relay: an agent's `GET /v1/<resource>` (a 304 most of the time, a full
 * bundle after a change, or a long poll held until one), answered on Node's request and
 * response before Hono, so waking a thousand held polls is a thousand direct writes. Everything
 * else (bearer auth, unknown resources, targets with no copy yet) goes through the app. The
 * answer, headers, metrics, request id and log line are the ones the app's bundle route gives;
 * only the per-request middleware and Request/Response objects are skipped (on a 304 they cost
 * several times the answer itself).
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { BundleCache } from '../plugins/bundle/bundle-cache.js'
import { LONG_POLL_CONTENT_TYPE } from '../plugins/bundle/fetch-bundle.js'
import type { RelayMetrics } from './metrics.js'
import {
  answerBundle,
  type BundleAnswer,
  matchesEtag,
  parseWaitSeconds,
  TOO_MANY_WAITERS,
} from './routes/bundles.js'
import type { FastPath } from './server.js'

const ACCEPTABLE_ID = /^[\w.:@/+=-]{1,128}$/

/** The fast path for bundle GETs (polls and long polls), or undefined when agents must present a bearer token. */
export function bundleFastPath(options: {
  cache: BundleCache
  metrics: RelayMetrics
  logger: Logger
  maxWaitSeconds: number
  enabled: boolean
}): FastPath | undefined {
  if (!options.enabled) return undefined
  const { cache, metrics, logger } = options
  return (req: IncomingMessage, res: ServerResponse) => {
    const rawPath = req.url ?? ''
    // Encoded paths are decoded by the app.
    if (req.method !== 'GET' || !rawPath.startsWith('/v1/') || rawPath.includes('%')) return false
    const query = rawPath.indexOf('?')
    const path = query === -1 ? rawPath : rawPath.slice(0, query)
    const state = cache.get(path.slice(4).replace(/^\/+|\/+$/g, ''))
    const served = state?.served
    if (!state || !served) return false
    const started = performance.now()
    const headers = req.headers
    const offered = headers['x-request-id']
    const requestId = typeof offered === 'string' && ACCEPTABLE_ID.test(offered) ? offered : randomUUID()
    const prefer = headers.prefer
    const waitSeconds = parseWaitSeconds(Array.isArray(prefer) ? prefer.join(',') : prefer)
    const finish = (answer: BundleAnswer, held = false) => {
      if (res.destroyed) return // the agent went away while held
      if (answer.status === 503) {
        metrics.longPollRejected.inc()
        res.writeHead(503, {
          'Content-Type': 'application/json',
          'Retry-After': '1',
          'X-Request-Id': requestId,
        })
        res.end(JSON.stringify(TOO_MANY_WAITERS))
      } else if (answer.status === 304) {
        res.writeHead(304, { ETag: answer.served.etag, 'X-Request-Id': requestId })
        res.end()
      } else {
        res.writeHead(200, {
          ETag: answer.served.etag,
          'Content-Type': waitSeconds !== undefined ? LONG_POLL_CONTENT_TYPE : 'application/gzip',
          'Content-Length': answer.served.bytes.byteLength,
          'X-Request-Id': requestId,
        })
        if (held) {
          // A promotion answers every held poll in one pass of microtasks: send all the headers
          // first and the bodies after, so the last agent hears of the new bundle at once instead
          // of after a thousand bundle copies have been written ahead of it.
          res.flushHeaders()
          const bytes = answer.served.bytes
          setImmediate(() => res.end(bytes))
        } else {
          res.end(answer.served.bytes)
        }
      }
      const code = String(answer.status)
      if (answer.status !== 503) metrics.agentBundleResponses.inc({ bundle: state.target.name, code })
      metrics.agentRequests.inc({ route: 'bundle', code })
      if (logger.isLevelEnabled('info')) {
        const duration = Math.round((performance.now() - started) * 100) / 100
        logger.info(
          { req_id: requestId, method: 'GET', path, status: answer.status, duration_ms: duration },
          'request',
        )
      }
    }
    const ifNoneMatch = headers['if-none-match']
    if (waitSeconds === undefined || !matchesEtag(ifNoneMatch, served.etag)) {
      finish({ status: matchesEtag(ifNoneMatch, served.etag) ? 304 : 200, served })
      return true
    }
    // A long poll: held until a promotion wakes it, the wait passes, or the agent goes away.
    const abort = new AbortController()
    res.once('close', () => abort.abort())
    void answerBundle(
      cache,
      state,
      served,
      ifNoneMatch,
      waitSeconds,
      options.maxWaitSeconds,
      abort.signal,
    ).then((answer) => finish(answer, true))
    return true
  }
}
