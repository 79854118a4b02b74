import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { ADMIN_TOKEN, startTestService, type TestService } from '../harness.js'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`tokens and authentication on ${backend.name}`, () => {
    let t: TestService
    beforeAll(async () => {
      t = await startTestService(backend)
    })
    afterAll(async () => t?.close())

    it('answers 401 without a usable token, in the management envelope', async () => {
      for (const token of [null, 'wrong-token', '']) {
        const { status, body } = await t.json('GET', '/v1/systems', { token })
        expect(status).toBe(401)
        expect(body).toMatchObject({
          code: 'unauthorized',
          request_id: expect.any(String),
          message: expect.any(String),
        })
      }
      const res = await t.call('GET', '/v1/systems', {
        token: null,
        headers: { Authorization: `Basic ${ADMIN_TOKEN}` },
      })
      expect(res.status).toBe(401)
    })

    it('creates a token, returns its secret once, and stores no secret', async () => {
      const created = await t.json('PUT', '/v1/tokens/ci', { body: { description: 'CI', ttl: '720h' } })
      expect(created.status).toBe(200)
      const secret = created.body.result as string
      expect(secret).toMatch(/^[\w-]{40,}$/)
      const got = await t.json<{ result: Record<string, unknown> }>('GET', '/v1/tokens/ci')
      expect(got.body.result).toMatchObject({
        id: 'ci',
        description: 'CI',
        ttl: '720h',
        allow_path_patterns: [],
      })
      expect(JSON.stringify(got.body)).not.toContain(secret)
      const row = await t.service.store.tokens.get('ci')
      expect(JSON.stringify(row)).not.toContain(secret)
      const expires = Date.parse(got.body.result.expires as string)
      expect(Math.abs(expires - (Date.now() + 720 * 3_600_000))).toBeLessThan(60_000)
      // A valid token without a role: authenticated (not 401) but forbidden.
      const denied = await t.json('GET', '/v1/tokens', { token: secret })
      expect(denied.status).toBe(403)
      expect(denied.body.code).toBe('forbidden')
      // Secrets never reach the logs.
      expect(t.logs.join('\n')).not.toContain(secret)
      expect(t.logs.join('\n')).not.toContain(ADMIN_TOKEN)
    })

    it('refuses to create over a live token with If-None-Match: * (409)', async () => {
      await t.json('PUT', '/v1/tokens/once', { body: { description: 'x' } })
      const again = await t.json('PUT', '/v1/tokens/once', {
        body: { description: 'y' },
        headers: { 'If-None-Match': '*' },
      })
      expect(again.status).toBe(409)
      expect(again.body).toMatchObject({ code: 'resource_conflict' })
    })

    it('updates without a secret, and regenerates one on request', async () => {
      const first = (await t.json('PUT', '/v1/tokens/rot', { body: { description: 'a' } })).body
        .result as string
      const update = await t.json('PUT', '/v1/tokens/rot', {
        body: { description: 'b', allow_path_patterns: ['/v1/systems.*'] },
      })
      expect(update.status).toBe(200)
      expect(update.body.result).toBeUndefined()
      expect((await t.json('GET', '/v1/systems/some-system', { token: first })).status).toBe(403)
      const second = (await t.json('PUT', '/v1/tokens/rot', { body: { description: 'b', regenerate: true } }))
        .body.result as string
      expect(second).not.toBe(first)
      expect((await t.json('GET', '/v1/systems/some-system', { token: first })).status).toBe(401)
      expect((await t.json('GET', '/v1/systems/some-system', { token: second })).status).toBe(403)
    })

    it('answers 401 for an expired token', async () => {
      const secret = (await t.json('PUT', '/v1/tokens/short', { body: { description: 's', ttl: '1ms' } }))
        .body.result as string
      await new Promise((r) => setTimeout(r, 20))
      const res = await t.json('GET', '/v1/systems', { token: secret })
      expect(res.status).toBe(401)
      expect(res.body.message).toMatch(/expired/)
    })

    it('validates token requests field by field', async () => {
      const badTtl = await t.json('PUT', '/v1/tokens/bad', { body: { description: 'x', ttl: '10 days' } })
      expect(badTtl.status).toBe(400)
      expect(badTtl.body.message).toMatch(/ttl/)
      const badPattern = await t.json('PUT', '/v1/tokens/bad', {
        body: { description: 'x', allow_path_patterns: ['(unclosed'] },
      })
      expect(badPattern.status).toBe(400)
      expect(badPattern.body.message).toMatch(/allow_path_patterns\.0/)
      const unknown = await t.json('PUT', '/v1/tokens/bad', { body: { description: 'x', colour: 'red' } })
      expect(unknown.status).toBe(400)
      expect(unknown.body.errors).toEqual([expect.stringContaining('colour')])
      const wrongType = await t.json('PUT', '/v1/tokens/bad', { body: { description: 5 } })
      expect(wrongType.body.message).toMatch(/^invalid token: description/)
      const badId = await t.json('PUT', '/v1/tokens/a%2F..%2Fb', { body: {} })
      expect(badId.status).toBe(400)
      const notJson = await t.json('PUT', '/v1/tokens/bad', {
        raw: '{"description": ',
        headers: { 'Content-Type': 'application/json' },
      })
      expect(notJson.status).toBe(400)
      expect(notJson.body.message).toMatch(/line 1/)
    })

    it('lists tokens, deletes them, and keeps the last administrator token', async () => {
      const list = await t.json<{ result: Array<{ id: string }> }>('GET', '/v1/tokens')
      expect(list.body.result.map((x) => x.id)).toEqual(expect.arrayContaining(['admin', 'ci']))
      expect((await t.json('DELETE', '/v1/tokens/ci')).status).toBe(200)
      expect((await t.json('GET', '/v1/tokens/ci')).status).toBe(404)
      expect((await t.json('DELETE', '/v1/tokens/ci')).status).toBe(404)
      const last = await t.json('DELETE', '/v1/tokens/admin')
      expect(last.status).toBe(409)
    })

    it('limits a token to its allow_path_patterns (full match)', async () => {
      const update = await t.json('PUT', '/v1/tokens/admin', {
        body: { description: 'admin', allow_path_patterns: ['/v1/systems'] },
      })
      expect(update.status).toBe(200)
      expect((await t.json('GET', '/v1/systems')).status).toBe(200)
      const outside = await t.json('GET', '/v1/tokens')
      expect(outside.status).toBe(403)
      expect(outside.body.message).toMatch(/not allowed on path/)
    })
  })
}
