/**
 * The activity log's routes: v1 `POST /v1/activity` (an `ActivityPostRequest` body, answered as
 * `{request_id, result: {data: [ActivityData]}}`), v2 `GET /v2/activity` (a search paged by
 * `cursor`, answered as `{request_id, results, cursor}`) and `GET /v2/activity/{id}` (one request's
 * record as `{request_id, results}`). Who may call them is decided by the authorization
 * middleware (service/authz), not here. Records are stored as JSON text and spliced in as is.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { notFound, readStructuredBody } from '../../core/http/index.js'
import type { StoredActivity } from '../../store/service/index.js'
import { activityPostRequestSchema, encodeActivityCursor, v1Query, v2Search } from '../activity/search.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { validateBody } from '../validation.js'

function jsonText(c: Context<ServiceEnv>, text: string): Response {
  return c.body(text, 200, { 'Content-Type': 'application/json' })
}

/** A record without its request body and decision (v2 `compact=true`). */
function compactRecord(record: string): string {
  const data = JSON.parse(record) as { request: Record<string, unknown>; decision?: unknown }
  delete data.request.request_body
  delete data.decision
  return JSON.stringify(data)
}

/** Routes of `/v1/activity` and `/v2/activity`. */
export function activityRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store } = deps
  const budgetMs = deps.config.activity.search_budget_ms
  const app = new Hono<ServiceEnv>()

  app.post('/v1/activity', async (c) => {
    const body = (await readStructuredBody(c)) ?? {}
    const request = validateBody(activityPostRequestSchema, body, 'activity search')
    const rows = await store.activity.search(v1Query(request))
    const data = rows.map((r) => r.record).join(',')
    return jsonText(c, `{"request_id":${JSON.stringify(c.var.requestId)},"result":{"data":[${data}]}}`)
  })

  app.get('/v2/activity', async (c) => {
    const { query, compact } = v2Search(c.req.query())
    // One extra row says whether another page exists.
    const { records: rows, stoppedAt } = await store.activity.searchWithin(
      { ...query, limit: query.limit + 1 },
      budgetMs,
    )
    const page: StoredActivity[] = rows.slice(0, query.limit)
    // A full page continues after its last record; a text search cut short by its budget
    // continues after the last record it checked, and says it is partial.
    const next = rows.length > query.limit ? page.at(-1) : stoppedAt
    const cursor = next ? `,"cursor":${JSON.stringify(encodeActivityCursor(next, query.order))}` : ''
    const partial = rows.length <= query.limit && stoppedAt ? ',"partial":true' : ''
    const results = page.map((r) => (compact ? compactRecord(r.record) : r.record)).join(',')
    return jsonText(
      c,
      `{"request_id":${JSON.stringify(c.var.requestId)},"results":[${results}]${cursor}${partial}}`,
    )
  })

  app.get('/v2/activity/:id', async (c) => {
    const id = c.req.param('id')
    const row = await store.activity.get(id)
    if (!row) throw notFound(`activity record of request ${JSON.stringify(id).slice(1, -1)} not found`)
    return jsonText(c, `{"request_id":${JSON.stringify(c.var.requestId)},"results":${row.record}}`)
  })
  return app
}
