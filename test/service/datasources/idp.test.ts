/**
 * `idp` against a local Okta-shaped server on 127.0.0.1: the client-credentials token (HTTP Basic
 * client id and secret, the scopes of the lists asked for), users over 3 pages by `Link`
 * headers, IAM roles paginated by `_links.next`, the `idp_enable_*` switches, a 401 that fails
 * the run and keeps the last good data, and a next link off the tenant refused.
 * SQLite and (when configured) PostgreSQL.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { nextLink } from '../../../service/datasources/link-header.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

const CLIENT_ID = 'regent'
const CLIENT_SECRET = 's3cret:with/odd=chars'
const TOKEN = 'token-0123'

interface Status {
  code: string
  message: string
  items: number | null
}

const USERS = Array.from({ length: 5 }, (_, i) => ({
  id: `u${i}`,
  profile: { login: `user${i}@example.org` },
}))

/** An Okta-shaped tenant: what it was asked, and switches to make it misbehave. */
function oktaServer() {
  const state = {
    tokenRequests: [] as Array<{ authorization?: string; body: string }>,
    apiPaths: [] as string[],
    revoked: false,
    foreignNext: false,
    garbage: false,
  }
  const readBody = async (req: IncomingMessage) => {
    let body = ''
    for await (const chunk of req) body += chunk
    return body
  }
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`)
    const base = `http://${req.headers.host}`
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(value))
    }
    if (req.method === 'POST' && url.pathname === '/oauth2/v1/token') {
      const body = await readBody(req)
      state.tokenRequests.push({ authorization: req.headers.authorization, body })
      const expected = `Basic ${Buffer.from(`${CLIENT_ID}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`
      const form = new URLSearchParams(body)
      if (req.headers.authorization !== expected || form.get('grant_type') !== 'client_credentials')
        return json(401, {
          error: 'invalid_client',
          error_description: 'The client secret supplied is invalid.',
        })
      return json(200, {
        token_type: 'Bearer',
        expires_in: 3600,
        access_token: TOKEN,
        scope: form.get('scope'),
      })
    }
    state.apiPaths.push(url.pathname)
    if (state.revoked || req.headers.authorization !== `Bearer ${TOKEN}`)
      return json(401, { errorCode: 'E0000011', errorSummary: 'Invalid token provided' })
    if (state.garbage) {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end('<html>maintenance</html>')
    }
    switch (url.pathname) {
      case '/api/v1/users': {
        // Two users a page whatever `limit` asks: 3 pages for 5 users.
        const after = Number(url.searchParams.get('after') ?? 0)
        const page = USERS.slice(after, after + 2)
        const links = [`<${base}/api/v1/users?limit=200>; rel="self"`]
        if (after + 2 < USERS.length) {
          const next = state.foreignNext ? 'http://elsewhere.invalid' : base
          links.push(`<${next}/api/v1/users?after=${after + 2}&limit=200>; rel="next"`)
        }
        return json(200, page, { link: links.join(', ') })
      }
      case '/api/v1/groups':
        return json(200, [{ id: 'g1', profile: { name: 'admins' } }])
      case '/api/v1/iam/roles':
        return url.searchParams.get('after')
          ? json(200, { roles: [{ id: 'r2', label: 'Auditor' }], _links: {} })
          : json(200, {
              roles: [{ id: 'r1', label: 'Editor' }],
              _links: { next: { href: `${base}/api/v1/iam/roles?after=r1` } },
            })
      case '/api/v1/apps':
        return json(200, [{ id: 'a1', label: 'Wiki', status: 'ACTIVE' }])
      default:
        return json(404, { errorCode: 'E0000007' })
    }
  })
  return { server, state }
}

describe('nextLink', () => {
  it('finds rel="next" among several links and resolves it', () => {
    expect(nextLink('<https://t/a?x=1>; rel="self", <https://t/a?after=2>; rel="next"', 'https://t/a')).toBe(
      'https://t/a?after=2',
    )
    expect(nextLink('</a?after=3>; rel=next', 'https://t/a')).toBe('https://t/a?after=3')
    expect(nextLink('<https://t/a>; rel="self"', 'https://t/a')).toBeUndefined()
    expect(nextLink(null, 'https://t/a')).toBeUndefined()
  })
})

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`idp datasource on ${backend.name}`, () => {
    let t: TestService
    let okta: ReturnType<typeof oktaServer>
    let tenant: string
    const put = async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await t.json<{ message?: string }>('PUT', `/v1/datasources/systems/app/${name}`, {
        body: {
          category: 'idp',
          idp_tenant: tenant,
          idp_client_id: CLIENT_ID,
          idp_client_secret: 'idp/client',
          ...extra,
        },
      })
      expect(res.status, res.body.message).toBe(200)
    }
    const run = async (name: string) => {
      const res = await t.json<{ result: Status; message?: string }>(
        'POST',
        `/v1/datasources/systems/app/${name}`,
      )
      expect(res.status, res.body.message).toBe(200)
      return res.body.result
    }
    const bundleData = async () => {
      const bytes = new Uint8Array(await (await t.call('GET', '/v1/bundles/systems/app')).arrayBuffer())
      return (await readBundle(bytes)).data as Record<string, unknown>
    }

    beforeAll(async () => {
      okta = oktaServer()
      await new Promise<void>((resolve) => okta.server.listen(0, '127.0.0.1', resolve))
      tenant = `http://127.0.0.1:${(okta.server.address() as AddressInfo).port}`
      t = await startTestService(backend, 'datasources: {scheduler_interval: 1h}')
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      for (const [id, secret] of [
        ['idp/client', CLIENT_SECRET],
        ['idp/wrong', 'nope'],
      ] as const)
        expect((await t.json('PUT', `/v1/secrets/${id}`, { body: { name: 'client', secret } })).status).toBe(
          200,
        )
    })
    afterAll(async () => {
      await t?.close()
      await new Promise((resolve) => okta?.server.close(resolve))
    })

    it('reads users over 3 pages, groups, roles and apps with a client-credentials token', async () => {
      okta.state.tokenRequests.length = 0
      await put('directory')
      expect(await run('directory')).toMatchObject({ code: 'ok' })
      expect(okta.state.tokenRequests).toHaveLength(1)
      expect(new URLSearchParams(okta.state.tokenRequests[0]?.body).get('scope')).toBe(
        'okta.users.read okta.groups.read okta.roles.read okta.apps.read',
      )
      const data = (await bundleData()).directory as Record<string, unknown[]>
      expect(data.users).toEqual(USERS)
      expect(data.groups).toEqual([{ id: 'g1', profile: { name: 'admins' } }])
      expect(data.roles).toEqual([
        { id: 'r1', label: 'Editor' },
        { id: 'r2', label: 'Auditor' },
      ])
      expect(data.apps).toEqual([{ id: 'a1', label: 'Wiki', status: 'ACTIVE' }])
    })

    it('reads only the lists the idp_enable_* switches leave on', async () => {
      okta.state.tokenRequests.length = 0
      okta.state.apiPaths.length = 0
      await put('some', { idp_enable_users: false, idp_enable_apps: false, idp_enable_roles: true })
      expect(await run('some')).toMatchObject({ code: 'ok' })
      expect(new URLSearchParams(okta.state.tokenRequests[0]?.body).get('scope')).toBe(
        'okta.groups.read okta.roles.read',
      )
      expect(new Set(okta.state.apiPaths)).toEqual(new Set(['/api/v1/groups', '/api/v1/iam/roles']))
      expect(Object.keys((await bundleData()).some as object).sort()).toEqual(['groups', 'roles'])
    })

    it('fails on a 401 and keeps the last good data', async () => {
      await put('kept', { idp_enable_roles: false })
      expect(await run('kept')).toMatchObject({ code: 'ok' })
      okta.state.revoked = true
      try {
        const failed = await run('kept')
        expect(failed.code).toBe('error')
        expect(failed.message).toBe(`auth error: ${tenant}/api/v1/users answered 401`)
      } finally {
        okta.state.revoked = false
      }
      expect(((await bundleData()).kept as Record<string, unknown[]>).users).toEqual(USERS)
    })

    it('fails when the token endpoint refuses the client secret', async () => {
      await put('wrong', { idp_client_secret: 'idp/wrong' })
      expect(await run('wrong')).toMatchObject({
        code: 'error',
        message: `auth error: ${tenant}/oauth2/v1/token answered 401`,
      })
    })

    it('refuses an idp_tenant that is not a URL, naming the field', async () => {
      const res = await t.json<{ message?: string }>('PUT', '/v1/datasources/systems/app/bad', {
        body: {
          category: 'idp',
          idp_tenant: 'https://exa mple',
          idp_client_id: 'c',
          idp_client_secret: 'idp/client',
        },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('idp_tenant: expected a URL')
    })

    it('fails naming the page when a list is not JSON', async () => {
      okta.state.garbage = true
      try {
        await put('garbage', { idp_enable_users: false, idp_enable_roles: false, idp_enable_apps: false })
        expect(await run('garbage')).toMatchObject({
          code: 'error',
          message: `decode error: ${tenant}/api/v1/groups did not answer JSON`,
        })
      } finally {
        okta.state.garbage = false
      }
    })

    it('refuses a next link off the tenant, so the token stays with the tenant', async () => {
      await put('foreign', { idp_enable_groups: false, idp_enable_roles: false, idp_enable_apps: false })
      okta.state.foreignNext = true
      try {
        expect(await run('foreign')).toMatchObject({
          code: 'error',
          message: `pagination error: the next page http://elsewhere.invalid/api/v1/users is not on the tenant ${tenant}`,
        })
      } finally {
        okta.state.foreignNext = false
      }
    })
  })
}
