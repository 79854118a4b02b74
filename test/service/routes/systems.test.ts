import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

type System = Record<string, unknown> & { id: string; name: string; status: string }

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`systems on ${backend.name}`, () => {
    let t: TestService
    beforeAll(async () => {
      t = await startTestService(backend)
    })
    afterAll(async () => t?.close())

    it('creates a system that is Ready, with its agent token and metadata', async () => {
      const created = await t.json<{ result: System }>('POST', '/v1/systems', {
        body: {
          name: 'payments',
          type: 'envoy',
          description: 'edge',
          deployment_parameters: { namespace: 'pay' },
        },
      })
      expect(created.status).toBe(200)
      const system = created.body.result
      expect(system).toMatchObject({
        name: 'payments',
        type: 'envoy',
        description: 'edge',
        status: 'Ready',
        deployment_parameters: { namespace: 'pay' },
        metadata: { created_by: 'admin', created_through: 'api' },
      })
      expect(system.id).toMatch(/^[0-9a-f]{32}$/)
      expect(system.tokens).toEqual([expect.objectContaining({ id: `system-agent-${system.id}` })])
      const token = await t.service.store.tokens.findForSystem(system.id)
      expect(token?.system_id).toBe(system.id)
    })

    it('refuses a missing name or type with field-level 400s, and a duplicate name with 409', async () => {
      const missing = await t.json('POST', '/v1/systems', { body: { description: 'x' } })
      expect(missing.status).toBe(400)
      expect(missing.body.errors).toEqual(['name: required', 'type: required'])
      const empty = await t.json('POST', '/v1/systems', { body: { name: '', type: 't' } })
      expect(empty.status).toBe(400)
      expect(empty.body.message).toMatch(/name/)
      const dup = await t.json('POST', '/v1/systems', { body: { name: 'payments', type: 'envoy' } })
      expect(dup.status).toBe(409)
    })

    it('validates source control: SSH needs empty credentials and the secret ids (rules 2, 3)', async () => {
      const bad = await t.json('POST', '/v1/systems', {
        body: {
          name: 'git-bad',
          type: 't',
          source_control: { origin: { url: 'git@github.com:o/r.git', credentials: 'creds' } },
        },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.errors).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^source_control\.origin\.credentials/),
          expect.stringMatching(/^source_control\.origin\.ssh_credentials/),
        ]),
      )
      const origin = {
        url: 'git@github.com:o/r.git',
        reference: 'refs/heads/main',
        commit: '',
        path: 'policies',
        credentials: '',
        ssh_credentials: { private_key: 'git/ssh/key', passphrase: 'git/ssh/passphrase' },
      }
      // The secrets it names must exist first (the spec's own setup stores them before the system).
      const unknown = await t.json('POST', '/v1/systems', {
        body: { name: 'git-good', type: 't', source_control: { origin } },
      })
      expect(unknown.status).toBe(400)
      expect(unknown.body.errors).toEqual([
        expect.stringMatching(
          /^source_control\.origin\.ssh_credentials\.private_key: secret "git\/ssh\/key" does not exist/,
        ),
        expect.stringMatching(
          /^source_control\.origin\.ssh_credentials\.passphrase: secret "git\/ssh\/passphrase"/,
        ),
      ])
      for (const id of ['git/ssh/key', 'git/ssh/passphrase']) {
        const put = await t.json('PUT', `/v1/secrets/${id}`, {
          body: { name: id, description: '', secret: '' },
        })
        expect(put.status).toBe(200)
      }
      const good = await t.json<{ result: System }>('POST', '/v1/systems', {
        body: { name: 'git-good', type: 't', source_control: { origin } },
      })
      expect(good.status).toBe(200)
      expect(good.body.result.source_control).toEqual({ origin })
    })

    it('creates with a chosen id only under If-None-Match: *', async () => {
      const missing = await t.json('PUT', '/v1/systems/chosen', { body: { name: 'chosen', type: 't' } })
      expect(missing.status).toBe(404)
      const created = await t.json('PUT', '/v1/systems/chosen', {
        body: { name: 'chosen', type: 't' },
        headers: { 'If-None-Match': '*' },
      })
      expect(created.status).toBe(200)
      expect(created.body.result).toMatchObject({ id: 'chosen', status: 'Ready' })
      const again = await t.json('PUT', '/v1/systems/chosen', {
        body: { name: 'x', type: 't' },
        headers: { 'If-None-Match': '*' },
      })
      expect(again.status).toBe(409)
    })

    it('updates only the fields sent; the type cannot change; a GET can be PUT back', async () => {
      const update = await t.json<{ result: System }>('PUT', '/v1/systems/chosen', {
        body: { description: 'now described' },
      })
      expect(update.status).toBe(200)
      expect(update.body.result).toMatchObject({ name: 'chosen', type: 't', description: 'now described' })
      const renamed = await t.json<{ result: System }>('PUT', '/v1/systems/chosen', {
        body: { name: 'renamed' },
      })
      expect(renamed.body.result).toMatchObject({ name: 'renamed', description: 'now described' })
      const typeChange = await t.json('PUT', '/v1/systems/chosen', { body: { type: 'other' } })
      expect(typeChange.status).toBe(400)
      expect(typeChange.body.message).toMatch(/^type: /)
      const current = (await t.json<{ result: System }>('GET', '/v1/systems/chosen')).body.result
      const putBack = await t.json('PUT', '/v1/systems/chosen', { body: { ...current, read_only: true } })
      expect(putBack.status).toBe(200)
      expect(putBack.body.result).toMatchObject({ read_only: true, name: 'renamed' })
      const wrongId = await t.json('PUT', '/v1/systems/chosen', { body: { id: 'other' } })
      expect(wrongId.status).toBe(400)
    })

    it('lists systems with type and name filters', async () => {
      const all = await t.json<{ result: System[] }>('GET', '/v1/systems')
      expect(all.body.result.map((s) => s.name).sort()).toEqual(['git-good', 'payments', 'renamed'])
      const envoy = await t.json<{ result: System[] }>('GET', '/v1/systems?type=envoy')
      expect(envoy.body.result.map((s) => s.name)).toEqual(['payments'])
      const byName = await t.json<{ result: System[] }>('GET', '/v1/systems?name=^git-')
      expect(byName.body.result.map((s) => s.name)).toEqual(['git-good'])
      const compact = await t.json<{ result: System[] }>('GET', '/v1/systems?compact=true')
      expect(Object.keys(compact.body.result[0]!).sort()).toEqual(['id', 'name', 'status', 'type'])
      expect((await t.json('GET', '/v1/systems?name=(')).status).toBe(400)
    })

    it('refuses path ids with dot segments or control characters', async () => {
      for (const id of ['..', 'a%2F..%2Fb', 'a%00b', 'a%0Ab']) {
        const res = await t.json('GET', `/v1/systems/${id}`)
        expect([400, 404]).toContain(res.status)
        if (res.status === 404) expect(res.body.code).toBe('resource_not_found')
      }
      expect((await t.json('GET', '/v1/systems/a%00b')).status).toBe(400)
    })

    it('deletes a system with its token, bundles and (recursively) policies', async () => {
      const { id } = (
        await t.json<{ result: System }>('POST', '/v1/systems', { body: { name: 'temp', type: 't' } })
      ).body.result
      await t.json('PUT', `/v1/policies/systems/${id}/p`, { body: { modules: { 'a.rego': 'package a\n' } } })
      expect((await t.json('DELETE', `/v1/systems/${id}`)).status).toBe(200)
      expect((await t.json('GET', `/v1/systems/${id}`)).status).toBe(404)
      expect(await t.service.store.tokens.findForSystem(id)).toBeUndefined()
      expect(await t.service.store.bundles.revision(id, 'policy')).toBeUndefined()
      expect((await t.json('GET', `/v1/policies/systems/${id}/p`)).status).toBe(404)
      expect((await t.json('DELETE', `/v1/systems/${id}`)).status).toBe(404)
    })
  })
}
