/**
 * Agent bundle polls are answered from cached token and revision look-ups (store/service/
 * read-cache.ts, service/authz/authorizer.ts): these check that no cache outlives what it was
 * made from on this replica. A regenerated or deleted agent token is refused on the very next
 * request, a new build is served on the very next request, and 200 / 304 follow the ETag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`cached bundle polls on ${backend.name}`, () => {
    let t: TestService
    let systemId: string
    let agentToken: string
    const bundlePath = () => `/v1/bundles/systems/${systemId}`

    async function createSystem(name: string): Promise<{ id: string; token: string }> {
      const id = (
        await t.json<{ result: { id: string } }>('POST', '/v1/systems', { body: { name, type: 't' } })
      ).body.result.id
      const config = parseYaml(await (await t.call('GET', `/v1/systems/${id}/assets/opa-config`)).text())
      return { id, token: config.services[0].credentials.bearer.token as string }
    }

    async function poll(token: string, etag?: string) {
      const res = await t.call('GET', bundlePath(), {
        token,
        headers: etag === undefined ? {} : { 'If-None-Match': etag },
      })
      const body = new Uint8Array(await res.arrayBuffer())
      return {
        status: res.status,
        etag: res.headers.get('etag'),
        length: res.headers.get('content-length'),
        body,
      }
    }

    beforeAll(async () => {
      t = await startTestService(backend)
      ;({ id: systemId, token: agentToken } = await createSystem('cached'))
    })
    afterAll(async () => t?.close())

    it('answers 304 for the current ETag (no body, no Content-Length) and 200 otherwise', async () => {
      const full = await poll(agentToken)
      expect(full.status).toBe(200)
      expect(full.etag).toMatch(/^".+"$/)
      expect(full.body.byteLength).toBeGreaterThan(0)
      for (let i = 0; i < 3; i++) {
        const same = await poll(agentToken, full.etag!)
        expect(same.status).toBe(304)
        expect(same.etag).toBe(full.etag)
        expect(same.body.byteLength).toBe(0)
        expect(same.length).toBeNull()
      }
      const other = await poll(agentToken, '"some-other-revision"')
      expect(other.status).toBe(200)
      expect(other.body).toEqual(full.body)
    })

    it('serves a new build on the very next poll', async () => {
      const before = await poll(agentToken)
      expect((await poll(agentToken, before.etag!)).status).toBe(304)
      const put = await t.json('PUT', `/v1/policies/systems/${systemId}/rules`, {
        body: { modules: { 'a.rego': 'package a\n\nallow := true\n' } },
      })
      expect(put.status).toBe(200)
      const after = await poll(agentToken, before.etag!)
      expect(after.status).toBe(200)
      expect(after.etag).not.toBe(before.etag)
      expect(after.body).not.toEqual(before.body)
      expect((await poll(agentToken, after.etag!)).status).toBe(304)
    })

    it('refuses a regenerated agent token on the very next poll, and takes the new one', async () => {
      const { id, token } = await createSystem('rotated')
      const path = `/v1/bundles/systems/${id}`
      expect((await t.call('GET', path, { token })).status).toBe(200)
      expect((await t.call('GET', path, { token })).status).toBe(200)
      const tokens = await t.json<{ result: Array<{ id: string }> }>('GET', '/v1/tokens')
      const agentId = tokens.body.result.map((r) => r.id).find((tokenId) => tokenId.includes(id))
      expect(agentId).toBeDefined()
      const regenerated = await t.json<{ result: string }>('PUT', `/v1/tokens/${agentId}`, {
        body: { regenerate: true },
      })
      expect(regenerated.status).toBe(200)
      expect((await t.call('GET', path, { token })).status).toBe(401)
      expect((await t.call('GET', path, { token: regenerated.body.result })).status).toBe(200)
    })

    it('refuses the agent token of a deleted system on the very next poll', async () => {
      const { id, token } = await createSystem('deleted')
      const path = `/v1/bundles/systems/${id}`
      expect((await t.call('GET', path, { token })).status).toBe(200)
      expect((await t.call('DELETE', `/v1/systems/${id}`)).status).toBe(200)
      expect((await t.call('GET', path, { token })).status).toBe(401)
    })
  })
}
