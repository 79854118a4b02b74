/**
 * Console sign-in through an identity provider, at the API: the open sign-in options (nothing
 * secret), the code exchange against a fake OIDC provider (PKCE checked there), its refusals,
 * and that no code reaches the activity log.
 */
import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { type FakeOidcProvider, startFakeOidcProvider } from '../../support/fake-oidc-provider.js'
import { startTestService, type TestService } from '../harness.js'

const SQLITE = BACKENDS.find((b) => b.name === 'sqlite')!
const CLIENT_ID = 'regent-console'

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

describe('console sign-in through an identity provider', () => {
  let idp: FakeOidcProvider
  let t: TestService
  let redirectUri: string

  beforeAll(async () => {
    idp = await startFakeOidcProvider({ clientId: CLIENT_ID, subject: 'alice' })
    t = await startTestService(
      SQLITE,
      JSON.stringify({
        identity_providers: [
          {
            id: 'corp',
            issuer: idp.url,
            audience: CLIENT_ID,
            jwks_url: `${idp.url}/jwks.json`,
            console: { client_id: CLIENT_ID, display_name: 'Corp SSO' },
          },
          // Offers sign-in, but nothing answers its discovery: listed as unavailable.
          {
            id: 'gone',
            issuer: 'http://127.0.0.1:1',
            audience: 'x',
            jwks_url: 'http://127.0.0.1:1/k',
            console: { client_id: 'c', timeout_ms: 2000 },
          },
          // Verifies bearers but offers no console sign-in: not listed.
          {
            id: 'machines',
            issuer: 'https://machines.example.com',
            audience: 'x',
            jwks_url: 'https://machines.example.com/k',
          },
        ],
      }),
    )
    redirectUri = `${t.url}/console/`
  })
  afterAll(async () => {
    await t?.close()
    await idp?.close()
  })

  const exchange = (body: unknown) => t.json('POST', '/v1/console/oidc/token', { token: null, body })

  it('lists the providers offering sign-in, without a token, with discovered endpoints and nothing secret', async () => {
    const res = await t.json<{ providers: Array<Record<string, unknown>> }>(
      'GET',
      '/v1/console/sign-in-options',
      {
        token: null,
      },
    )
    expect(res.status).toBe(200)
    expect(res.body.providers).toEqual([
      {
        id: 'corp',
        display_name: 'Corp SSO',
        authorization_endpoint: `${idp.url}/authorize`,
        client_id: CLIENT_ID,
        scopes: ['openid', 'profile', 'email'],
      },
      {
        id: 'gone',
        display_name: 'gone',
        client_id: 'c',
        scopes: ['openid', 'profile', 'email'],
        unavailable: expect.stringMatching(
          /^fetching http:\/\/127\.0\.0\.1:1\/\.well-known\/openid-configuration failed/,
        ),
      },
    ])
    // Its code cannot be exchanged either: the service says why.
    const res2 = await exchange({
      provider: 'gone',
      code: 'c',
      code_verifier: pkce().verifier,
      redirect_uri: redirectUri,
    })
    expect(res2.status).toBe(502)
    expect(res2.body.message).toMatch(/openid-configuration failed/)
    expect(res.headers.get('Cache-Control')).toBe('no-store')
  })

  it('exchanges a code and its verifier for an ID token the API accepts', async () => {
    const { verifier, challenge } = pkce()
    const code = idp.issueCode({ redirectUri, challenge, nonce: 'n-1' })
    const res = await exchange({ provider: 'corp', code, code_verifier: verifier, redirect_uri: redirectUri })
    expect(res.status).toBe(200)
    const idToken = res.body.id_token as string
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString())
    expect(claims).toMatchObject({ sub: 'alice', nonce: 'n-1', aud: CLIENT_ID })
    // Signed in, with no role yet: an open action works, a guarded one is forbidden (not 401).
    expect((await t.json('GET', '/v1/systems', { token: idToken })).status).toBe(200)
    expect((await t.json('GET', '/v1/tokens', { token: idToken })).status).toBe(403)
    // The exchange is not management activity: no code or verifier is written to the log.
    const activity = await t.call('GET', '/v2/activity')
    const text = await activity.text()
    expect(activity.status).toBe(200)
    expect(text).not.toContain(code)
    expect(text).not.toContain(verifier)
  })

  it("refuses a wrong verifier and a reused code with the provider's reason", async () => {
    const { verifier, challenge } = pkce()
    const code = idp.issueCode({ redirectUri, challenge })
    const wrong = await exchange({
      provider: 'corp',
      code,
      code_verifier: pkce().verifier,
      redirect_uri: redirectUri,
    })
    expect(wrong.status).toBe(400)
    expect(wrong.body.message).toBe(
      'identity provider corp refused the sign-in: invalid_grant (PKCE verification failed)',
    )
    // The provider burnt the code on the failed try: the right verifier is now too late.
    const reused = await exchange({
      provider: 'corp',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
    })
    expect(reused.status).toBe(400)
    expect(reused.body.message).toMatch(/invalid_grant \(unknown or used code\)/)
  })

  it('refuses malformed exchanges before calling the provider', async () => {
    const before = idp.exchanges.length
    const { verifier } = pkce()
    const cases: Array<[unknown, number, RegExp]> = [
      [{}, 400, /"provider" must be/],
      [
        { provider: 'machines', code: 'c', code_verifier: verifier, redirect_uri: redirectUri },
        404,
        /offers console sign-in/,
      ],
      [
        { provider: 'corp', code: '', code_verifier: verifier, redirect_uri: redirectUri },
        400,
        /"code" must be/,
      ],
      [
        { provider: 'corp', code: 'c', code_verifier: 'short', redirect_uri: redirectUri },
        400,
        /PKCE verifier/,
      ],
      [
        {
          provider: 'corp',
          code: 'c',
          code_verifier: verifier,
          redirect_uri: 'https://evil.example/console/',
        },
        400,
        /"redirect_uri" must be/,
      ],
    ]
    for (const [body, status, message] of cases) {
      const res = await exchange(body)
      expect(res.status).toBe(status)
      expect(res.body.message).toMatch(message)
    }
    const raw = await t.call('POST', '/v1/console/oidc/token', {
      token: null,
      raw: '{not json',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(raw.status).toBe(400)
    expect(idp.exchanges.length).toBe(before)
  })
})
