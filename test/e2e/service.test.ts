/**
 * The service end to end over real HTTP on 127.0.0.1, on SQLite and (when configured)
 * PostgreSQL: a system with policies and data, its signed bundle (verified with core/bundle),
 * 304s and long polls, discovery and generated configs, 10,000 decisions uploaded in gzip
 * batches with duplicates and found exactly once through every filter, status reports, and
 * the 400/401/403/404/409/413 answers.
 */
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { readBundle, verifyBundle } from '../../core/bundle/index.js'
import { parseConfig } from '../../core/config.js'
import { relayConfigSchema } from '../../relay/config.js'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'

const EVENTS = 10_000
const BATCH = 500
const BASE_MS = Date.parse('2024-05-01T00:00:00Z')
const MAX_U64 = 18446744073709551615n

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()

/** Decision i: kinds cycle ALLOWED, DENIED, DENIED (result.allowed), ERROR, UNKNOWN. */
function event(i: number, systemId: string): string {
  const ms = BASE_MS + i
  const timestamp = `${new Date(ms).toISOString().slice(0, 19)}.${String(ms % 1000).padStart(3, '0')}000123Z`
  const result = [
    '"result":true',
    '"result":false',
    '"result":{"allowed":false,"reason":"no"}',
    '"result":true,"error":{"code":"eval_error","message":"boom"}',
    '"result":{"value":"x"}',
  ][i % 5]
  const path = i % 2 === 0 ? 'app/authz/allow' : '/app/authz/deny'
  return `{"decision_id":"dec-${i}","labels":{"id":"agent-${i % 3}","version":"1.0.0","system-id":"${systemId}"},"path":"${path}","input":{"user":"u${i % 10}","n":${i}},${result},"req_id":${MAX_U64 - BigInt(i)},"timestamp":"${timestamp}","metrics":{"timer_rego_query_eval_ns":${1000 + i}}}`
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`service end to end on ${backend.name}`, () => {
    let t: TestService
    let systemId: string
    let agentToken: string
    let bundleUrl: string
    let relayYaml: string
    const keyDir = mkdtempSync(join(tmpdir(), 'regent-service-key-'))

    beforeAll(async () => {
      const keyFile = join(keyDir, 'signing.pem')
      writeFileSync(keyFile, privatePem, { mode: 0o600 })
      t = await startTestService(
        backend,
        `
bundles:
  signing: { key_file: ${JSON.stringify(keyFile)}, algorithm: RS256, key_id: service-key }
limits:
  max_body_bytes: 2097152
  max_decompressed_bytes: 16777216
  max_decisions_per_page: 5000
`,
      )
      const created = await t.json<{ result: { id: string; status: string } }>('POST', '/v1/systems', {
        body: { name: 'e2e', type: 'envoy' },
      })
      systemId = created.body.result.id
      bundleUrl = `/v1/bundles/systems/${systemId}`
      const opaConfig = parseYaml(
        await (await t.call('GET', `/v1/systems/${systemId}/assets/opa-config`)).text(),
      )
      agentToken = opaConfig.services[0].credentials.bearer.token
      relayYaml = await (await t.call('GET', `/v1/systems/${systemId}/assets/relay-config`)).text()
    })
    afterAll(async () => {
      await t?.close()
      rmSync(keyDir, { recursive: true, force: true })
    })

    it('generates an OPA bootstrap config and a relay config the relay accepts', async () => {
      const opaConfig = parseYaml(
        await (await t.call('GET', `/v1/systems/${systemId}/assets/opa-config`)).text(),
      )
      expect(opaConfig).toMatchObject({
        services: [{ name: 'regent', url: `${t.url}/v1` }],
        labels: { 'system-id': systemId, 'system-type': 'envoy' },
        discovery: { name: 'discovery', prefix: `/systems/${systemId}`, service: 'regent' },
      })
      const relay = parseConfig(relayYaml, relayConfigSchema)
      expect(relay).toMatchObject({
        bundles: {
          [`systems/${systemId}`]: {
            service: 'regent',
            resource: `bundles/systems/${systemId}`,
            signing: { keyid: 'service-key' },
          },
        },
        keys: { 'service-key': { algorithm: 'RS256', key: publicPem } },
        decision_logs: { service: 'regent' },
        status: { service: 'regent' },
      })
      const unknown = await t.json('GET', `/v1/systems/${systemId}/assets/helm-chart`)
      expect(unknown.status).toBe(404)
    })

    it('serves the system bundle signed, with an ETag, and 304 for the same revision', async () => {
      const source = 'package authz\n\nallow if input.user == "alice"\n'
      expect(
        (
          await t.json('PUT', `/v1/policies/systems/${systemId}/authz`, {
            body: { modules: { 'authz.rego': source } },
          })
        ).status,
      ).toBe(200)
      expect(
        (await t.json('PUT', `/v1/data/systems/${systemId}/roles`, { body: { alice: ['admin'] } })).status,
      ).toBe(200)
      const res = await t.call('GET', bundleUrl, { token: agentToken })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/vnd.openpolicyagent.bundles')
      const etag = res.headers.get('etag')!
      const bundle = await readBundle(new Uint8Array(await res.arrayBuffer()))
      expect(etag).toBe(`"${bundle.manifest.revision}"`)
      expect(bundle.modules.map((m) => m.path)).toEqual(['authz/authz.rego'])
      expect(bundle.data).toEqual({ roles: { alice: ['admin'] } })
      await verifyBundle(bundle, {
        keys: { 'service-key': { key: publicPem, algorithm: 'RS256' } },
        keyId: 'service-key',
      })
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .publicKey.export({ type: 'spki', format: 'pem' })
        .toString()
      await expect(
        verifyBundle(bundle, { keys: { 'service-key': { key: other, algorithm: 'RS256' } } }),
      ).rejects.toThrow()
      const again = await t.call('GET', bundleUrl, { token: agentToken, headers: { 'If-None-Match': etag } })
      expect(again.status).toBe(304)
      expect(again.headers.get('etag')).toBe(etag)
    })

    it('holds a long poll until a policy change, and answers 304 when the wait runs out', async () => {
      const etag = (await t.call('GET', bundleUrl, { token: agentToken })).headers.get('etag')!
      const timedOut = Date.now()
      const idle = await t.call('GET', bundleUrl, {
        token: agentToken,
        headers: { 'If-None-Match': etag, Prefer: 'wait=1' },
      })
      expect(idle.status).toBe(304)
      expect(Date.now() - timedOut).toBeGreaterThanOrEqual(900)
      const started = Date.now()
      const poll = t.call('GET', bundleUrl, {
        token: agentToken,
        headers: { 'If-None-Match': etag, Prefer: 'modes=snapshot,delta;wait=20' },
      })
      await new Promise((r) => setTimeout(r, 300))
      const changed = 'package authz\n\nallow if input.user == "bob"\n'
      await t.json('PUT', `/v1/policies/systems/${systemId}/authz`, {
        body: { modules: { 'authz.rego': changed } },
      })
      const res = await poll
      expect(res.status).toBe(200)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(res.headers.get('etag')).not.toBe(etag)
      const bundle = await readBundle(new Uint8Array(await res.arrayBuffer()))
      expect(bundle.modules[0]!.source).toBe(changed)
    })

    it('serves the discovery bundle with the system bundle and no services', async () => {
      const res = await t.call('GET', `/v1/systems/${systemId}/discovery`, { token: agentToken })
      expect(res.status).toBe(200)
      const etag = res.headers.get('etag')!
      const bundle = await readBundle(new Uint8Array(await res.arrayBuffer()))
      const discovery = bundle.data.discovery as Record<string, unknown>
      expect(discovery).toMatchObject({
        bundles: {
          [`systems/${systemId}`]: {
            service: 'regent',
            resource: `/bundles/systems/${systemId}`,
            persist: false,
          },
        },
        decision_logs: { service: 'regent' },
        status: { service: 'regent' },
        default_decision: 'main/main',
      })
      expect(discovery.services).toBeUndefined()
      expect(
        (
          await t.call('GET', `/v1/systems/${systemId}/discovery`, {
            token: agentToken,
            headers: { 'If-None-Match': etag },
          })
        ).status,
      ).toBe(304)
    })

    it('stores 10,000 decisions sent in gzip batches with duplicates exactly once', async () => {
      const events = Array.from({ length: EVENTS }, (_, i) => event(i, systemId))
      for (let start = 0; start < EVENTS; start += BATCH) {
        // Each batch repeats a few events of the previous one, as retrying agents do.
        const repeats = start === 0 ? [] : events.slice(start - 5, start)
        const body = gzipSync(
          `[${[...events.slice(start, start + BATCH), ...repeats, events[start]].join(',')}]`,
        )
        const res = await t.call('POST', '/v1/logs', {
          token: agentToken,
          raw: body,
          headers: { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' },
        })
        expect(res.status).toBe(200)
      }
      // A whole batch resent (an agent that timed out after the service committed).
      const resent = gzipSync(`[${events.slice(BATCH, 2 * BATCH).join(',')}]`)
      expect(
        (
          await t.call('POST', '/v1/logs/partition-a', {
            token: agentToken,
            raw: resent,
            headers: { 'Content-Encoding': 'gzip' },
          })
        ).status,
      ).toBe(200)
      expect(await t.service.store.decisions.count()).toBe(EVENTS)
    })

    async function collect(params: Record<string, string>): Promise<Array<Record<string, unknown>>> {
      const items: Array<Record<string, unknown>> = []
      let cursor: string | undefined
      for (let page = 0; page < 20; page++) {
        const query = new URLSearchParams({ limit: '2500', ...params, ...(cursor ? { cursor } : {}) })
        const res = await t.json<{ result: { items: Array<Record<string, unknown>>; cursor?: string } }>(
          'GET',
          `/v1/decisions?${query}`,
        )
        expect(res.status).toBe(200)
        items.push(...res.body.result.items)
        cursor = res.body.result.cursor
        if (!cursor) return items
      }
      throw new Error('too many pages')
    }

    it('finds every decision exactly once through each filter', async () => {
      const all = await collect({})
      const ids = all.map((d) => d.decision_id)
      expect(ids).toHaveLength(EVENTS)
      expect(new Set(ids).size).toBe(EVENTS)
      expect(ids[0]).toBe(`dec-${EVENTS - 1}`) // newest first by default
      expect((await collect({ system: systemId })).length).toBe(EVENTS)
      expect((await collect({ system: 'other' })).length).toBe(0)
      expect((await collect({ result_kind: 'ALLOWED' })).length).toBe(2000)
      expect((await collect({ result_kind: 'DENIED' })).length).toBe(4000)
      expect((await collect({ result_kind: 'ERROR,UNKNOWN' })).length).toBe(4000)
      const window = await collect({
        start_time: new Date(BASE_MS + 1000).toISOString(),
        end_time: new Date(BASE_MS + 2999).toISOString().replace('Z', '999Z'),
      })
      expect(window.length).toBe(2000)
      expect((await collect({ search: 'input.user:u3' })).length).toBe(1000)
      expect((await collect({ search: 'path:app/authz/deny' })).length).toBe(5000)
      expect((await collect({ search: 'AGENT-2' })).length).toBe(3333)
      expect((await collect({ search: 'labels.id:agent-2 -input.user:u3 kind:error' })).length).toBe(
        Array.from({ length: EVENTS }, (_, i) => i).filter((i) => i % 3 === 2 && i % 10 !== 3 && i % 5 === 3)
          .length,
      )
    })

    it('pages in ascending order, compacts, and answers POST searches', async () => {
      const first = await t.json<{ result: { items: Array<Record<string, unknown>>; cursor: string } }>(
        'GET',
        '/v1/decisions?order=ASC&limit=2',
      )
      expect(first.body.result.items.map((d) => d.decision_id)).toEqual(['dec-0', 'dec-1'])
      const next = await t.json<{ result: { items: Array<Record<string, unknown>> } }>(
        `GET`,
        `/v1/decisions?order=ASC&limit=2&cursor=${first.body.result.cursor}`,
      )
      expect(next.body.result.items.map((d) => d.decision_id)).toEqual(['dec-2', 'dec-3'])
      const compact = await t.json<{ result: { items: Array<Record<string, unknown>> } }>(
        'GET',
        '/v1/decisions?compact=true&limit=1',
      )
      expect(compact.body.result.items[0]).not.toHaveProperty('input')
      expect(compact.body.result.items[0]).toHaveProperty('decision_id')
      const posted = await t.json<{ result: { items: unknown[] } }>('POST', '/v1/decisions', {
        body: { result_kind: 'ERROR', limit: 3000 },
      })
      expect(posted.status).toBe(200)
      expect(posted.body.result.items).toHaveLength(2000)
    })

    it('returns one decision by id or cursor with its numbers exact', async () => {
      const res = await t.call('GET', '/v1/decisions/dec-42')
      const text = await res.text()
      expect(res.status).toBe(200)
      expect(text).toContain(`"req_id":${MAX_U64 - 42n}`)
      const item = JSON.parse(text).result
      expect(item).toMatchObject({
        decision_id: 'dec-42',
        system_id: systemId,
        result_kind: 'DENIED',
        path: 'app/authz/allow',
      })
      const byCursor = await t.json<{ result: { decision_id: string } }>(
        'GET',
        `/v1/decisions/${item.cursor}`,
      )
      expect(byCursor.body.result.decision_id).toBe('dec-42')
      expect((await t.json('GET', '/v1/decisions/no-such-decision')).status).toBe(404)
    })

    it('refuses bad batches whole (400), oversized bodies and gzip bombs (413)', async () => {
      const before = await t.service.store.decisions.count()
      const notArray = await t.json('POST', '/v1/logs', { token: agentToken, body: { decision_id: 'x' } })
      expect(notArray.status).toBe(400)
      expect(notArray.body.message).toMatch(/JSON array/)
      const mixed = await t.json('POST', '/v1/logs', {
        token: agentToken,
        raw: '[{"decision_id":"new-1"}, "oops"]',
      })
      expect(mixed.status).toBe(400)
      expect(mixed.body.message).toMatch(/event 1/)
      const truncated = await t.json('POST', '/v1/logs', {
        token: agentToken,
        raw: gzipSync('[{"decision_id":"new-2"}').subarray(0, 10),
        headers: { 'Content-Encoding': 'gzip' },
      })
      expect(truncated.status).toBe(400)
      expect(await t.service.store.decisions.count()).toBe(before)
      const big = await t.json('POST', '/v1/logs', {
        token: agentToken,
        raw: `[${'{"decision_id":"x"},'.repeat(120_000)}{}]`,
      })
      expect(big.status).toBe(413)
      const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20))
      const bombed = await t.json('POST', '/v1/logs', {
        token: agentToken,
        raw: bomb,
        headers: { 'Content-Encoding': 'gzip' },
      })
      expect(bombed.status).toBe(413)
      expect(await t.service.store.decisions.count()).toBe(before)
    })

    it('answers 401, 403, 404 and 409 where they belong', async () => {
      expect((await t.json('GET', bundleUrl, { token: null })).status).toBe(401)
      // An agent token reads no system's record: the list it may see is empty.
      const listed = await t.json<{ result: unknown[] }>('GET', '/v1/systems', { token: agentToken })
      expect(listed.status).toBe(200)
      expect(listed.body.result).toEqual([])
      expect(
        (
          await t.json('PUT', `/v1/policies/systems/${systemId}/x`, {
            token: agentToken,
            body: { modules: {} },
          })
        ).status,
      ).toBe(403)
      expect((await t.json('GET', '/v1/decisions', { token: agentToken })).status).toBe(403)
      const other = (
        await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
          body: { name: 'other', type: 't' },
        })
      ).body.result.id
      expect((await t.json('GET', `/v1/bundles/systems/${other}`, { token: agentToken })).status).toBe(403)
      expect(
        (await t.json('GET', `/v1/systems/${other}/assets/opa-config`, { token: agentToken })).status,
      ).toBe(403)
      expect((await t.json('GET', '/v1/bundles/systems/unknown')).status).toBe(404)
      expect((await t.json('GET', '/v1/no-such-route')).status).toBe(404)
      expect((await t.json('POST', '/v1/systems', { body: { name: 'e2e', type: 'envoy' } })).status).toBe(409)
    })

    it('keeps the latest status per agent, numbers exact', async () => {
      const report = (n: number) =>
        `{"labels":{"id":"agent-1","version":"1.0.0"},"bundles":{"systems/${systemId}":{"active_revision":"r${n}"}},"metrics":{"prometheus":{"big":${MAX_U64}}}}`
      for (const n of [1, 2]) {
        expect(
          (
            await t.call('POST', '/v1/status', {
              token: agentToken,
              raw: report(n),
              headers: { 'Content-Type': 'application/json' },
            })
          ).status,
        ).toBe(200)
      }
      const res = await t.call('GET', `/v1/status?system=${systemId}`, { token: agentToken })
      const text = await res.text()
      expect(text).toContain(`"big":${MAX_U64}`)
      expect(JSON.parse(text).result['agent-1'].bundles[`systems/${systemId}`].active_revision).toBe('r2')
      expect((await t.json('POST', '/v1/status', { token: agentToken, body: { labels: {} } })).status).toBe(
        400,
      )
      expect((await t.json('GET', '/v1/status', { token: agentToken })).status).toBe(403)
    })

    it('reports health, readiness, metrics and one log line per request', async () => {
      expect((await t.call('GET', '/health', { token: null })).status).toBe(200)
      expect((await t.call('GET', '/health/ready', { token: null })).status).toBe(200)
      const metrics = await (await t.call('GET', '/metrics', { token: null })).text()
      expect(metrics).toMatch(/regent_service_decisions_received_total\{outcome="stored"\} 10000/)
      expect(metrics).toMatch(/regent_service_http_requests_total/)
      const res = await t.call('GET', '/v1/systems', { headers: { 'X-Request-Id': 'trace-me-123' } })
      expect(res.headers.get('x-request-id')).toBe('trace-me-123')
      const line = t.logs
        .map((l) => JSON.parse(l))
        .find((l) => l.req_id === 'trace-me-123' && l.msg === 'request')
      expect(line).toMatchObject({
        method: 'GET',
        path: '/v1/systems',
        status: 200,
        duration_ms: expect.any(Number),
      })
      expect(t.logs.join('\n')).not.toContain(agentToken)
    })
  })
}
