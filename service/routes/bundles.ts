/**
 * Agent-facing bundle downloads: `GET /v1/bundles/systems/{id}` (the policy bundle) and
 * `GET /v1/systems/{id}/discovery` (the discovery bundle). `ETag` is the quoted revision;
 * `If-None-Match` with it answers 304, or, with `Prefer: wait=N`, holds the request until a
 * new revision is built (200 with it) or N seconds pass (304), as OPA's long polling expects.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { notFound } from '../../core/http/index.js'
import type { BundleKind } from '../../store/service/index.js'
import { BundleCache } from '../bundle-cache.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId } from '../validation.js'

/** The media type OPA needs on a 200 to keep long polling on. */
export const BUNDLE_CONTENT_TYPE = 'application/vnd.openpolicyagent.bundles'

/** Seconds from `Prefer: modes=snapshot,delta;wait=30` (parsed leniently, as OPA's syntax is loose). */
export function preferredWaitSeconds(prefer: string | undefined): number | undefined {
  const match = prefer ? /(?:^|[\s;,])wait\s*=\s*"?(\d{1,9})"?/i.exec(prefer) : null
  return match ? Number(match[1]) : undefined
}

/** The `ETag` of a revision (quoted). */
export function etagOf(revision: string): string {
  return `"${revision}"`
}

/** True when `If-None-Match` lists `etag` (weak or strong). */
export function ifNoneMatchHas(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)
}

/**
 * Routes serving bundles to agents. `cache` holds the bytes served; the bundle fast path
 * (service/bundle-fast-path.ts) answers from the same one.
 */
export function bundleRoutes(deps: ServiceDeps, cache = new BundleCache()): Hono<ServiceEnv> {
  const { store, watch } = deps
  const maxWaitSeconds = deps.config.limits.max_long_poll_seconds
  const app = new Hono<ServiceEnv>()

  async function serve(c: Context<ServiceEnv>, systemId: string, kind: BundleKind): Promise<Response> {
    let revision = await store.bundles.revisionCached(systemId, kind)
    if (revision === undefined) throw notFound(`no ${kind} bundle for system ${systemId}`)
    const known = c.req.header('If-None-Match')
    if (ifNoneMatchHas(known, etagOf(revision))) {
      const wait = preferredWaitSeconds(c.req.header('Prefer'))
      if (!wait) return notModified(c, revision)
      const changed = await watch.waitForChange(systemId, kind, {
        known: revision,
        timeoutMs: Math.min(wait, maxWaitSeconds) * 1000,
        signal: c.req.raw.signal,
      })
      if (changed === undefined) return notModified(c, revision)
      revision = changed
    }
    let bytes = cache.get(systemId, kind, revision)
    if (!bytes) {
      const row = await store.bundles.get(systemId, kind)
      if (!row) throw notFound(`no ${kind} bundle for system ${systemId}`)
      revision = row.revision
      bytes = row.bytes
      cache.set(systemId, kind, revision, bytes)
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': BUNDLE_CONTENT_TYPE,
      ETag: etagOf(revision),
    })
  }

  function notModified(c: Context<ServiceEnv>, revision: string): Response {
    // NOTE(service): a null body, although @hono/node-server then builds a WHATWG Response (a few
    // µs): with an empty string it would add `Content-Length: 0`, which RFC 9110 (8.6) forbids on
    // a 304, and with the 200's length undici closes the connection after every 304 (measured:
    // one new connection per poll).
    c.header('ETag', etagOf(revision))
    return c.body(null, 304)
  }

  app.get('/v1/bundles/systems/:system', (c) =>
    serve(c, checkId(c.req.param('system'), 'system id'), 'policy'),
  )
  app.get('/v1/systems/:system/discovery', (c) =>
    serve(c, checkId(c.req.param('system'), 'system id'), 'discovery'),
  )
  return app
}
