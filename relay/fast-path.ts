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
import type { Waiter, WaitOutcome } from '../plugins/bundle/waiters.js'
import type { RelayMetrics } from './metrics.js'
import { type BundleAnswer, matchesEtag, parseWaitSeconds, TOO_MANY_WAITERS } from './routes/bundles.js'
import type { FastPath } from './server.js'

const ACCEPTABLE_ID = /^[\w.:@/+=-]{1,128}$/
const TOO_MANY_WAITERS_TEXT = JSON.stringify(TOO_MANY_WAITERS)

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
  const tallies = metrics.tallies
  return (req: IncomingMessage, res: ServerResponse) => {
    const rawPath = req.url ?? ''
    // Encoded paths are decoded by the app.
    if (req.method !== 'GET' || !rawPath.startsWith('/v1/') || rawPath.includes('%')) return false
    const query = rawPath.indexOf('?')
    const path = query === -1 ? rawPath : rawPath.slice(0, query)
    const resource = path.slice(4)
    const state = cache.get(
      resource.startsWith('/') || resource.endsWith('/') ? resource.replace(/^\/+|\/+$/g, '') : resource,
    )
    const served = state?.served
    if (!state || !served) return false
    // The level can change while running (pino's level setter): asked per request, it is cheap.
    const logs = logger.isLevelEnabled('info')
    const started = logs ? performance.now() : 0
    const headers = req.headers
    const offered = headers['x-request-id']
    const requestId = typeof offered === 'string' && ACCEPTABLE_ID.test(offered) ? offered : randomUUID()
    const prefer = headers.prefer
    const waitSeconds = parseWaitSeconds(Array.isArray(prefer) ? prefer.join(',') : prefer)
    const finish = (answer: BundleAnswer, held = false) => {
      if (res.destroyed) return // the agent went away while held
      if (answer.status === 503) {
        metrics.longPollRejected.inc()
        res.writeHead(503, [
          'Content-Type',
          'application/json',
          'Retry-After',
          '1',
          'X-Request-Id',
          requestId,
        ])
        res.end(TOO_MANY_WAITERS_TEXT)
      } else if (answer.status === 304) {
        res.writeHead(304, ['ETag', answer.served.etag, 'X-Request-Id', requestId])
        res.end()
      } else {
        const bytes = answer.served.bytes
        res.writeHead(200, [
          'ETag',
          answer.served.etag,
          'Content-Type',
          waitSeconds !== undefined ? LONG_POLL_CONTENT_TYPE : 'application/gzip',
          'Content-Length',
          String(bytes.byteLength),
          'X-Request-Id',
          requestId,
        ])
        if (held) {
          // A promotion answers every held poll in one pass of microtasks: send all the headers
          // first and the bodies after, so the last agent hears of the new bundle at once instead
          // of after a thousand bundle copies have been written ahead of it.
          res.flushHeaders()
          setImmediate(() => res.end(bytes))
        } else {
          res.end(bytes)
        }
      }
      const code = answer.status === 304 ? '304' : answer.status === 200 ? '200' : '503'
      if (answer.status !== 503) tallies.agentBundleResponses.add(state.target.name, code)
      tallies.agentRequests.add('bundle', code)
      if (logs) {
        const duration = Math.round((performance.now() - started) * 100) / 100
        logger.info(
          { req_id: requestId, method: 'GET', path, status: answer.status, duration_ms: duration },
          'request',
        )
      }
    }
    const ifNoneMatch = headers['if-none-match']
    const current = matchesEtag(ifNoneMatch, served.etag)
    if (waitSeconds === undefined || !current) {
      finish({ status: current ? 304 : 200, served })
      return true
    }
    // A long poll: held until a promotion wakes it, the wait passes, or the agent goes away.
    // Callbacks on the waiter itself, no promise or AbortController per held request (waiters.ts).
    const waiters = cache.waiters
    const deadline = performance.now() + Math.min(waitSeconds, options.maxWaitSeconds) * 1000
    let waiter: Waiter | undefined
    const onEnd = (outcome: WaitOutcome) => {
      waiter = undefined
      const now = state.served ?? served
      const same = matchesEtag(ifNoneMatch, now.etag)
      const remaining = deadline - performance.now()
      if (outcome === 'promoted' && same && remaining > 0) {
        // Promoted to the ETag the agent already has: keep holding for the rest of its wait.
        waiter = waiters.hold(state.target.resource, remaining, onEnd)
        if (!waiter) finish({ status: 503, reason: 'too_many_waiters' }, true)
        return
      }
      finish({ status: same ? 304 : 200, served: now }, true)
    }
    waiter = waiters.hold(state.target.resource, deadline - performance.now(), onEnd)
    if (!waiter) {
      finish({ status: 503, reason: 'too_many_waiters' })
      return true
    }
    res.once('close', () => {
      if (waiter) waiters.release(waiter, 'aborted')
    })
    return true
  }
}
