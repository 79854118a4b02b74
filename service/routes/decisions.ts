/**
 * `/v1/decisions`: searching stored decisions (GET with query parameters or POST with a JSON
 * `DecisionsGetRequest`), paged by `cursor`, and `GET /v1/decisions/{id}` for one decision (by
 * decision id, or by the `cursor` of a search item). A search runs within
 * `limits.decision_search_budget_ms`: when that runs out first, the page holds what was found,
 * with `partial: true` and a cursor that continues where the search stopped. Items are the stored events with
 * `cursor`, `system_id`, `result_kind`, `received` and the spec's DecisionRecord fields (`Decision`: the
 * event as JSON text, `processed`) added; numbers come back exactly as sent.
 * A `stack` filter is refused (400): the service has no stacks.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { parse, stringify } from 'lossless-json'
import { notFound, readStructuredBody } from '../../core/http/index.js'
import type { StoredDecision } from '../../store/service/index.js'
import {
  type DecisionSearch,
  decisionsRequestSchema,
  decodeCursor,
  encodeCursor,
  parseDecisionSearch,
  requestFromQuery,
} from '../decision-search.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { validateBody } from '../validation.js'

// What `compact: true` keeps of an event (plus the fields the service adds).
const COMPACT_FIELDS = [
  'decision_id',
  'timestamp',
  'path',
  'query',
  'labels',
  'bundles',
  'revision',
  'requested_by',
]

interface Shape {
  compact: boolean
  inputMaxBytes?: number
  resultMaxBytes?: number
}

/**
 * The fields the service adds to each stored event. `Decision` and `processed` are the spec's
 * DecisionRecord: the decision as JSON text (as shaped: compact and trimmed items hold the
 * shaped event) and when the service processed it (stored it: the same instant as `received`).
 */
function addedFields(decision: StoredDecision, decisionText: string): Record<string, string | undefined> {
  const received = new Date(Math.floor(decision.receivedUs / 1000)).toISOString()
  return {
    cursor: encodeCursor(decision),
    system_id: decision.systemId ?? undefined,
    result_kind: decision.resultKind,
    received,
    Decision: decisionText,
    processed: received,
  }
}

const ADDED_KEYS = ['"cursor"', '"system_id"', '"result_kind"', '"received"', '"Decision"', '"processed"']

/**
 * The API item for a stored decision as JSON text. The common case splices the added fields
 * into the stored text (fast, and exact by construction); compact and trimmed items, or events
 * that carry a field of the same name, go through a lossless parse instead.
 */
export function decisionItemText(decision: StoredDecision, shape: Shape): string {
  const plain = !shape.compact && shape.inputMaxBytes === undefined && shape.resultMaxBytes === undefined
  if (plain && decision.raw.length > 2 && !ADDED_KEYS.some((k) => decision.raw.includes(k))) {
    const added = Object.entries(addedFields(decision, decision.raw))
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join(',')
    return `${decision.raw.slice(0, -1)},${added}}`
  }
  return stringify(decisionItem(decision, shape)) as string
}

/** The API item for a stored decision. */
export function decisionItem(decision: StoredDecision, shape: Shape): Record<string, unknown> {
  const event = parse(decision.raw) as Record<string, unknown>
  let item: Record<string, unknown> = event
  if (shape.compact)
    item = Object.fromEntries(COMPACT_FIELDS.filter((k) => k in event).map((k) => [k, event[k]]))
  const filtered: string[] = []
  for (const [field, max] of [
    ['input', shape.inputMaxBytes],
    ['result', shape.resultMaxBytes],
  ] as const) {
    if (max !== undefined && field in item && (stringify(item[field])?.length ?? 0) > max) {
      delete item[field]
      filtered.push(field)
    }
  }
  const shaped = { ...item, ...(filtered.length > 0 ? { filtered_fields: filtered } : {}) }
  // Events that carry a field the service adds keep it in `Decision`; the item shows the service's.
  return { ...shaped, ...addedFields(decision, stringify(shaped) as string) }
}

function jsonText(c: Context<ServiceEnv>, text: string): Response {
  return c.body(text, 200, { 'Content-Type': 'application/json' })
}

/** Routes of `/v1/decisions`. */
export function decisionRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store } = deps
  const maxLimit = deps.config.limits.max_decisions_per_page
  const budgetMs = deps.config.limits.decision_search_budget_ms
  const app = new Hono<ServiceEnv>()

  async function answer(c: Context<ServiceEnv>, search: DecisionSearch): Promise<Response> {
    const { query } = search
    // One extra row says whether another page exists.
    const { decisions: rows, stoppedAt } = await store.decisions.searchWithin(
      { ...query, limit: query.limit + 1 },
      budgetMs,
    )
    const page = rows.slice(0, query.limit)
    // A full page continues after its last item; a page cut short by the search budget continues
    // after the last decision the search checked, and says it is partial.
    const next = rows.length > query.limit ? page.at(-1) : stoppedAt
    const cursor = next ? `,"cursor":${JSON.stringify(encodeCursor(next))}` : ''
    const partial = rows.length <= query.limit && stoppedAt ? ',"partial":true' : ''
    const items = page.map((d) => decisionItemText(d, search)).join(',')
    return jsonText(
      c,
      `{"request_id":${JSON.stringify(c.var.requestId)},"result":{"items":[${items}]${cursor}${partial}}}`,
    )
  }

  app.get('/v1/decisions', (c) => answer(c, parseDecisionSearch(requestFromQuery(c.req.query()), maxLimit)))

  app.post('/v1/decisions', async (c) => {
    const body = (await readStructuredBody(c)) ?? {}
    const request = validateBody(decisionsRequestSchema, body, 'decision search')
    const params = c.req.query()
    for (const key of ['input_max_size', 'result_max_size'] as const) {
      if (params[key] !== undefined) request[key] = params[key]
    }
    return answer(c, parseDecisionSearch(request, maxLimit))
  })

  app.get('/v1/decisions/:id', async (c) => {
    const id = c.req.param('id')
    // Decision ids are unique per system; `?system=ID[,ID]` picks among systems sharing one.
    const systems = c.req.query('system')
    const systemIds = systems === undefined ? undefined : systems.split(',').map((s) => s.trim())
    let decision = await store.decisions.get(id, systemIds)
    if (!decision) {
      const position = decodeCursor(id)
      if (position) decision = await store.decisions.getAt(position)
    }
    if (!decision) throw notFound(`decision ${JSON.stringify(id).slice(1, -1)} not found`)
    const params = c.req.query()
    const search = parseDecisionSearch(
      requestFromQuery({
        ...(params.input_max_size ? { input_max_size: params.input_max_size } : {}),
        ...(params.result_max_size ? { result_max_size: params.result_max_size } : {}),
      }),
      maxLimit,
    )
    return jsonText(
      c,
      `{"request_id":${JSON.stringify(c.var.requestId)},"result":${decisionItemText(decision, search)}}`,
    )
  })
  return app
}
