/**
 * Issue 18's "done when": two users (signed in through an identity provider) and a CI token
 * share one service with the permissions their role bindings give them, the git credentials a
 * system names are stored sealed, and every change (and every refusal) is in the activity log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'
import {
  type JwksServer,
  type SigningKey,
  signingKey,
  signToken,
  startJwksServer,
} from '../identity/jwks-server.js'

const ISSUER = 'https://login.example.com'
const KEY_TEXT = 'PRIVATE-KEY-MATERIAL-7f3a9c'

interface ActivityRecord {
  request: { method: string; path: string; requested_by: string; request_body?: string }
  response: { status_code: number }
  decision?: { output: { allow: boolean; grant?: { role: string; resource: string } } }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`a team sharing one service on ${backend.name}`, () => {
    let jwks: JwksServer
    let key: SigningKey
    let t: TestService
    let alice: string
    let bob: string
    let ci: string

    beforeAll(async () => {
      key = await signingKey('k1', 'RS256')
      jwks = await startJwksServer([key])
      t = await startTestService(
        backend,
        `{identity_providers: [{id: corp, issuer: "${ISSUER}", audience: regent, jwks_url: "${jwks.url}"}]}`,
      )
      alice = await signToken(key, { iss: ISSUER, aud: 'regent', sub: 'alice', groups: ['dev'] })
      bob = await signToken(key, { iss: ISSUER, aud: 'regent', sub: 'bob', groups: ['auditors'] })
      ci = (await t.json<{ result: string }>('PUT', '/v1/tokens/ci', { body: { description: 'CI' } })).body
        .result
      // The administrator sets up the team: alice creates systems, auditors (a claim) read everything.
      for (const binding of [
        {
          resource_filter: { kind: 'workspace' },
          role_id: 'WorkspaceSystemCreator',
          subjects: [{ kind: 'user', id: 'alice' }],
        },
        {
          resource_filter: { kind: 'workspace' },
          role_id: 'WorkspaceViewer',
          subjects: [
            { kind: 'claim', claim_config: { identity_provider: 'corp', key: 'groups', value: 'auditors' } },
          ],
        },
      ]) {
        expect((await t.json('POST', '/v2/authz/rolebindings', { body: binding })).status).toBe(200)
      }
    })
    afterAll(async () => {
      await t?.close()
      await jwks?.close()
    })

    it('lets alice create a system, which she then owns, and grant the CI token policy edits on it', async () => {
      const created = await t.json<{ result: { id: string } }>('PUT', '/v1/systems/orders', { token: alice })
      expect(created.status).toBe(403) // creating with a chosen id needs a role on that id
      const made = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
        token: alice,
        body: { name: 'orders', type: 'custom' },
      })
      expect(made.status).toBe(200)
      const id = made.body.result.id
      expect((await t.json('GET', `/v1/systems/${id}`, { token: alice })).status).toBe(200)
      const grant = await t.json('PUT', `/v1/authz/rolebindings/systems/${id}/policy-editors`, {
        token: alice,
        body: { id: 'policy-editors', role_name: 'policy-editor', subjects: ['token:ci'] },
      })
      expect(grant.status).toBe(200)

      const policy = { body: { modules: { 'authz.rego': 'package authz\n\nallow := true\n' } } }
      expect((await t.json('PUT', `/v1/policies/systems/${id}/rules`, { token: ci, ...policy })).status).toBe(
        200,
      )
      expect(
        (await t.json('PUT', `/v1/policies/systems/${id}/rules`, { token: bob, ...policy })).status,
      ).toBe(403)
      expect((await t.json('GET', `/v1/policies/systems/${id}/rules`, { token: bob })).status).toBe(200)
      expect((await t.json('DELETE', `/v1/systems/${id}`, { token: ci })).status).toBe(403)
    })

    it('keeps users apart: bob cannot create systems and alice cannot read the activity log', async () => {
      expect(
        (await t.json('POST', '/v1/systems', { token: bob, body: { name: 'b', type: 'custom' } })).status,
      ).toBe(403)
      expect((await t.json('GET', '/v2/activity', { token: alice })).status).toBe(403)
      expect((await t.json('GET', '/v2/activity', { token: bob })).status).toBe(200)
    })

    it('gives alice ownership of what a blueprint creates for her', async () => {
      const applied = await t.json('POST', '/v1/blueprints/api-authorization', { token: alice })
      expect(applied.status).toBe(200)
      const put = await t.json('PUT', '/v1/data/systems/api-authorization/people', {
        token: alice,
        body: { admins: ['alice'], reports: {} },
      })
      expect(put.status).toBe(200)
      expect(
        (await t.json('PUT', '/v1/data/systems/api-authorization/people', { token: ci, body: {} })).status,
      ).toBe(403)
    })

    it("stores a system's git key sealed, and never shows it to anyone", async () => {
      const stored = await t.json('PUT', '/v1/secrets/git/ssh/key', {
        body: { name: 'deploy key', secret: KEY_TEXT },
      })
      expect(stored.status).toBe(200)
      // A key without a passphrase: the passphrase secret holds an empty value.
      expect((await t.json('PUT', '/v1/secrets/git/ssh/passphrase', { body: { secret: '' } })).status).toBe(
        200,
      )
      const withGit = await t.json('POST', '/v1/systems', {
        token: alice,
        body: {
          name: 'from-git',
          type: 'custom',
          source_control: {
            origin: {
              url: 'git@example.com:org/repo.git',
              reference: 'refs/heads/main',
              credentials: '',
              ssh_credentials: { private_key: 'git/ssh/key', passphrase: 'git/ssh/passphrase' },
            },
          },
        },
      })
      expect(withGit.status).toBe(200)
      const missing = await t.json('POST', '/v1/systems', {
        token: alice,
        body: {
          name: 'broken-git',
          type: 'custom',
          source_control: {
            origin: {
              url: 'git@example.com:o/r.git',
              credentials: '',
              ssh_credentials: { private_key: 'nope', passphrase: 'git/ssh/passphrase' },
            },
          },
        },
      })
      expect(missing.status).toBe(400)
      expect(JSON.stringify(missing.body)).toContain('nope')
      const read = await t.call('GET', '/v1/secrets/git/ssh/key', { token: bob })
      expect(read.status).toBe(200)
      expect(await read.text()).not.toContain(KEY_TEXT)
    })

    it('records every change and refusal, with who made it and the grant that allowed it, and no secret value', async () => {
      const page = await t.json<{ results: ActivityRecord[] }>('GET', '/v2/activity?limit=1000', {
        token: bob,
      })
      expect(page.status).toBe(200)
      const records = page.body.results
      const created = records.find(
        (r) =>
          r.request.method === 'POST' && r.request.path === '/v1/systems' && r.response.status_code === 200,
      )
      expect(created?.request.requested_by).toBe('alice')
      expect(created?.decision?.output).toMatchObject({
        allow: true,
        grant: { role: 'WorkspaceSystemCreator' },
      })
      const refused = records.find(
        (r) =>
          r.request.requested_by === 'bob' && r.request.method === 'PUT' && r.response.status_code === 403,
      )
      expect(refused?.decision?.output.allow).toBe(false)
      const ciWrite = records.find((r) => r.request.requested_by === 'ci' && r.response.status_code === 200)
      expect(ciWrite?.decision?.output.grant?.role).toBe('SystemPolicyEditor')
      expect(
        records.some((r) => r.request.path === '/v1/secrets/git/ssh/key' && r.request.method === 'PUT'),
      ).toBe(true)
      expect(JSON.stringify(records)).not.toContain(KEY_TEXT)
      expect(t.logs.join('\n')).not.toContain(KEY_TEXT)
    })
  })
}
