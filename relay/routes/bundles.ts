/**
 * `GET /v1/<resource>`: the bundle service API as an OPA agent expects it. The stored bytes
 * with their ETag; `If-None-Match` equal to the current ETag gives 304; with `Prefer: wait=N`
 * the request is held until a newer bundle is promoted or N seconds pass (then 304), and a 200
 * carries `application/vnd.openpolicyagent.bundles` so the agent stays in long-poll mode.
 */
import type { Context, Hono } from 'hono'
import { type AppEnv, HttpError, notFound, serviceUnavailable } from '../../core/http/index.js'
import type { BundleCache } from '../bundles/bundle-cache.js'
import type { RelayMetrics } from '../metrics.js'
import { normaliseResource } from '../targets.js'
import { LONG_POLL_CONTENT_TYPE } from '../upstream/fetch-bundle.js'

export interface BundleRouteOptions {
  cache: BundleCache
  metrics: RelayMetrics
  /** Cap on an agent's `wait=N`. */
  maxWaitSeconds: number
}

/**
 * The `wait=N` preference, parsed leniently: OPA sends `modes=snapshot,delta;wait=30`, which is
 * not RFC 7240 syntax, so any `wait=N` token separated by `;`, `,` or spaces counts.
 */
export function parseWaitSeconds(prefer: string | undefined): number | undefined {
  if (!prefer) return undefined
  const match = /(?:^|[\s;,])wait\s*=\s*"?(\d{1,9})"?(?=$|[\s;,])/i.exec(prefer)
  const seconds = match ? Number(match[1]) : Number.NaN
  return seconds > 0 ? seconds : undefined
}

/** Whether an `If-None-Match` value names `etag` (lists, `*` and weak tags accepted). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  const strip = (tag: string) => tag.trim().replace(/^W\//, '')
  const wanted = strip(etag)
  // Agents send the raw ETag string; accept a list too, but never split inside quotes.
  return (
    ifNoneMatch === etag ||
    (ifNoneMatch.match(/(?:W\/)?"[^"]*"|[^,\s]+/g) ?? []).some((t) => strip(t) === wanted)
  )
}

/** Installs the catch-all bundle route; install it after every other `GET /v1/...` route. */
export function installBundleRoutes(app: Hono<AppEnv>, options: BundleRouteOptions): void {
  app.get('/v1/*', (c) => serveBundle(c, options))
}

async function serveBundle(c: Context<AppEnv>, options: BundleRouteOptions): Promise<Response> {
  const { cache, metrics } = options
  const resource = normaliseResource(c.req.path.slice('/v1/'.length))
  const state = cache.get(resource)
  if (!state) throw notFound(`no bundle is served at /v1/${resource}`)
  const label = state.target.name
  let served = state.served
  if (!served) {
    throw serviceUnavailable(`bundle ${label} has no verified copy yet; the relay is still fetching it`, 5)
  }
  const ifNoneMatch = c.req.header('If-None-Match')
  const waitSeconds = parseWaitSeconds(c.req.header('Prefer'))
  if (matchesEtag(ifNoneMatch, served.etag) && waitSeconds !== undefined) {
    const deadline = Date.now() + Math.min(waitSeconds, options.maxWaitSeconds) * 1000
    while (served && matchesEtag(ifNoneMatch, served.etag)) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) break
      const waiting = cache.waiters.wait(resource, remaining, c.req.raw.signal)
      if (!waiting) {
        metrics.longPollRejected.inc()
        throw new HttpError(
          503,
          'too_many_waiters',
          'too many agents are long-polling; retry shortly',
          undefined,
          {
            'Retry-After': '1',
          },
        )
      }
      const outcome = await waiting
      served = state.served
      if (outcome !== 'promoted') break
    }
  }
  if (!served || matchesEtag(ifNoneMatch, served.etag)) {
    metrics.agentBundleResponses.inc({ bundle: label, code: '304' })
    // NOTE(relay): an empty string, not null, keeps @hono/node-server on its fast path (a null
    // body builds a full WHATWG Response per request, ~3x the cost of the whole 304).
    return c.newResponse('', { status: 304, headers: served ? { ETag: served.etag } : {} })
  }
  metrics.agentBundleResponses.inc({ bundle: label, code: '200' })
  return c.body(served.bytes as Uint8Array<ArrayBuffer>, 200, {
    ETag: served.etag,
    'Content-Type': waitSeconds !== undefined ? LONG_POLL_CONTENT_TYPE : 'application/gzip',
  })
}
