/**
 * A minimal Okta-style identity provider on 127.0.0.1 for end-to-end tests: the OAuth2
 * client-credentials token endpoint (HTTP Basic client id and secret) and the users and groups
 * lists in one page each, answered only with the token it issued. Pagination, roles, apps and
 * refusals are proven in test/service/datasources/idp.test.ts.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeIdpApi {
  url: string
  close(): Promise<void>
}

export async function startFakeIdpApi(options: {
  clientId: string
  clientSecret: string
  users: unknown[]
  groups: unknown[]
}): Promise<FakeIdpApi> {
  const token = 'e2e-okta-access-token'
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`
  const lists: Record<string, unknown[]> = {
    '/api/v1/users': options.users,
    '/api/v1/groups': options.groups,
  }
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    req.resume()
    if (req.method === 'POST' && path === '/oauth2/v1/token') {
      if (req.headers.authorization !== basic) return send(401, { error: 'invalid_client' })
      return send(200, {
        token_type: 'Bearer',
        expires_in: 3600,
        access_token: token,
        scope: 'okta.users.read',
      })
    }
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { errorCode: 'E0000011' })
    const list = lists[path]
    if (!list) return send(404, { errorCode: 'E0000007', errorSummary: `Not found: ${path}` })
    send(200, list)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
