/**
 * The recording middleware in a small app of its own: the authorization decision it records
 * (allowed with its grant, refused with its reason), and that agent routes are skipped.
 */
import type { Hono } from 'hono'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, forbidden } from '../../../core/http/index.js'
import { isAgentTraffic, recordActivity } from '../../../service/activity/middleware.js'
import type { ActivityData } from '../../../service/activity/record.js'
import { createServiceMetrics } from '../../../service/metrics.js'
import type { ServiceEnv } from '../../../service/types.js'
import type { ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../../store/backends.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

describe('recordActivity', () => {
  let store: ServiceStore
  let close: () => Promise<void>
  let app: Hono<ServiceEnv>
  beforeAll(async () => {
    ;({ store, close } = await openTestStore(sqlite))
    const logger = pino({ level: 'silent' })
    app = createApp({ errorStyle: 'management', logger }) as unknown as Hono<ServiceEnv>
    app.use('/v1/*', recordActivity({ store, metrics: createServiceMetrics(), logger, maxBodyBytes: 1024 }))
    // Stands in for authenticate + authorize: a principal and a decision per request.
    app.use('/v1/*', async (c, next) => {
      c.set('principal', { kind: 'user', id: 'alice', roles: new Set(), systemId: null, provider: 'corp' })
      const allowed = c.req.path !== '/v1/systems/secret'
      c.set(
        'authorization',
        allowed ? { allowed, grant: { id: 'g1', role: 'SystemViewer', resource: 'system:s' } } : { allowed },
      )
      if (!allowed) throw forbidden('alice may not read system secret')
      await next()
    })
    app.get('/v1/systems/:id', (c) => c.json({ result: {} }))
    app.post('/v1/logs', (c) => c.json({}))
  })
  afterAll(async () => close?.())

  async function recordOf(id: string): Promise<ActivityData> {
    const row = await store.activity.get(id)
    expect(row, `record of ${id}`).toBeDefined()
    return JSON.parse(row!.record) as ActivityData
  }

  it('records the grant that allowed a request and who sent it', async () => {
    const res = await app.request('/v1/systems/s', {
      headers: { 'X-Request-Id': 'allowed-1', Host: 'svc:8181' },
    })
    expect(res.status).toBe(200)
    const record = await recordOf('allowed-1')
    expect(record.request).toMatchObject({
      host: 'svc:8181',
      class: 'activity',
      requested_by: 'alice',
      requested_through: 'identity-provider:corp',
    })
    expect(record.decision).toEqual({
      input: { method: 'GET', path: '/v1/systems/s', user: 'alice' },
      output: { allow: true, grant: { id: 'g1', role: 'SystemViewer', resource: 'system:s' } },
    })
    expect(
      (await store.activity.search({ order: 'DESC', limit: 10, outcome: 'allowed' })).map((r) => r.requestId),
    ).toContain('allowed-1')
  })

  it('records a refusal as audit with its reason', async () => {
    const res = await app.request('/v1/systems/secret', { headers: { 'X-Request-Id': 'refused-1' } })
    expect(res.status).toBe(403)
    const record = await recordOf('refused-1')
    expect(record.request.class).toBe('audit')
    expect(record.request.errors?.evaluation).toBe('alice may not read system secret')
    expect(record.decision?.output).toEqual({
      allow: false,
      status: { reason: 'alice may not read system secret' },
    })
    const row = await store.activity.get('refused-1')
    expect(row?.outcome).toBe('denied')
  })

  it('skips agent traffic', async () => {
    await app.request('/v1/logs', { method: 'POST', headers: { 'X-Request-Id': 'agent-1' } })
    expect(await store.activity.get('agent-1')).toBeUndefined()
    expect(isAgentTraffic('GET', '/v1/bundles/systems/s')).toBe(true)
    expect(isAgentTraffic('GET', '/v1/systems/s/discovery')).toBe(true)
    expect(isAgentTraffic('POST', '/v1/status/x')).toBe(true)
    expect(isAgentTraffic('GET', '/v1/status')).toBe(false)
    expect(isAgentTraffic('GET', '/v1/systems/s')).toBe(false)
  })
})
