/**
 * `GET /v1/decisions/counts`: how many decisions per time bucket and result kind, for the
 * console's chart (docs/service.md, "Decision counts"). Filters as the search has them
 * (`system`, `result_kind`, `start_time`, `end_time`, `default_timezone`) plus `bucket`, a Go
 * duration; the range defaults to the last hour and the bucket to a round size giving at most
 * 60 buckets. Counted in the database (store/service/decision-counts.ts); every bucket is in the
 * answer, empty ones with zero counts. Authorized as the search (`decisions.read`).
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { badRequest } from '../../core/http/index.js'
import { RESULT_KINDS } from '../decision-events.js'
import { parseDecisionSearch, requestFromQuery } from '../decision-search.js'
import { parseGoDuration } from '../go-duration.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'

/** Most buckets one answer may hold: a chart wider than a screen shows nothing more. */
export const MAX_COUNT_BUCKETS = 1000

const DEFAULT_RANGE_MS = 60 * 60 * 1000
const DEFAULT_BUCKETS = 60
// Round bucket sizes for a default, in seconds.
const ROUND_BUCKETS_S = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 10_800, 21_600, 43_200, 86_400, 604_800]

const countsQuerySchema = z.strictObject({
  system: z.string().optional(),
  result_kind: z.string().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
  default_timezone: z.string().optional(),
  bucket: z.string().optional(),
})

/** One bucket of the answer. */
export interface CountsBucket {
  start_time: string
  total: number
  counts: Record<string, number>
}

/** Routes of `/v1/decisions/counts` (mounted before `/v1/decisions/:id`). */
export function decisionCountRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  app.get('/v1/decisions/counts', async (c) => {
    const params = c.req.query()
    const checked = countsQuerySchema.safeParse(params)
    if (!checked.success) {
      const issue = checked.error.issues[0]!
      throw badRequest(
        issue.code === 'unrecognized_keys'
          ? `query: unknown parameter ${issue.keys.join(', ')}`
          : `${issue.path.join('.')}: ${issue.message}`,
      )
    }
    const { bucket, ...filters } = checked.data
    // The search's own parsing: the same time, timezone, system and kind rules and errors.
    const { query } = parseDecisionSearch(
      requestFromQuery(filters),
      deps.config.limits.max_decisions_per_page,
    )
    const endUs = query.endUs ?? Date.now() * 1000
    const startUs = query.startUs ?? endUs - DEFAULT_RANGE_MS * 1000
    if (startUs >= endUs) throw badRequest('start_time: must be before end_time')
    const bucketUs = bucket === undefined ? defaultBucketUs(endUs - startUs) : parseBucket(bucket)
    const buckets = Math.ceil((endUs - startUs) / bucketUs)
    if (buckets > MAX_COUNT_BUCKETS) {
      throw badRequest(
        `bucket: ${bucket} makes ${buckets} buckets over this range; at most ${MAX_COUNT_BUCKETS} (use a larger bucket or a shorter range)`,
      )
    }
    const rows = await deps.store.decisions.countByBucket({
      startUs,
      endUs,
      bucketUs,
      ...(query.systemIds ? { systemIds: query.systemIds } : {}),
      ...(query.resultKinds ? { resultKinds: query.resultKinds } : {}),
    })
    const kinds = query.resultKinds ?? [...RESULT_KINDS]
    const zero = () => Object.fromEntries(kinds.map((k) => [k, 0])) as Record<string, number>
    const out: CountsBucket[] = []
    for (let i = 0; i < buckets; i++) {
      out.push({ start_time: isoTime(startUs + i * bucketUs), total: 0, counts: zero() })
    }
    const totals = zero()
    for (const row of rows) {
      const item = out[row.bucket]
      if (!item) continue
      item.counts[row.resultKind] = (item.counts[row.resultKind] ?? 0) + row.count
      item.total += row.count
      totals[row.resultKind] = (totals[row.resultKind] ?? 0) + row.count
    }
    return c.json({
      request_id: c.var.requestId,
      result: {
        start_time: isoTime(startUs),
        end_time: isoTime(endUs),
        bucket_seconds: bucketUs / 1_000_000,
        kinds,
        total: out.reduce((n, b) => n + b.total, 0),
        totals,
        buckets: out,
      },
    })
  })
  return app
}

function parseBucket(text: string): number {
  const ms = parseGoDuration(text)
  if (ms === undefined || !(ms >= 1000) || !Number.isInteger(ms / 1000)) {
    throw badRequest(
      `bucket: expected a whole number of seconds as a duration such as 30s, 5m or 1h, got "${text}"`,
    )
  }
  return ms * 1000
}

/** The smallest round bucket that cuts `rangeUs` into at most DEFAULT_BUCKETS buckets. */
export function defaultBucketUs(rangeUs: number): number {
  for (const s of ROUND_BUCKETS_S) {
    if (rangeUs / (s * 1_000_000) <= DEFAULT_BUCKETS) return s * 1_000_000
  }
  // Longer than 60 weeks: whole days, as many as it takes to stay within the bucket limit.
  const days = Math.ceil(rangeUs / (DEFAULT_BUCKETS * 86_400_000_000))
  return days * 86_400_000_000
}

function isoTime(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString()
}
