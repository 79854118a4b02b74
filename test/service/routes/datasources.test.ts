/**
 * `/v1/datasources` configuration on a real service: validation against each category, defaults,
 * the response shape, secrets never shown, `rest` pushes landing in the system's bundle, delete
 * removing data, and the SystemDatasources role. Runs on SQLite and (when configured) PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

const CANARY = 'LEAKCANARY-datasource-header-9c1'

interface View extends Record<string, unknown> {
  id: string
  status: { code: string; message: string; items: number | null; size: number | null }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`/v1/datasources on ${backend.name}`, () => {
    let t: TestService
    const bundleData = async (system: string) => {
      const bytes = new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${system}`)).arrayBuffer())
      return (await readBundle(bytes)).data as Record<string, unknown>
    }
    const put = (id: string, body: unknown) =>
      t.json<{ result: View; message?: string; code?: string; errors?: string[] }>(
        'PUT',
        `/v1/datasources/${id}`,
        { body },
      )

    beforeAll(async () => {
      // A long scheduler interval: these tests are about configuration, not runs.
      t = await startTestService(backend, 'datasources: {scheduler_interval: 1h}')
      for (const name of ['app', 'other']) {
        const res = await t.json('PUT', `/v1/systems/${name}`, {
          body: { name, type: 'custom' },
          headers: { 'If-None-Match': '*' },
        })
        expect(res.status).toBe(200)
      }
      expect(
        (await t.json('PUT', '/v1/secrets/http/token', { body: { name: 't', secret: CANARY } })).status,
      ).toBe(200)
    })
    afterAll(async () => t?.close())

    it('stores an http datasource with the spec defaults filled in and answers the Put shape', async () => {
      const res = await put('systems/app/users', {
        category: 'http',
        url: 'https://users.example.com/list',
        headers: [{ name: 'Authorization', secret_id: 'http/token' }],
      })
      expect(res.status).toBe(200)
      expect(res.body.result).toEqual({
        category: 'http',
        url: 'https://users.example.com/list',
        headers: [{ name: 'Authorization', secret_id: 'http/token' }],
        enabled: true,
        on_premises: false,
        polling_interval: '30s',
        method: 'GET',
        skip_tls_verification: false,
        id: 'systems/app/users',
        executed: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        metadata: expect.objectContaining({
          created_by: 'admin',
          created_through: 'api',
          last_modified_by: 'admin',
        }),
        resources: [
          { kind: 'data', path: '/v1/data/systems/app/users', system: 'app', bundle_path: 'data.users' },
        ],
        status: expect.objectContaining({ code: 'pending', last_attempt: null, last_success: null }),
      })
      const got = await t.json<{ result: View }>('GET', '/v1/datasources/systems/app/users')
      expect(got.body.result).toEqual(res.body.result)
      expect(JSON.stringify(got.body)).not.toContain(CANARY)
    })

    it('accepts a GET answer sent back as a PUT (output-only members ignored), and refuses another id', async () => {
      const got = (await t.json<{ result: View }>('GET', '/v1/datasources/systems/app/users')).body.result
      const again = await put('systems/app/users', { ...got, polling_interval: '5m' })
      expect(again.status).toBe(200)
      expect(again.body.result.polling_interval).toBe('5m')
      expect(again.body.result.metadata).toMatchObject({
        created_at: (got.metadata as { created_at: string }).created_at,
      })
      const wrong = await put('systems/app/users', { ...got, id: 'systems/app/others' })
      expect(wrong.status).toBe(400)
      expect(wrong.body.message).toContain('id')
    })

    it.each([
      [{ category: 'http', url: 'https://x', colour: 'red' }, 'unknown field colour'],
      [{ category: 'http' }, 'url: required: the URL to read'],
      [{ category: 'http', url: 'file:///etc/passwd' }, 'url: expected an absolute http:// or https:// URL'],
      [{ category: 'http', url: 'https://x', method: 'DELETE' }, 'method: expected one of GET, POST, QUERY'],
      [{ category: 'http', url: 'https://x', enabled: 'yes' }, 'enabled: expected true or false'],
      [{ category: 'http', url: 'https://x', polling_interval: '10ms' }, 'polling_interval'],
      [
        { category: 'http', url: 'https://x', policy_query: 'data.f.x' },
        'policy_filter: required when policy_query is set',
      ],
      [{ category: 'http', url: 'https://x', body: '{', raw_body: 'eA==' }, 'body: expected JSON text'],
      [
        { category: 'http', url: 'https://x', body: '{}', raw_body: 'eA==' },
        'raw_body: set either body or raw_body',
      ],
      [
        { category: 'http', url: 'https://x', headers: [{ name: 'A' }] },
        'headers.0.value: set exactly one of value and secret_id',
      ],
      [
        { category: 'http', url: 'https://x', headers: [{ name: 'A', secret_id: 'nope' }] },
        'headers.0.secret_id: secret "nope" does not exist',
      ],
      [
        { category: 'http', url: 'https://x', mtls_certificate: 'PEM' },
        'mtls_private_key_secret_id: required',
      ],
      [
        { url: 'https://x' },
        'category: required: one of http, rest, git/content, git/blame, git/rego, ldap, cloud/objstore, store2/content, bundle/objstore, store2/bundle, idp, cloud/ecr',
      ],
      [{ category: 'ftp' }, 'category: "ftp" is not one of'],
      [{ category: 'rest', on_premises: true }, 'unknown field on_premises'],
      [{ category: 'rest', content_type: 'text/csv' }, 'content_type: expected application/json'],
      [
        {
          category: 'ldap',
          urls: ['ldap://h'],
          search: { base_DN: 'dc=x', filter: '(a=b)', page_size: 4294967296 },
        },
        'search.page_size: expected an integer from 0 to 4294967295',
      ],
      [
        {
          category: 'ldap',
          urls: ['ldap://h'],
          search: { base_DN: 'dc=x', filter: '(a=b)', scope: 'subtree' },
        },
        'search.scope: expected one of base-object',
      ],
      [
        {
          category: 'ldap',
          urls: ['ldap://h'],
          search: { base_DN: 'dc=x', filter: '(a=b)', deref: 'sometimes' },
        },
        'search.deref: expected one of never',
      ],
      [{ category: 'ldap', urls: ['ldap://h'], search: { filter: '(a=b)' } }, 'search.base_DN'],
      [{ category: 'ldap', urls: ['ldap://h'] }, 'search'],
      [{ category: 'stream', urls: [] }, 'urls: expected at least one broker'],
      [{ category: 'cluster/resources' }, 'on_premises: required: must be true'],
      [{ category: 'cluster/resources', on_premises: false }, 'on_premises: required: must be true'],
      [{ category: 'git/content', url: 'https://g', timeout: 'soon' }, 'timeout'],
      [
        { category: 'git/blame', url: 'https://g', path_regexp: '(' },
        'path_regexp: expected a regular expression',
      ],
      [{ category: 'git/rego', url: 'https://g', policy_filter: 'package x' }, 'unknown field policy_filter'],
      [
        { category: 'git/rego', url: 'https://g', ssh_credentials: { passphrase: 'p' } },
        'ssh_credentials.private_key',
      ],
      [
        { category: 'bundle/objstore', bucket: 'b', credentials: 'http/token' },
        'path: required: the bundle object path',
      ],
      [{ category: 'store2/content', bucket: 'b' }, 'credentials'],
      [{ category: 'cloud/ecr', credentials: 'http/token' }, 'region'],
      [
        {
          category: 'idp',
          idp_tenant: 'example.okta.com',
          idp_client_id: 'c',
          idp_client_secret: 'http/token',
        },
        'idp_tenant: expected a URL with its protocol',
      ],
      [
        { category: 'cloud/ecr', region: 'eu', credentials: 'http/token', rate_limit: 0 },
        'rate_limit: expected a positive number',
      ],
    ])('refuses %j with 400 naming the field', async (body, expected) => {
      const res = await put('systems/app/bad', body)
      expect(res.status).toBe(400)
      expect(`${res.body.message}\n${(res.body.errors ?? []).join('\n')}`).toContain(expected)
      expect((await t.json('GET', '/v1/datasources/systems/app/bad')).status).toBe(404)
    })

    it('refuses a filter that does not parse or compile, naming the field and line', async () => {
      const res = await put('systems/app/bad', {
        category: 'http',
        url: 'https://x',
        policy_filter: 'package f\n\nx := input.\n',
        policy_query: 'data.f.x',
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toMatch(/policy_filter: policy_filter\.rego:\d+:\d+: rego_parse_error/)
      const query = await put('systems/app/bad', {
        category: 'http',
        url: 'https://x',
        policy_filter: 'package f\n\nx := input.users\n',
        policy_query: 'data.f.x[',
      })
      expect(query.status).toBe(400)
      expect(query.body.message).toContain('policy_query:')
    })

    it('stores every category of the spec, stream included, with its defaults filled in', async () => {
      const res = await put('systems/app/events', {
        category: 'stream',
        urls: ['127.0.0.1:9092'],
        topic: 'users',
      })
      expect(res.status).toBe(200)
      const got = await t.json('GET', '/v1/datasources/systems/app/events')
      expect(got.status).toBe(200)
      expect(got.body.result).toMatchObject({ category: 'stream', enabled: true, polling_interval: '30s' })
      expect((await t.json('DELETE', '/v1/datasources/systems/app/events')).status).toBe(200)
    })

    it('refuses ids that name no system datasource or a missing system', async () => {
      expect((await put('systems/app', { category: 'rest' })).status).toBe(400)
      expect((await put('systems/nosuch/users', { category: 'rest' })).status).toBe(404)
      expect((await put('systems/app/bad%20name', { category: 'rest' })).status).toBe(400)
    })

    it('takes JSON pushes into a rest datasource and places them in the system bundle', async () => {
      expect((await put('systems/app/pushed/teams', { category: 'rest' })).body.result.status).toMatchObject({
        code: 'pending',
      })
      const post = await t.json<{ result: View['status'] }>(
        'POST',
        '/v1/datasources/systems/app/pushed/teams',
        {
          body: { red: ['alice'], blue: ['bob', 'carol'] },
        },
      )
      expect(post.status).toBe(200)
      expect(post.body.result).toMatchObject({ code: 'ok', items: 2, size: expect.any(Number) })
      expect((await t.json('GET', '/v1/data/systems/app/pushed/teams')).body).toMatchObject({
        result: { red: ['alice'] },
      })
      expect((await bundleData('app')).pushed).toEqual({ teams: { red: ['alice'], blue: ['bob', 'carol'] } })
      // Bad pushes change nothing.
      const broken = await t.json('POST', '/v1/datasources/systems/app/pushed/teams', {
        raw: '{"red": [',
        headers: { 'Content-Type': 'application/json' },
      })
      expect(broken.status).toBe(400)
      expect(broken.body.message).toMatch(/line 1, column/)
      const csv = await t.json('POST', '/v1/datasources/systems/app/pushed/teams', {
        raw: 'a,b',
        headers: { 'Content-Type': 'text/csv' },
      })
      expect(csv.status).toBe(415)
      const huge = await t.json('POST', '/v1/datasources/systems/app/pushed/teams', {
        raw: JSON.stringify({ x: 'y'.repeat(9 * 1024 * 1024) }),
        headers: { 'Content-Type': 'application/json' },
      })
      expect(huge.status).toBe(413)
      expect((await bundleData('app')).pushed).toEqual({ teams: { red: ['alice'], blue: ['bob', 'carol'] } })
      // A disabled rest datasource takes nothing.
      await put('systems/app/pushed/teams', { category: 'rest', enabled: false })
      expect((await t.json('POST', '/v1/datasources/systems/app/pushed/teams', { body: {} })).status).toBe(
        409,
      )
    })

    it('lists every datasource or those of the systems asked for, never with a secret value', async () => {
      expect((await put('systems/other/feed', { category: 'rest' })).status).toBe(200)
      expect((await put('shared/regions', { category: 'rest' })).status).toBe(200)
      const all = await t.json<{ result: View[] }>('GET', '/v1/datasources')
      expect(all.body.result.map((d) => d.id)).toEqual([
        'shared/regions',
        'systems/app/pushed/teams',
        'systems/app/users',
        'systems/other/feed',
      ])
      expect(JSON.stringify(all.body)).not.toContain(CANARY)
      const app = await t.json<{ result: View[] }>('GET', '/v1/datasources?system=app')
      expect(app.body.result.map((d) => d.id)).toEqual(['systems/app/pushed/teams', 'systems/app/users'])
      const both = await t.json<{ result: View[] }>('GET', '/v1/datasources?system=app,other')
      expect(both.body.result).toHaveLength(3)
    })

    it('keeps a workspace-level datasource out of every bundle, readable under /v1/data', async () => {
      expect(
        (await t.json('POST', '/v1/datasources/shared/regions', { body: { eu: ['fr', 'de'] } })).status,
      ).toBe(200)
      expect((await t.json('GET', '/v1/data/shared/regions')).body).toMatchObject({
        result: { eu: ['fr', 'de'] },
      })
      expect(Object.keys(await bundleData('app'))).not.toContain('shared')
    })

    it('refuses to delete a secret a datasource names', async () => {
      const res = await t.json<{ message: string }>('DELETE', '/v1/secrets/http/token')
      expect(res.status).toBe(409)
      expect(res.body.message).toContain('datasource systems/app/users (headers.0.secret_id)')
    })

    it('deletes the configuration and its data, and the bundle follows', async () => {
      await put('systems/app/pushed/teams', { category: 'rest' })
      expect((await t.json('DELETE', '/v1/datasources/systems/app/pushed/teams')).status).toBe(200)
      expect((await t.json('GET', '/v1/datasources/systems/app/pushed/teams')).status).toBe(404)
      expect((await t.json('GET', '/v1/data/systems/app/pushed/teams')).status).toBe(404)
      expect((await bundleData('app')).pushed).toBeUndefined()
      expect((await t.json('DELETE', '/v1/datasources/systems/app/pushed/teams')).status).toBe(404)
    })

    it('lets a SystemDatasources token manage its own system datasources only', async () => {
      const token = (
        await t.json<{ result: string }>('PUT', '/v1/tokens/feeder', { body: { description: 'feeds data' } })
      ).body.result
      const binding = await t.json('PUT', '/v1/authz/rolebindings/systems/app/feeders', {
        body: { id: 'feeders', role_name: 'datasources', subjects: ['token:feeder'] },
      })
      expect(binding.status).toBe(200)
      const as = (method: string, path: string, body?: unknown) => t.json(method, path, { token, body })
      expect((await as('PUT', '/v1/datasources/systems/app/groups', { category: 'rest' })).status).toBe(200)
      expect((await as('POST', '/v1/datasources/systems/app/groups', { admins: ['alice'] })).status).toBe(200)
      expect((await as('GET', '/v1/datasources?system=app')).status).toBe(200)
      expect((await as('PUT', '/v1/datasources/systems/other/groups', { category: 'rest' })).status).toBe(403)
      expect((await as('PUT', '/v1/datasources/shared/groups', { category: 'rest' })).status).toBe(403)
      expect((await as('GET', '/v1/datasources')).status).toBe(403)
    })
  })
}
