import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'
import { type JwksServer, type SigningKey, signingKey, signToken, startJwksServer } from './jwks-server.js'

const ISSUER = 'https://login.example.com'
const SQLITE = BACKENDS.find((b) => b.name === 'sqlite')!

describe('bearer JWTs of a configured identity provider', () => {
  let jwks: JwksServer
  let key: SigningKey
  let t: TestService
  const tokens: string[] = []
  const sign = async (claims: Record<string, unknown>) => {
    const token = await signToken(key, { iss: ISSUER, aud: 'regent-api', sub: 'alice', ...claims })
    tokens.push(token)
    return token
  }

  beforeAll(async () => {
    key = await signingKey('k1', 'ES256')
    jwks = await startJwksServer([key])
    t = await startTestService(
      SQLITE,
      // No refresh cooldown: an unknown kid fetches at once, so the failure cooldown is what stops fetches.
      `{identity_providers: [{id: corp, issuer: "${ISSUER}", audience: regent-api, jwks_url: "${jwks.url}", jwks_refresh_cooldown_seconds: 0}]}`,
    )
  })
  afterAll(async () => {
    await t?.close()
    await jwks?.close()
  })

  it('authenticates a valid JWT as a user (no role yet: 403, not 401)', async () => {
    const res = await t.json('GET', '/v1/tokens', { token: await sign({}) })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
  })

  it('answers 401 with the reason for a refused JWT, without echoing it', async () => {
    const now = Math.floor(Date.now() / 1000)
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ exp: now - 300 }, /has expired/],
      [{ aud: 'other' }, /"aud" does not include regent-api/],
      [{ iss: 'https://other.example.com' }, /no identity provider is configured for the JWT's issuer/],
    ]
    for (const [claims, message] of cases) {
      const token = await sign(claims)
      const res = await t.json('GET', '/v1/systems', { token })
      expect(res.status).toBe(401)
      expect(res.body).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(message) })
      expect(JSON.stringify(res.body)).not.toContain(token)
    }
  })

  it('still answers "invalid bearer token" for an unknown bearer that is no JWT, and accepts API tokens', async () => {
    const res = await t.json('GET', '/v1/systems', { token: 'no-such-token' })
    expect(res.status).toBe(401)
    expect(res.body.message).toBe('invalid bearer token')
    expect((await t.json('GET', '/v1/systems')).status).toBe(200)
  })

  it('answers 503 with Retry-After while the JWKS endpoint is down, fetching once per cooldown', async () => {
    const rotated = await signingKey('k2', 'ES256')
    const unknownKey = await signToken(rotated, { iss: ISSUER, aud: 'regent-api', sub: 'bob' })
    tokens.push(unknownKey)
    jwks.fail(503)
    try {
      const before = jwks.fetches
      for (let i = 0; i < 4; i++) {
        const res = await t.json('GET', '/v1/systems', { token: unknownKey })
        expect(res.status).toBe(503)
        expect(res.body.message).toMatch(/keys of identity provider corp are unavailable/)
        expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0)
      }
      expect(jwks.fetches).toBe(before + 1)
      // A token whose key was fetched before still authenticates.
      expect((await t.json('GET', '/v1/tokens', { token: await sign({}) })).status).toBe(403)
      expect(jwks.fetches).toBe(before + 1)
    } finally {
      jwks.serve([key])
    }
  })

  it('never logs a JWT', () => {
    const logs = t.logs.join('\n')
    expect(tokens.length).toBeGreaterThan(3)
    for (const token of tokens) expect(logs).not.toContain(token.split('.')[2])
  })
})
