/**
 * `GET /v1/<resource>`: the bundle service API as an OPA agent expects it. The stored bytes
 * with their ETag; `If-None-Match` equal to the current ETag gives 304; with `Prefer: wait=N`
 * the request is held until a newer bundle is promoted or N seconds pass (then 304), and a 200
 * carries `application/vnd.openpolicyagent.bundles` so the agent stays in long-poll mode.
 */
import type { Context, Hono } from 'hono'
import { type AppEnv, HttpError, notFound, serviceUnavailable } from '../../core/http/index.js'
import type { BundleCache, ServedBundle, TargetState } from '../../plugins/bundle/bundle-cache.js'
import { LONG_POLL_CONTENT_TYPE } from '../../plugins/bundle/fetch-bundle.js'
import { normaliseResource } from '../../plugins/bundle/targets.js'
import type { RelayMetrics } from '../metrics.js'

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

/** What to answer a bundle request with. */
export type BundleAnswer =
  | { status: 200 | 304; served: ServedBundle }
  | { status: 503; reason: 'too_many_waiters' }

/**
 * Decides the answer for a served target: 304 when `If-None-Match` names the current ETag, else
 * 200; with `wait`, a matching request is first held until a newer bundle is promoted or the
 * wait (capped at `maxWaitSeconds`) passes. Shared by the app route and the fast path.
 */
export async function answerBundle(
  cache: BundleCache,
  state: TargetState,
  current: ServedBundle,
  ifNoneMatch: string | undefined,
  waitSeconds: number | undefined,
  maxWaitSeconds: number,
  signal?: AbortSignal,
): Promise<BundleAnswer> {
  let served = current
  if (matchesEtag(ifNoneMatch, served.etag) && waitSeconds !== undefined) {
    const deadline = Date.now() + Math.min(waitSeconds, maxWaitSeconds) * 1000
    while (matchesEtag(ifNoneMatch, served.etag)) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) break
      const waiting = cache.waiters.wait(state.target.resource, remaining, signal)
      if (!waiting) return { status: 503, reason: 'too_many_waiters' }
      const outcome = await waiting
      served = state.served ?? served
      if (outcome !== 'promoted') break
    }
  }
  return { status: matchesEtag(ifNoneMatch, served.etag) ? 304 : 200, served }
}

/** The error agents get when max_waiters is reached (503 + Retry-After: 1, OPA backs off). */
export const TOO_MANY_WAITERS = {
  code: 'too_many_waiters',
  message: 'too many agents are long-polling; retry shortly',
}

async function serveBundle(c: Context<AppEnv>, options: BundleRouteOptions): Promise<Response> {
  const { cache, metrics } = options
  const resource = normaliseResource(c.req.path.slice('/v1/'.length))
  const state = cache.get(resource)
  if (!state) throw notFound(`no bundle is served at /v1/${resource}`)
  const label = state.target.name
  const served = state.served
  if (!served) {
    throw serviceUnavailable(`bundle ${label} has no verified copy yet; the relay is still fetching it`, 5)
  }
  const waitSeconds = parseWaitSeconds(c.req.header('Prefer'))
  const answer = await answerBundle(
    cache,
    state,
    served,
    c.req.header('If-None-Match'),
    waitSeconds,
    options.maxWaitSeconds,
    c.req.raw.signal,
  )
  if (answer.status === 503) {
    metrics.longPollRejected.inc()
    throw new HttpError(503, TOO_MANY_WAITERS.code, TOO_MANY_WAITERS.message, undefined, {
      'Retry-After': '1',
    })
  }
  metrics.agentBundleResponses.inc({ bundle: label, code: String(answer.status) })
  if (answer.status === 304) {
    // NOTE(relay): an empty string, not null, keeps @hono/node-server on its fast path (a null
    // body builds a full WHATWG Response per request, ~3x the cost of the whole 304).
    return c.newResponse('', { status: 304, headers: { ETag: answer.served.etag } })
  }
  return c.body(answer.served.bytes as Uint8Array<ArrayBuffer>, 200, {
    ETag: answer.served.etag,
    'Content-Type': waitSeconds !== undefined ? LONG_POLL_CONTENT_TYPE : 'application/gzip',
  })
}
