/**
 * GET /v1/decisions/counts over a real service on SQLite and PostgreSQL: decisions logged at
 * known instants are counted into the right buckets and kinds (checked against the search of the
 * same range), filters narrow the counts, empty buckets are present with zeros, bad parameters
 * are refused with the field named, and the endpoint is authorized like the search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

interface Counts {
  start_time: string
  end_time: string
  bucket_seconds: number
  kinds: string[]
  total: number
  totals: Record<string, number>
  buckets: Array<{ start_time: string; total: number; counts: Record<string, number> }>
}

// A fixed hour, so bucket boundaries are known: 10:00 to 11:00 UTC.
const BASE = Date.parse('2026-11-20T10:00:00Z')
const at = (minute: number, second = 0) => new Date(BASE + minute * 60_000 + second * 1000).toISOString()

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`decision counts on ${backend.name}`, () => {
    let t: TestService
    let viewer: string
    let nobody: string

    beforeAll(async () => {
      t = await startTestService(backend)
      for (const name of ['alpha', 'beta']) {
        const res = await t.json('PUT', `/v1/systems/${name}`, {
          body: { name, type: 'custom' },
          headers: { 'If-None-Match': '*' },
        })
        expect(res.status).toBe(200)
      }
      // alpha: minute 0 → 3 allowed, 1 denied; minute 5 → 2 denied; 59:59 and 60:00 → 2 allowed.
      // beta: minute 0 → 2 allowed, one of them with an error result.
      const events = [
        ...[0, 1, 2].map((i) => event(`a-ok-${i}`, 'alpha', at(0, i), true)),
        event('a-no-0', 'alpha', at(0, 30), false),
        event('a-no-1', 'alpha', at(5, 1), false),
        event('a-no-2', 'alpha', at(5, 59), false),
        event('a-late', 'alpha', at(59, 59), true),
        // At the range's end: included, as the search includes it, in the last bucket.
        event('a-end', 'alpha', at(60), true),
        event('b-ok-0', 'beta', at(0, 10), true),
        { ...event('b-err', 'beta', at(0, 11), true), result: undefined, error: { code: 'eval_error' } },
        // Outside the hour: never counted.
        event('a-before', 'alpha', new Date(BASE - 1).toISOString(), true),
        event('a-after', 'alpha', new Date(BASE + 3_600_001).toISOString(), true),
      ]
      const logged = await t.call('POST', '/v1/logs', { body: events })
      expect(logged.status).toBeLessThan(300)

      viewer = (await t.json('PUT', '/v1/tokens/viewer', { body: {} })).body.result as string
      nobody = (await t.json('PUT', '/v1/tokens/nobody', { body: {} })).body.result as string
      const bound = await t.json('POST', '/v2/authz/rolebindings', {
        body: {
          resource_filter: { kind: 'workspace', id: '' },
          role_id: 'WorkspaceViewer',
          subjects: [{ kind: 'token', id: 'viewer' }],
        },
      })
      expect(bound.status).toBe(200)
    }, 60_000)
    afterAll(async () => t?.close())

    const counts = async (query: string, token?: string | null) =>
      t.json<{ result: Counts; message?: string }>('GET', `/v1/decisions/counts?${query}`, { token })
    const hour = `start_time=${at(0)}&end_time=${at(60)}`

    it('counts each decision of the range once, in its bucket and kind, as the search finds them', async () => {
      const { status, body } = await counts(`${hour}&bucket=5m`)
      expect(status, JSON.stringify(body)).toBe(200)
      const result = body.result
      expect(result.bucket_seconds).toBe(300)
      expect(result.buckets).toHaveLength(12)
      expect(result.buckets[0]!.start_time).toBe(at(0))
      expect(result.buckets[11]!.start_time).toBe(at(55))
      expect(result.buckets[0]!.counts).toMatchObject({ ALLOWED: 4, DENIED: 1, ERROR: 1 })
      expect(result.buckets[1]!.counts).toMatchObject({ ALLOWED: 0, DENIED: 2, ERROR: 0 })
      expect(result.buckets[11]!.counts).toMatchObject({ ALLOWED: 2 })
      expect(result.buckets.slice(2, 11).every((b) => b.total === 0)).toBe(true)
      expect(result.totals).toMatchObject({ ALLOWED: 6, DENIED: 3, ERROR: 1 })
      expect(result.total).toBe(10)

      // The same range through the search: the same decisions.
      const search = await t.json<{ result: { items: Array<{ result_kind: string }> } }>(
        'GET',
        `/v1/decisions?${hour}&limit=100`,
      )
      expect(search.body.result.items).toHaveLength(result.total)
      const byKind: Record<string, number> = {}
      for (const item of search.body.result.items)
        byKind[item.result_kind] = (byKind[item.result_kind] ?? 0) + 1
      expect(byKind).toEqual({ ALLOWED: 6, DENIED: 3, ERROR: 1 })
    })

    it('narrows by system and result kind, and picks a round bucket by default', async () => {
      const alpha = await counts(`${hour}&system=alpha&bucket=1h`)
      expect(alpha.body.result.buckets).toHaveLength(1)
      expect(alpha.body.result.totals).toMatchObject({ ALLOWED: 5, DENIED: 3, ERROR: 0 })

      const denied = await counts(`${hour}&result_kind=DENIED`)
      expect(denied.status).toBe(200)
      expect(denied.body.result.kinds).toEqual(['DENIED'])
      expect(denied.body.result.total).toBe(3)
      // An hour in at most 60 buckets: one minute each.
      expect(denied.body.result.bucket_seconds).toBe(60)
      expect(denied.body.result.buckets).toHaveLength(60)
      expect(denied.body.result.buckets[5]!.counts).toEqual({ DENIED: 2 })

      const none = await counts(`${hour}&system=nowhere`)
      expect(none.body.result.total).toBe(0)
    })

    it('refuses bad parameters, naming them', async () => {
      const cases: Array<[string, string]> = [
        [`${hour}&bucket=soon`, 'bucket'],
        [`${hour}&bucket=500ms`, 'bucket'],
        [`${hour}&bucket=1s`, 'at most 1000'],
        [`start_time=${at(10)}&end_time=${at(5)}`, 'start_time'],
        ['start_time=yesterday', 'start_time'],
        [`${hour}&result_kind=MAYBE`, 'result_kind'],
        [`${hour}&search=x`, 'unknown parameter search'],
      ]
      for (const [query, field] of cases) {
        const { status, body } = await counts(query)
        expect(status, query).toBe(400)
        expect(body.message, query).toContain(field)
      }
    })

    it('is authorized like the search: a viewer reads it, a token without a role is refused', async () => {
      expect((await counts(hour, viewer)).status).toBe(200)
      expect((await counts(hour, nobody)).status).toBe(403)
      expect((await t.json('GET', '/v1/decisions?limit=1', { token: nobody })).status).toBe(403)
      expect((await counts(hour, null)).status).toBe(401)
    })
  })
}

function event(id: string, system: string, timestamp: string, allow: boolean): Record<string, unknown> {
  return {
    decision_id: id,
    path: 'authz/allow',
    input: { id },
    result: allow,
    labels: { 'system-id': system },
    timestamp,
  }
}
