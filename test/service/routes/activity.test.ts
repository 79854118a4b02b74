/**
 * The activity log through the API, on SQLite and PostgreSQL: every management request of the
 * run is recorded (refusals included, agent traffic not), bodies are redacted, v1 filters and
 * paging, v2 search with a cursor, get one, and a read whose record cannot be written (changes:
 * test/service/activity/change-transaction.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActivityData } from '../../../service/activity/record.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

interface V2Page {
  results: ActivityData[]
  cursor?: string
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`activity on ${backend.name}`, () => {
    let t: TestService
    let userToken: string
    /** Request id → the status the client saw, for every request this suite sent. */
    const sent = new Map<string, { status: number; method: string; path: string }>()
    let n = 0

    async function send(method: string, path: string, options: Parameters<TestService['call']>[2] = {}) {
      const id = `test-${backend.name}-${++n}`
      const res = await t.call(method, path, {
        ...options,
        headers: { ...options.headers, 'X-Request-Id': id },
      })
      const text = await res.text()
      sent.set(id, { status: res.status, method, path: path.split('?')[0]! })
      return { status: res.status, body: text === '' ? {} : JSON.parse(text), id }
    }

    /** Every record, oldest first, read through the v2 cursor with small pages. */
    async function allRecords(): Promise<ActivityData[]> {
      const out: ActivityData[] = []
      let cursor: string | undefined
      for (let page = 0; page < 500; page++) {
        const q = `/v2/activity?order=ASC&limit=7${cursor ? `&cursor=${cursor}` : ''}`
        const { status, body } = await t.json<V2Page>('GET', q)
        expect(status).toBe(200)
        out.push(...body.results)
        cursor = body.cursor
        if (!cursor) return out
      }
      throw new Error('more than 500 pages')
    }

    beforeAll(async () => {
      t = await startTestService(backend, '{activity: {max_body_bytes: 2048}}')
      const created = await t.json('PUT', '/v1/tokens/reader', { body: { description: 'no role' } })
      userToken = created.body.result as string
    })
    afterAll(async () => t?.close())

    it('records every management request, refused ones included, and no agent traffic', async () => {
      await send('GET', '/v1/systems')
      await send('PUT', '/v1/data/activity-test', { body: { a: 1 } })
      await send('GET', '/v1/systems', { token: null })
      await send('GET', '/v1/systems', { token: 'not-a-token' })
      await send('GET', '/v1/tokens', { token: userToken })
      await send('DELETE', '/v1/tokens/reader-nope', { token: userToken })
      await send('GET', '/v1/no-such-route')
      await send('POST', '/v1/activity', { body: { count: 5000 } })
      const agent = await send('POST', '/v1/logs', { body: [] })
      expect(agent.status).toBe(200)
      const records = await allRecords()
      const byId = new Map(records.map((r) => [r.request.id, r]))
      for (const [id, { status, method, path }] of sent) {
        if (path === '/v1/logs') {
          expect(byId.has(id), `agent traffic ${id} is not recorded`).toBe(false)
          continue
        }
        const record = byId.get(id)
        expect(record, `request ${id} ${method} ${path} is recorded`).toBeDefined()
        expect(record!.request).toMatchObject({ method, path, id })
        expect(record!.response.status_code).toBe(status)
        expect(typeof record!.duration).toBe('number')
        expect(Date.parse(record!.response.timestamp)).toBeGreaterThanOrEqual(
          Date.parse(record!.request.timestamp),
        )
      }
      // Each request once, whatever else the suite has recorded before.
      expect(records.filter((r) => sent.has(r.request.id))).toHaveLength(sent.size - 1)
      const of = (status: number, token?: string) =>
        records.filter(
          (r) =>
            sent.has(r.request.id) &&
            r.response.status_code === status &&
            (token === undefined || r.request.requested_by === token),
        )
      // 401: anonymous, audit, the reason recorded.
      for (const r of of(401)) {
        expect(r.request).toMatchObject({ class: 'audit', requested_by: '', requested_through: 'anonymous' })
        expect(r.request.errors?.evaluation).toMatch(/token|Authorization/)
        expect(r.decision).toBeUndefined()
      }
      expect(of(401)).toHaveLength(2)
      // 403: the token's id, audit, a refusing decision.
      const refused = of(403, 'reader')
      expect(refused).toHaveLength(2)
      for (const r of refused) {
        expect(r.request).toMatchObject({ class: 'audit', requested_through: 'token' })
        expect(r.decision?.output.allow).toBe(false)
      }
      // A read is `activity`, a change `audit`; both by the administrator's token.
      const reads = of(200, 'admin').filter((r) => r.request.method === 'GET')
      expect(reads.length).toBeGreaterThan(0)
      expect(reads.every((r) => r.request.class === 'activity')).toBe(true)
      const change = records.find(
        (r) => r.request.method === 'PUT' && r.request.path === '/v1/data/activity-test',
      )
      expect(change?.request).toMatchObject({
        class: 'audit',
        requested_by: 'admin',
        request_body: '{"a":1}',
      })
      // A search is a read, and its 400 says why.
      const search = records.find((r) => r.request.path === '/v1/activity' && r.response.status_code === 400)
      expect(search?.request.class).toBe('activity')
      expect(search?.response.errors?.processing).toMatch(/count/)
    })

    it('never records secret values, and records large bodies by size only', async () => {
      const secret = 'hunter2-do-not-record'
      const { id } = await send('PUT', '/v1/data/creds', {
        body: {
          user: 'u',
          password: secret,
          nested: [{ private_key: secret, Pass_Phrase: 'x', passphrase: secret }],
        },
      })
      const big = await send('PUT', '/v1/data/big', { body: { blob: 'x'.repeat(4096) } })
      const one = await t.json<{ results: ActivityData }>('GET', `/v2/activity/${id}`)
      expect(one.status).toBe(200)
      const body = one.body.results.request.request_body!
      expect(body).not.toContain(secret)
      expect(JSON.parse(body)).toEqual({
        user: 'u',
        password: '[redacted]',
        nested: [{ private_key: '[redacted]', Pass_Phrase: 'x', passphrase: '[redacted]' }],
      })
      const large = await t.json<{ results: ActivityData }>('GET', `/v2/activity/${big.id}`)
      expect(large.body.results.request.request_body).toMatch(/^\[not recorded: \d+ bytes/)
      // Nothing anywhere in the log holds the value.
      const everything = await t.json('POST', '/v1/activity', { body: { count: 4096 } })
      expect(JSON.stringify(everything.body)).not.toContain(secret)
    })

    it('records what a refused caller attempted (redacted), but not bodies of unauthenticated requests', async () => {
      const refused = await send('PUT', '/v1/tokens/sneaky', {
        token: userToken,
        body: { description: 'sneaky', password: 'pw-not-recorded' },
      })
      expect(refused.status).toBe(403)
      const record = await t.json<{ results: ActivityData }>('GET', `/v2/activity/${refused.id}`)
      expect(JSON.parse(record.body.results.request.request_body!)).toEqual({
        description: 'sneaky',
        password: '[redacted]',
      })
      const anonymous = await send('PUT', '/v1/tokens/sneaky', { token: null, body: { description: 'x' } })
      expect(anonymous.status).toBe(401)
      const none = await t.json<{ results: ActivityData }>('GET', `/v2/activity/${anonymous.id}`)
      expect(none.body.results.request.request_body).toBeUndefined()
    })

    it('filters and pages v1 searches', async () => {
      const marks: string[] = []
      for (let i = 0; i < 4; i++) marks.push((await send('GET', `/v1/systems?page=${i}`)).id)
      const latest = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { count: 3 },
      })
      expect(latest.status).toBe(200)
      expect(latest.body.result.data).toHaveLength(3)
      // Newest first by default.
      const stamps = latest.body.result.data.map((r) => Date.parse(r.request.timestamp))
      expect([...stamps].sort((a, b) => b - a)).toEqual(stamps)
      const forward = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { count: 2, forward: true },
      })
      expect(forward.body.result.data.map((r) => r.request.id)).toEqual(
        (await allRecords()).slice(0, 2).map((r) => r.request.id),
      )
      const byId = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { request_id: marks[1] },
      })
      expect(byId.body.result.data.map((r) => r.request.id)).toEqual([marks[1]])
      const audits = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { class_type: 'audit', count: 4096 },
      })
      expect(audits.body.result.data.length).toBeGreaterThan(0)
      expect(audits.body.result.data.every((r) => r.request.class === 'audit')).toBe(true)
      // A window in the future holds nothing; only start_time given means one hour from it.
      const future = new Date(Date.now() + 3_600_000).toISOString()
      const none = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { start_time: future },
      })
      expect(none.body.result.data).toEqual([])
      const recent = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { end_time: new Date(Date.now() + 1000).toISOString(), count: 4096 },
      })
      expect(recent.body.result.data.map((r) => r.request.id)).toEqual(expect.arrayContaining(marks))
      const past = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { end_time: new Date(Date.now() - 7_200_000).toISOString() },
      })
      expect(past.body.result.data).toEqual([])
      for (const [bad, field] of [
        [{ count: 0 }, 'count'],
        [{ count: 4097 }, 'count'],
        [{ class_type: 'other' }, 'class_type'],
        [{ start_time: 'yesterday' }, 'start_time'],
        [{ colour: 'red' }, 'colour'],
      ] as const) {
        const res = await t.json('POST', '/v1/activity', { body: bad })
        expect(res.status).toBe(400)
        expect(res.body.message).toContain(field)
      }
      const empty = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', { raw: '' })
      expect(empty.status).toBe(200)
      expect(empty.body.result.data.length).toBeLessThanOrEqual(256)
    })

    it('pages v2 searches with a cursor, in either order, with filters', async () => {
      const all = await allRecords()
      const ids = all.map((r) => r.request.id)
      expect(new Set(ids).size).toBe(ids.length)
      // DESC pages give the same records newest first.
      const desc: string[] = []
      let cursor: string | undefined
      for (let page = 0; page < 500; page++) {
        const { body } = await t.json<V2Page>(
          'GET',
          `/v2/activity?limit=5${cursor ? `&cursor=${cursor}` : ''}`,
        )
        desc.push(...body.results.map((r) => r.request.id))
        cursor = body.cursor
        if (!cursor) break
      }
      // Newer records (the reads of allRecords itself) come first; then the same records, reversed.
      expect(desc.slice(-ids.length)).toEqual([...ids].reverse())
      expect(new Set(desc).size).toBe(desc.length)
      const denied = await t.json<V2Page>('GET', '/v2/activity?outcome=denied&limit=4096')
      expect(denied.body.results.length).toBeGreaterThanOrEqual(4)
      expect(denied.body.results.every((r) => [401, 403].includes(r.response.status_code))).toBe(true)
      const errors = await t.json<V2Page>('GET', '/v2/activity?outcome=error&limit=4096')
      expect(
        errors.body.results.every((r) => r.response.status_code >= 400 && r.response.status_code !== 403),
      ).toBe(true)
      const found = await t.json<V2Page>('GET', '/v2/activity?query=activity-test&limit=4096')
      expect(found.body.results.length).toBeGreaterThan(0)
      expect(found.body.results.every((r) => JSON.stringify(r).includes('activity-test'))).toBe(true)
      const compact = await t.json<V2Page>('GET', '/v2/activity?query=creds&compact=true')
      expect(compact.body.results[0]?.request.request_body).toBeUndefined()
      const local = await t.json<V2Page>(
        'GET',
        `/v2/activity?end_time=${encodeURIComponent(new Date(Date.now() - 7_200_000).toISOString().slice(0, 19))}&default_timezone=%2B01:00`,
      )
      expect(local.body.results).toEqual([])
      for (const [q, param] of [
        ['limit=0', 'limit'],
        ['order=sideways', 'order'],
        ['outcome=maybe', 'outcome'],
        ['cursor=bm9wZQ', 'cursor'],
        ['default_timezone=mars', 'default_timezone'],
        ['size=3', 'size'],
      ]) {
        const res = await t.json('GET', `/v2/activity?${q}`)
        expect(res.status, q).toBe(400)
        expect(res.body.message).toContain(param)
      }
      const missing = await t.json('GET', '/v2/activity/no-such-request')
      expect(missing.status).toBe(404)
    })

    // Changes whose record cannot be written: test/service/activity/change-transaction.test.ts.
    it('answers a read whose record cannot be written, and logs and counts the failure', async () => {
      const repo = t.service.store.activity
      const original = repo.append
      repo.append = () => Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }))
      try {
        const read = await t.json('GET', '/v1/systems')
        expect(read.status).toBe(200)
        const refused = await t.json('GET', '/v1/tokens', { token: userToken })
        expect(refused.status).toBe(403)
      } finally {
        repo.append = original
      }
      expect(t.logs.some((l) => l.includes('activity record not written'))).toBe(true)
      const metrics = await (await fetch(`${t.url}/metrics`)).text()
      expect(metrics).toMatch(/regent_service_activity_record_failures_total 2/)
    })
  })
}
