/**
 * The cooldown after a failed JWKS fetch: while the provider's JWKS endpoint is down, requests
 * that need keys the service does not hold fail at once (503) without fetching, tokens whose key
 * was fetched before still verify, and the next fetch is tried only after the cooldown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identityProvidersSchema } from '../../../service/identity/config.js'
import { KeysUnavailableError, remoteKeySet } from '../../../service/identity/remote-key-set.js'
import { IdentityError, IdentityVerifier } from '../../../service/identity/verifier.js'
import { type JwksServer, type SigningKey, signingKey, signToken, startJwksServer } from './jwks-server.js'

const ISSUER = 'https://idp.example.com/'
const AUDIENCE = 'regent'

function providerFor(jwks: JwksServer, extra: Record<string, unknown> = {}) {
  return identityProvidersSchema.parse([
    {
      id: 'corp',
      issuer: ISSUER,
      audience: AUDIENCE,
      jwks_url: jwks.url,
      jwks_refresh_cooldown_seconds: 0,
      ...extra,
    },
  ])[0]!
}

async function refusal(verifier: IdentityVerifier, token: string): Promise<IdentityError> {
  try {
    await verifier.verify(token)
  } catch (err) {
    expect(err).toBeInstanceOf(IdentityError)
    return err as IdentityError
  }
  throw new Error('expected the token to be refused')
}

describe('JWKS fetch failure cooldown', () => {
  let jwks: JwksServer
  let known: SigningKey
  let rotated: SigningKey

  beforeAll(async () => {
    known = await signingKey('known-1')
    rotated = await signingKey('rotated-2')
    jwks = await startJwksServer([known])
  })
  afterAll(async () => jwks?.close())

  it('defaults to 30 seconds', () => {
    expect(providerFor(jwks).jwks_failure_cooldown_seconds).toBe(30)
  })

  it('fails fast with 503 while the endpoint is down, keeps verifying known keys, and fetches once per cooldown', async () => {
    jwks.serve([known])
    const verifier = new IdentityVerifier([providerFor(jwks)])
    const knownToken = await signToken(known, { iss: ISSUER, aud: AUDIENCE, sub: 'alice' })
    const rotatedToken = await signToken(rotated, { iss: ISSUER, aud: AUDIENCE, sub: 'bob' })

    const before = jwks.fetches
    expect((await verifier.verify(knownToken)).id).toBe('alice')
    expect(jwks.fetches).toBe(before + 1)

    jwks.fail(503)
    // The unknown kid makes it fetch; the fetch fails: 503.
    const first = await refusal(verifier, rotatedToken)
    expect(first.status).toBe(503)
    expect(jwks.fetches).toBe(before + 2)

    // Within the cooldown: no fetch at all, a 503 that says when the next attempt is.
    for (let i = 0; i < 5; i++) {
      const again = await refusal(verifier, rotatedToken)
      expect(again.status).toBe(503)
      expect(again.message).toMatch(/fetching its JWKS failed \d+ s ago; the next attempt is in \d+ s/)
      expect(again.retryAfterSeconds).toBeGreaterThan(0)
      expect(again.retryAfterSeconds).toBeLessThanOrEqual(30)
    }
    // A token whose key was fetched before still verifies, without a fetch.
    expect((await verifier.verify(knownToken)).id).toBe('alice')
    expect(jwks.fetches).toBe(before + 2)
  })

  it('is down from the start: the first request fetches, the rest fail fast', async () => {
    jwks.fail(500)
    const verifier = new IdentityVerifier([providerFor(jwks)])
    const token = await signToken(known, { iss: ISSUER, aud: AUDIENCE, sub: 'alice' })
    const before = jwks.fetches
    for (let i = 0; i < 4; i++) expect((await refusal(verifier, token)).status).toBe(503)
    expect(jwks.fetches).toBe(before + 1)
  })

  it('fetches again once the cooldown has passed, and recovers', async () => {
    let clock = 1_000_000
    jwks.fail(503)
    const keys = remoteKeySet(providerFor(jwks, { jwks_failure_cooldown_seconds: 10 }), () => clock)
    const header = { alg: 'RS256', kid: rotated.kid }
    const input = { payload: '', signature: '' }
    const before = jwks.fetches
    await expect(keys(header, input)).rejects.toThrow()
    expect(jwks.fetches).toBe(before + 1)
    clock += 9_000
    await expect(keys(header, input)).rejects.toBeInstanceOf(KeysUnavailableError)
    expect(jwks.fetches).toBe(before + 1)
    jwks.serve([known, rotated])
    // Still cooling down: the recovered endpoint is not asked yet.
    await expect(keys(header, input)).rejects.toBeInstanceOf(KeysUnavailableError)
    expect(jwks.fetches).toBe(before + 1)
    clock += 1_000
    await expect(keys(header, input)).resolves.toBeDefined()
    expect(jwks.fetches).toBe(before + 2)
  })

  it('does not count a key the endpoint does not have as a failure', async () => {
    jwks.serve([known])
    const verifier = new IdentityVerifier([providerFor(jwks)])
    const rotatedToken = await signToken(rotated, { iss: ISSUER, aud: AUDIENCE, sub: 'bob' })
    const before = jwks.fetches
    expect((await refusal(verifier, rotatedToken)).status).toBe(401)
    // Refresh cooldown 0: the unknown kid is looked up again, not cut off by a failure cooldown.
    expect((await refusal(verifier, rotatedToken)).status).toBe(401)
    expect(jwks.fetches).toBeGreaterThanOrEqual(before + 2)
  })
})
