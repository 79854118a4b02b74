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
      `{identity_providers: [{id: corp, issuer: "${ISSUER}", audience: regent-api, jwks_url: "${jwks.url}"}]}`,
    )
  })
  afterAll(async () => {
    await t?.close()
    await jwks?.close()
  })

  it('authenticates a valid JWT as a user (no role yet: 403, not 401)', async () => {
    const res = await t.json('GET', '/v1/systems', { token: await sign({}) })
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

  it('never logs a JWT', () => {
    const logs = t.logs.join('\n')
    expect(tokens.length).toBeGreaterThan(3)
    for (const token of tokens) expect(logs).not.toContain(token.split('.')[2])
  })
})
