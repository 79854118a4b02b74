/**
 * A small OpenID Connect provider on 127.0.0.1 for console sign-in tests: discovery, an
 * authorize endpoint that signs the user in at once (no login page) and redirects back with a
 * code, a token endpoint that checks the code, client id, redirect URI and PKCE (S256)
 * verifier, and the JWKS its ID tokens verify with. Codes are single-use.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { signingKey, signToken } from '../service/identity/jwks-server.js'

export interface FakeOidcProvider {
  /** The issuer (also the base URL). */
  url: string
  /** Token requests answered, by outcome (`ok` or the OAuth error code). */
  exchanges: string[]
  /** Issues a code as the authorize endpoint would (for tests without a browser). */
  issueCode(params: { redirectUri: string; challenge: string; nonce?: string }): string
  close(): Promise<void>
}

interface Grant {
  redirectUri: string
  challenge: string
  nonce?: string
}

export async function startFakeOidcProvider(options: {
  clientId: string
  /** The user the provider signs in (the ID token's `sub`). */
  subject: string
  /** Extra ID-token claims (e.g. groups). */
  claims?: Record<string, unknown>
  /** Seconds the ID tokens last (default an hour). */
  lifetimeSeconds?: number
}): Promise<FakeOidcProvider> {
  const key = await signingKey('fake-oidc-1', 'ES256')
  const grants = new Map<string, Grant>()
  const exchanges: string[] = []
  let url = ''

  const issueCode = (grant: Grant) => {
    const code = randomBytes(16).toString('base64url')
    grants.set(code, grant)
    return code
  }

  const server: Server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://127.0.0.1')
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
      res.end(JSON.stringify(body))
    }
    if (req.method === 'GET' && target.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: url,
        authorization_endpoint: `${url}/authorize`,
        token_endpoint: `${url}/token`,
        jwks_uri: `${url}/jwks.json`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      })
    }
    if (req.method === 'GET' && target.pathname === '/jwks.json') return json(200, { keys: [key.publicJwk] })
    if (req.method === 'GET' && target.pathname === '/authorize') {
      const p = target.searchParams
      const redirectUri = p.get('redirect_uri') ?? ''
      if (p.get('client_id') !== options.clientId || !redirectUri.startsWith('http://127.0.0.1:')) {
        res.writeHead(400).end('unknown client or redirect_uri')
        return
      }
      const back = new URL(redirectUri)
      const state = p.get('state')
      if (state !== null) back.searchParams.set('state', state)
      if (
        p.get('response_type') !== 'code' ||
        p.get('code_challenge_method') !== 'S256' ||
        !p.get('code_challenge')
      ) {
        back.searchParams.set('error', 'invalid_request')
        back.searchParams.set('error_description', 'PKCE with S256 is required')
      } else {
        const code = issueCode({
          redirectUri,
          challenge: p.get('code_challenge')!,
          nonce: p.get('nonce') ?? undefined,
        })
        back.searchParams.set('code', code)
      }
      res.writeHead(302, { Location: back.toString() }).end()
      return
    }
    if (req.method === 'POST' && target.pathname === '/token') {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
        const refuse = (error: string, description: string) => {
          exchanges.push(error)
          json(400, { error, error_description: description })
        }
        const code = form.get('code') ?? ''
        const grant = grants.get(code)
        grants.delete(code)
        if (form.get('grant_type') !== 'authorization_code')
          return refuse('unsupported_grant_type', 'expected authorization_code')
        if (form.get('client_id') !== options.clientId) return refuse('invalid_client', 'unknown client')
        if (!grant) return refuse('invalid_grant', 'unknown or used code')
        if (form.get('redirect_uri') !== grant.redirectUri)
          return refuse('invalid_grant', 'redirect_uri differs')
        const verifier = form.get('code_verifier') ?? ''
        if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
          return refuse('invalid_grant', 'PKCE verification failed')
        }
        const now = Math.floor(Date.now() / 1000)
        void signToken(key, {
          iss: url,
          aud: options.clientId,
          sub: options.subject,
          exp: now + (options.lifetimeSeconds ?? 3600),
          ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
          ...options.claims,
        }).then((idToken) => {
          exchanges.push('ok')
          json(200, {
            access_token: 'opaque-access-token',
            token_type: 'Bearer',
            expires_in: 3600,
            id_token: idToken,
          })
        })
      })
      return
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    get url() {
      return url
    },
    exchanges,
    issueCode: (params) => issueCode(params),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
