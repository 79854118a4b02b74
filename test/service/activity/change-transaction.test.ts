/**
 * A change and its activity record commit together, on SQLite and PostgreSQL: on the normal path
 * each change has exactly one record, completed with its response; when the record cannot be
 * written (a trigger refuses inserts into `activity`), the change is not applied and the caller
 * gets 503, while reads are still answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActivityData } from '../../../service/activity/record.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'
import { refuseActivityInserts } from './refuse-activity.js'

/** Changes of several routes (each its own kind of transaction), and how to see whether each happened. */
const CHANGES: Array<{
  method: string
  path: string
  body?: unknown
  headers?: Record<string, string>
  check: string
}> = [
  { method: 'PUT', path: '/v1/data/durable/doc', body: { a: 1 }, check: '/v1/data/durable/doc' },
  {
    method: 'PUT',
    path: '/v1/systems/durable-sys',
    body: { name: 'durable-sys', type: 'custom' },
    headers: { 'If-None-Match': '*' },
    check: '/v1/systems/durable-sys',
  },
  {
    method: 'PUT',
    path: '/v1/secrets/durable/key',
    body: { secret: 's3cr3t' },
    check: '/v1/secrets/durable/key',
  },
  {
    method: 'PUT',
    path: '/v1/tokens/durable-token',
    body: { description: 'x' },
    check: '/v1/tokens/durable-token',
  },
  {
    method: 'POST',
    path: '/v2/authz/rolebindings',
    body: {
      id: 'durable-binding',
      resource_filter: { kind: 'workspace', id: '' },
      role_id: 'WorkspaceViewer',
      subjects: [{ kind: 'user', id: 'someone' }],
    },
    check: '/v2/authz/rolebindings/durable-binding',
  },
  {
    method: 'PUT',
    path: '/v1/libraries/durable_lib',
    body: { modules: { 'a.rego': 'package libraries.durable_lib\n\nx := 1\n' } },
    check: '/v1/libraries/durable_lib',
  },
  // Last: its check (the list of systems) is compared as a whole below.
  { method: 'POST', path: '/v1/blueprints/api-authorization', check: '/v1/systems' },
]

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`change transactions on ${backend.name}`, () => {
    let t: TestService
    let n = 0
    beforeAll(async () => {
      t = await startTestService(backend)
    })
    afterAll(async () => t?.close())

    async function send(change: (typeof CHANGES)[number]) {
      const id = `durable-${backend.name}-${++n}`
      const res = await t.json(change.method, change.path, {
        ...(change.body !== undefined ? { body: change.body } : {}),
        headers: { ...change.headers, 'X-Request-Id': id },
      })
      return { ...res, id }
    }

    async function recordsOf(id: string): Promise<ActivityData[]> {
      const page = await t.json<{ result: { data: ActivityData[] } }>('POST', '/v1/activity', {
        body: { request_id: id },
      })
      expect(page.status).toBe(200)
      return page.body.result.data
    }

    it('refuses a change whose record cannot be written, and applies none of it', async () => {
      const systemsBefore = await t.json<{ result: unknown[] }>('GET', '/v1/systems')
      const allow = await refuseActivityInserts(t.database, t.service.store.location)
      const answers: Array<{ status: number; message: unknown }> = []
      try {
        for (const change of CHANGES) {
          const res = await send(change)
          // Blueprints answer errors in the vendor's `{Error}` shape.
          answers.push({ status: res.status, message: res.body.message ?? res.body.Error })
        }
        // Reads still answer (their records fail, and are counted).
        expect((await t.json('GET', '/v1/systems')).status).toBe(200)
      } finally {
        await allow()
      }
      for (const [i, answer] of answers.entries()) {
        expect(answer.status, `${CHANGES[i]!.method} ${CHANGES[i]!.path}`).toBe(503)
        expect(answer.message, JSON.stringify(answer)).toMatch(
          /not applied: its activity record could not be written/,
        )
      }
      for (const change of CHANGES.slice(0, -1)) {
        expect((await t.json('GET', change.check)).status, change.check).toBe(404)
      }
      const systemsAfter = await t.json<{ result: unknown[] }>('GET', '/v1/systems')
      expect(systemsAfter.body.result).toEqual(systemsBefore.body.result)
      expect(t.logs.some((l) => l.includes('activity record not written; change rolled back'))).toBe(true)
      const metrics = await (await fetch(`${t.url}/metrics`)).text()
      const failures = Number(/regent_service_activity_record_failures_total (\d+)/.exec(metrics)?.[1])
      expect(failures).toBeGreaterThanOrEqual(CHANGES.length + 1)
    })

    it('writes each change with exactly one record, completed with its response', async () => {
      for (const change of CHANGES) {
        const res = await send(change)
        expect(res.status, `${change.method} ${change.path}`).toBe(200)
        expect((await t.json('GET', change.check)).status).toBe(200)
        const records = await recordsOf(res.id)
        expect(records).toHaveLength(1)
        const [record] = records
        expect(record!.request).toMatchObject({ method: change.method, path: change.path, class: 'audit' })
        expect(record!.response.status_code).toBe(200)
        expect(record!.duration).toBeGreaterThan(0)
        expect(Date.parse(record!.response.timestamp)).toBeGreaterThanOrEqual(
          Date.parse(record!.request.timestamp),
        )
        expect(record!.decision?.output.allow).toBe(true)
      }
    })

    it('completes the record of a change that failed after its commit with the failure', async () => {
      // A create-only PUT of an existing system fails before any write: recorded once, as 409.
      const again = await send(CHANGES[1]!)
      expect(again.status).toBe(409)
      const records = await recordsOf(again.id)
      expect(records).toHaveLength(1)
      expect(records[0]!.response.status_code).toBe(409)
      // A secret stays redacted in the record written inside the transaction.
      const secret = await send({ ...CHANGES[2]!, body: { secret: 'hunter2-value' } })
      expect(secret.status).toBe(200)
      const [record] = await recordsOf(secret.id)
      expect(record!.request.request_body).toContain('[redacted]')
      expect(JSON.stringify(record)).not.toContain('hunter2-value')
    })
  })
}
