import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

// Distinctive values, so a leak anywhere is found by a plain substring search.
const KEY_VALUE =
  '-----BEGIN OPENSSH PRIVATE KEY-----\\nLEAKCANARY-key-7f3a9c\\n-----END OPENSSH PRIVATE KEY-----'
const TOKEN_VALUE = 'LEAKCANARY-token-51e0b2'
const CANARY = 'LEAKCANARY'

interface Secret {
  id: string
  name: string
  description: string
  metadata: Record<string, string>
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`/v1/secrets on ${backend.name}`, () => {
    let t: TestService
    // Every response body of the run, searched for the values at the end.
    const seen: string[] = []
    const json = async <T = Record<string, unknown>>(
      method: string,
      path: string,
      options?: Parameters<TestService['json']>[2],
    ) => {
      const res = await t.json<T>(method, path, options)
      seen.push(JSON.stringify(res.body), JSON.stringify([...res.headers]))
      return res
    }
    beforeAll(async () => {
      t = await startTestService(backend)
    })
    afterAll(async () => t?.close())

    it('stores a secret under a slash id and answers its metadata, never its value', async () => {
      const put = await json('PUT', '/v1/secrets/git/ssh/key', {
        body: { name: 'deploy key', description: 'read-only key of policies.git', secret: KEY_VALUE },
      })
      expect(put.status).toBe(200)
      expect(put.body).toEqual({ request_id: expect.any(String) })
      const got = await json<{ result: Secret }>('GET', '/v1/secrets/git/ssh/key')
      expect(got.status).toBe(200)
      expect(got.body.result).toEqual({
        id: 'git/ssh/key',
        name: 'deploy key',
        description: 'read-only key of policies.git',
        metadata: expect.objectContaining({ created_by: 'admin', created_through: 'api' }),
      })
      // Stored sealed: the row holds no trace of the value, and the value opens again.
      const row = await t.service.store.secrets.getSealed('git/ssh/key')
      expect(JSON.stringify(row)).not.toContain(CANARY)
      expect(row!.ciphertext).toMatch(/^v1:k[0-9a-f]{16}:/)
    })

    it('accepts an empty value (a passphrase-less key) and lists every secret', async () => {
      const put = await json('PUT', '/v1/secrets/git/ssh/passphrase', {
        body: { name: 'passphrase', description: '', secret: '' },
      })
      expect(put.status).toBe(200)
      await json('PUT', '/v1/secrets/http_token', {
        body: { name: 't', description: 'd', secret: TOKEN_VALUE },
      })
      const list = await json<{ result: Secret[] }>('GET', '/v1/secrets')
      expect(list.status).toBe(200)
      expect(list.body.result.map((s) => s.id)).toEqual(['git/ssh/key', 'git/ssh/passphrase', 'http_token'])
      expect(
        list.body.result.every((s) => Object.keys(s).sort().join() === 'description,id,metadata,name'),
      ).toBe(true)
    })

    it('replaces on PUT, keeps the creation metadata, and is create-only with If-None-Match: *', async () => {
      const before = (await json<{ result: Secret }>('GET', '/v1/secrets/http_token')).body.result
      const again = await json('PUT', '/v1/secrets/http_token', {
        body: { name: 't', description: 'd', secret: 'x' },
        headers: { 'If-None-Match': '*' },
      })
      expect(again.status).toBe(409)
      expect(again.body).toMatchObject({
        code: 'resource_conflict',
        message: 'secret http_token already exists',
      })
      const replaced = await json('PUT', '/v1/secrets/http_token', {
        body: { name: 't2', description: 'rotated', secret: `${TOKEN_VALUE}-2` },
      })
      expect(replaced.status).toBe(200)
      const after = (await json<{ result: Secret }>('GET', '/v1/secrets/http_token')).body.result
      expect(after).toMatchObject({ name: 't2', description: 'rotated' })
      expect(after.metadata.created_at).toBe(before.metadata.created_at)
      const created = await json('PUT', '/v1/secrets/new/one', {
        body: { secret: 'v' },
        headers: { 'If-None-Match': '*' },
      })
      expect(created.status).toBe(200)
      expect((await json<{ result: Secret }>('GET', '/v1/secrets/new/one')).body.result).toMatchObject({
        name: '',
        description: '',
      })
    })

    it('answers 404 for an unknown secret and 400 for bad ids and bodies, naming the field', async () => {
      expect((await json('GET', '/v1/secrets/none')).status).toBe(404)
      expect((await json('DELETE', '/v1/secrets/none')).status).toBe(404)
      const badIds = ['/v1/secrets/a/%2E%2E%2Fb', '/v1/secrets/a//b', '/v1/secrets/a%20b', '/v1/secrets/']
      for (const path of badIds) {
        const res = await json('PUT', path, { body: { name: 'n', description: '', secret: 'v' } })
        expect(res.status, path).toBe(400)
        expect(res.body.message, path).toMatch(/secret id/)
      }
      const missing = await json('PUT', '/v1/secrets/x', { body: { name: 'n', description: '' } })
      expect(missing.status).toBe(400)
      expect(missing.body.message).toMatch(/^invalid secret: secret: required/)
      const wrongType = await json('PUT', '/v1/secrets/x', { body: { name: 'n', secret: 12345678 } })
      expect(wrongType.status).toBe(400)
      expect(wrongType.body.message).toMatch(/^invalid secret: secret: /)
      expect(wrongType.body.message).not.toContain('12345678')
      const misspelt = await json('PUT', '/v1/secrets/x', {
        body: { name: 'n', value: `${CANARY}-misspelt` },
      })
      expect(misspelt.status).toBe(400)
      expect(misspelt.body.errors).toContain('(body): unknown field value')
      // A malformed body is refused without quoting the text around the error (it is the value).
      const malformed = await json('PUT', '/v1/secrets/x', {
        raw: `{"name": "n", "secret": "${CANARY}-malformed\u0001"`,
        headers: { 'Content-Type': 'application/json' },
      })
      expect(malformed.status).toBe(400)
      expect(malformed.body.message).toBe(
        'malformed secret body: expected a JSON object {name, description, secret}',
      )
    })

    it('refuses systems naming secrets that do not exist, and deleting secrets a system names', async () => {
      const origin = {
        url: 'git@github.com:acme/policies.git',
        reference: 'refs/heads/main',
        credentials: '',
        ssh_credentials: { private_key: 'git/ssh/key', passphrase: 'git/ssh/missing' },
      }
      const refused = await json('POST', '/v1/systems', {
        body: { name: 'app', type: 'custom', source_control: { origin } },
      })
      expect(refused.status).toBe(400)
      expect(refused.body.message).toBe(
        'invalid system: source_control.origin.ssh_credentials.passphrase: secret "git/ssh/missing" does not exist (create it with PUT /v1/secrets/git/ssh/missing)',
      )
      origin.ssh_credentials.passphrase = 'git/ssh/passphrase'
      const created = await json<{ result: { id: string } }>('POST', '/v1/systems', {
        body: { name: 'app', type: 'custom', source_control: { origin } },
      })
      expect(created.status).toBe(200)
      const systemId = created.body.result.id
      // An update naming a missing secret is refused too; an https origin with credentials names one.
      const update = await json('PUT', `/v1/systems/${systemId}`, {
        body: {
          source_control: { origin: { url: 'https://github.com/acme/p.git', credentials: 'git/https' } },
        },
      })
      expect(update.status).toBe(400)
      expect(update.body.message).toMatch(
        /source_control\.origin\.credentials: secret "git\/https" does not exist/,
      )
      const inUse = await json('DELETE', '/v1/secrets/git/ssh/key')
      expect(inUse.status).toBe(409)
      expect(inUse.body.message).toBe(
        `secret git/ssh/key is in use by system ${systemId} (source_control.origin.ssh_credentials.private_key); change those first`,
      )
      expect((await json('DELETE', `/v1/systems/${systemId}`)).status).toBe(200)
      expect((await json('DELETE', '/v1/secrets/git/ssh/key')).status).toBe(200)
      expect((await json('GET', '/v1/secrets/git/ssh/key')).status).toBe(404)
    })

    it('requires authentication', async () => {
      expect((await json('GET', '/v1/secrets', { token: null })).status).toBe(401)
    })

    it('never lets a value reach a response or a log line', () => {
      expect(seen.length).toBeGreaterThan(20)
      expect(seen.join('\n')).not.toContain(CANARY)
      expect(t.logs.length).toBeGreaterThan(20)
      expect(t.logs.join('\n')).not.toContain(CANARY)
    })
  })
}
