/**
 * The bundle fast path (service/bundle-fast-path.ts) must answer exactly as the app does. Three
 * views of one running service, all on the same store and caches: the service itself (fast path,
 * then the app), the app alone, and the fast path alone (511 when it passes a request on, so the
 * tests know which requests it answered). Every request is compared between the service and the
 * app alone: status, headers (but the date) and body.
 */
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { BACKENDS } from '../store/backends.js'
import { startTestService, type TestService } from './harness.js'

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

function send(base: string, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  )
}

/** The headers that must agree: all but the date (and the request id when none was offered). */
function comparable(headers: IncomingHttpHeaders, offeredId: boolean): IncomingHttpHeaders {
  const { date: _date, 'x-request-id': id, ...rest } = headers
  return offeredId ? { ...rest, 'x-request-id': id } : rest
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`bundle fast path on ${backend.name}`, () => {
    let t: TestService
    let appOnly: Server
    let fastOnly: Server
    let appUrl: string
    let fastUrl: string
    let systemId: string
    let agentToken: string
    let otherToken: string
    let etag: string
    let sent = 0

    async function createSystem(name: string): Promise<{ id: string; token: string }> {
      const id = (
        await t.json<{ result: { id: string } }>('POST', '/v1/systems', { body: { name, type: 't' } })
      ).body.result.id
      const config = parseYaml(await (await t.call('GET', `/v1/systems/${id}/assets/opa-config`)).text())
      return { id, token: config.services[0].credentials.bearer.token as string }
    }

    /**
     * Sends the request to the service and to the app alone, expects the same answer from both,
     * and says whether the fast path alone answers it.
     */
    async function compare(
      method: string,
      path: string,
      headers: Record<string, string>,
    ): Promise<{ answer: Answer; fast: boolean }> {
      // Error bodies carry the request id: offer one unless the test is about it.
      const offered = headers['X-Request-Id']
      headers = offered === undefined ? { ...headers, 'X-Request-Id': `cmp-${++sent}` } : headers
      const offeredId = offered === undefined || /^[\w.:@/+=-]{1,128}$/.test(offered)
      const viaService = await send(t.url, method, path, headers)
      // Right after: the service's request (re)filled the caches (their entries live 1 s).
      const fast = await send(fastUrl, method, path, headers)
      const viaApp = await send(appUrl, method, path, headers)
      expect(viaService.status).toBe(viaApp.status)
      expect(comparable(viaService.headers, offeredId)).toEqual(comparable(viaApp.headers, offeredId))
      expect(viaService.body.equals(viaApp.body)).toBe(true)
      expect(viaService.headers['x-request-id']).toMatch(/^[\w.:@/+=-]{1,128}$/)
      if (fast.status !== 511) {
        expect(fast.status).toBe(viaApp.status)
        expect(comparable(fast.headers, offeredId)).toEqual(comparable(viaApp.headers, offeredId))
        expect(fast.body.equals(viaApp.body)).toBe(true)
      }
      return { answer: viaApp, fast: fast.status !== 511 }
    }

    const bundlePath = () => `/v1/bundles/systems/${systemId}`
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

    beforeAll(async () => {
      t = await startTestService(backend)
      ;({ id: systemId, token: agentToken } = await createSystem('fast'))
      ;({ token: otherToken } = await createSystem('other'))
      appOnly = createServer(getRequestListener(t.service.fetch))
      fastOnly = createServer((req, res) => {
        if (t.service.fastPath(req, res)) return
        res.writeHead(511).end()
      })
      appUrl = await listen(appOnly)
      fastUrl = await listen(fastOnly)
      // The first poll goes through the app, which fills the token, revision and bytes caches.
      const first = await t.call('GET', bundlePath(), { token: agentToken })
      expect(first.status).toBe(200)
      etag = first.headers.get('etag')!
      await first.arrayBuffer()
    })
    afterAll(async () => {
      appOnly?.close()
      fastOnly?.close()
      await t?.close()
    })

    it('answers a good token 200 with the bundle, and 304 for the current ETag, as the app does', async () => {
      const full = await compare('GET', bundlePath(), { ...bearer(agentToken), 'X-Request-Id': 'req-1' })
      expect(full).toMatchObject({ answer: { status: 200 }, fast: true })
      expect(full.answer.headers['x-request-id']).toBe('req-1')
      expect(full.answer.headers.etag).toBe(etag)
      expect(full.answer.body.byteLength).toBeGreaterThan(0)
      const same = await compare('GET', bundlePath(), { ...bearer(agentToken), 'If-None-Match': etag })
      expect(same).toMatchObject({ answer: { status: 304 }, fast: true })
      expect(same.answer.headers['content-length']).toBeUndefined()
      expect(same.answer.body.byteLength).toBe(0)
      const weak = await compare('GET', bundlePath(), {
        ...bearer(agentToken),
        'If-None-Match': `"x", W/${etag}`,
      })
      expect(weak).toMatchObject({ answer: { status: 304 }, fast: true })
      const other = await compare('GET', bundlePath(), { ...bearer(agentToken), 'If-None-Match': '"other"' })
      expect(other).toMatchObject({ answer: { status: 200 }, fast: true })
      // A caller's id the service does not accept is replaced, on both paths.
      const odd = await compare('GET', bundlePath(), { ...bearer(agentToken), 'X-Request-Id': 'a b' })
      expect(odd.answer.headers['x-request-id']).not.toBe('a b')
    })

    it('leaves wrong, missing and malformed tokens to the app (401)', async () => {
      for (const headers of [bearer('not-a-token'), {}, { Authorization: 'Basic abc' }]) {
        const answer = await compare('GET', bundlePath(), headers)
        expect(answer).toMatchObject({ answer: { status: 401 }, fast: false })
      }
    })

    it("leaves another system's token to the app (403), even once that token is cached", async () => {
      const { id: otherId } = await createSystem('other-cached')
      const own = await createSystem('own')
      expect((await t.call('GET', `/v1/bundles/systems/${own.id}`, { token: own.token })).status).toBe(200)
      const answer = await compare('GET', `/v1/bundles/systems/${otherId}`, bearer(own.token))
      expect(answer).toMatchObject({ answer: { status: 403 }, fast: false })
      const unrelated = await compare('GET', bundlePath(), bearer(otherToken))
      expect(unrelated.answer.status).toBe(403)
    })

    it('leaves HEAD, queries, long polls on the current revision and unknown systems to the app', async () => {
      const head = await compare('HEAD', bundlePath(), bearer(agentToken))
      expect(head.fast).toBe(false)
      expect(head.answer.status).toBe(200)
      const query = await compare('GET', `${bundlePath()}?x=1`, bearer(agentToken))
      expect(query).toMatchObject({ answer: { status: 200 }, fast: false })
      const missing = await compare('GET', '/v1/bundles/systems/no-such-system', bearer(agentToken))
      expect(missing.fast).toBe(false)
      const bad = await compare('GET', '/v1/bundles/systems/..x', bearer(agentToken))
      expect(bad.fast).toBe(false)
      // The long poll itself is held by the app; the fast path alone must not answer it.
      const held = await send(fastUrl, 'GET', bundlePath(), {
        ...bearer(agentToken),
        'If-None-Match': etag,
        Prefer: 'wait=1',
      })
      expect(held.status).toBe(511)
      const changed = await compare('GET', bundlePath(), {
        ...bearer(agentToken),
        'If-None-Match': '"old"',
        Prefer: 'wait=1',
      })
      expect(changed).toMatchObject({ answer: { status: 200 }, fast: true })
    })

    it('serves the discovery bundle the same way', async () => {
      const path = `/v1/systems/${systemId}/discovery`
      const first = await compare('GET', path, bearer(agentToken))
      const second = await compare('GET', path, bearer(agentToken))
      expect(second.answer.status).toBe(first.answer.status)
      if (second.answer.status === 200) {
        expect(second.fast).toBe(true)
        const same = await compare('GET', path, {
          ...bearer(agentToken),
          'If-None-Match': second.answer.headers.etag!,
        })
        expect(same).toMatchObject({ answer: { status: 304 }, fast: true })
      }
    })

    it('refuses a regenerated token right after the write, as the app does', async () => {
      const { id, token } = await createSystem('rotated')
      const path = `/v1/bundles/systems/${id}`
      expect((await t.call('GET', path, { token })).status).toBe(200)
      expect((await compare('GET', path, bearer(token))).fast).toBe(true)
      const tokens = await t.json<{ result: Array<{ id: string }> }>('GET', '/v1/tokens')
      const agentId = tokens.body.result.map((r) => r.id).find((tokenId) => tokenId.includes(id))
      const regenerated = await t.json<{ result: string }>('PUT', `/v1/tokens/${agentId}`, {
        body: { regenerate: true },
      })
      expect(regenerated.status).toBe(200)
      const old = await compare('GET', path, bearer(token))
      expect(old).toMatchObject({ answer: { status: 401 }, fast: false })
      const renewed = await compare('GET', path, bearer(regenerated.body.result))
      expect(renewed.answer.status).toBe(200)
    })

    it('logs and counts what it answers as the app does', async () => {
      // Through the service first: the app's answer (re)fills the caches the fast path reads.
      const warm = () => send(t.url, 'GET', bundlePath(), bearer(agentToken))
      await warm()
      const before = t.logs.length
      const answer = await send(fastUrl, 'GET', bundlePath(), {
        ...bearer(agentToken),
        'X-Request-Id': 'logged-1',
      })
      expect(answer.status).toBe(200)
      const line = t.logs
        .slice(before)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.req_id === 'logged-1')
      expect(line).toMatchObject({
        msg: 'request',
        method: 'GET',
        path: bundlePath(),
        status: 200,
        level: 30,
      })
      expect(typeof line?.duration_ms).toBe('number')
      const metric = async () => {
        const text = await (await t.call('GET', '/metrics')).text()
        const found = /regent_service_http_requests_total\{method="GET",status="304"\} (\d+)/.exec(text)
        return Number(found?.[1] ?? 0)
      }
      await warm()
      const counted = await metric()
      expect(
        (await send(fastUrl, 'GET', bundlePath(), { ...bearer(agentToken), 'If-None-Match': etag })).status,
      ).toBe(304)
      expect(await metric()).toBe(counted + 1)
    })
  })
}
