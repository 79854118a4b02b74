import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportSPKI, importJWK, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identityProvidersSchema } from '../../../service/identity/config.js'
import { looksLikeJwt } from '../../../service/identity/jwt-shape.js'
import { IdentityError, IdentityVerifier } from '../../../service/identity/verifier.js'
import { type JwksServer, type SigningKey, signingKey, signToken, startJwksServer } from './jwks-server.js'

const ISSUER = 'https://idp.example.com/'
const AUDIENCE = 'regent'

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

/** The IdentityError `verify` rejects with (fails the test when it resolves). */
async function refusal(verifier: IdentityVerifier, token: string): Promise<IdentityError> {
  try {
    await verifier.verify(token)
  } catch (err) {
    expect(err).toBeInstanceOf(IdentityError)
    expect((err as Error).message).not.toContain(token)
    // Not even the signature or payload part of it.
    for (const part of token.split('.'))
      if (part.length > 8) expect((err as Error).message).not.toContain(part)
    return err as IdentityError
  }
  throw new Error('expected the token to be refused')
}

describe('identity provider JWTs', () => {
  let jwks: JwksServer
  let rsa: SigningKey
  let ec: SigningKey
  let verifier: IdentityVerifier

  beforeAll(async () => {
    rsa = await signingKey('rsa-1', 'RS256')
    ec = await signingKey('ec-1', 'ES256')
    jwks = await startJwksServer([rsa, ec])
    const providers = identityProvidersSchema.parse([
      // No cooldown: each unknown kid refetches, so the test sees the refresh happen.
      {
        id: 'corp',
        issuer: ISSUER,
        audience: AUDIENCE,
        jwks_url: jwks.url,
        jwks_refresh_cooldown_seconds: 0,
      },
    ])
    verifier = new IdentityVerifier(providers)
  })
  afterAll(async () => jwks?.close())

  it('turns a valid token into a user principal named by sub, with its provider and claims', async () => {
    for (const key of [rsa, ec]) {
      const token = await signToken(key, { iss: ISSUER, aud: AUDIENCE, sub: 'alice', groups: ['dev'] })
      expect(looksLikeJwt(token)).toBe(true)
      const principal = await verifier.verify(token)
      expect(principal).toMatchObject({ kind: 'user', id: 'alice', systemId: null, provider: 'corp' })
      expect(principal.roles.size).toBe(0)
      expect(principal.claims).toMatchObject({ sub: 'alice', groups: ['dev'], iss: ISSUER })
    }
  })

  it('refuses expired, not-yet-valid, wrong-audience, wrong-issuer and exp-less tokens, saying which', async () => {
    const now = Math.floor(Date.now() / 1000)
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ exp: now - 120 }, /^JWT of identity provider corp has expired$/],
      [{ nbf: now + 600 }, /is not valid yet \(nbf is in the future\)/],
      [{ aud: 'someone-else' }, /is not meant for this service: its "aud" does not include regent/],
      [
        { iss: 'https://evil.example.com/' },
        /no identity provider is configured for the JWT's issuer "https:\/\/evil.example.com\/"/,
      ],
    ]
    for (const [claims, message] of cases) {
      const token = await signToken(rsa, { iss: ISSUER, aud: AUDIENCE, sub: 'alice', ...claims })
      expect((await refusal(verifier, token)).message).toMatch(message)
    }
    const noExp = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'a' })
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
      .sign(rsa.privateKey)
    expect((await refusal(verifier, noExp)).message).toMatch(/"exp"/)
  })

  it('refetches the keys for an unknown kid: a rotated-in key verifies, a made-up one does not', async () => {
    const rotated = await signingKey('rsa-2')
    const token = await signToken(rotated, { iss: ISSUER, aud: AUDIENCE, sub: 'bob' })
    const before = jwks.fetches
    expect((await refusal(verifier, token)).message).toBe(
      'JWT names key id "rsa-2", which matches no key of identity provider corp (after refreshing its keys)',
    )
    expect(jwks.fetches).toBeGreaterThan(before)
    jwks.serve([rsa, ec, rotated])
    expect((await verifier.verify(token)).id).toBe('bob')
    const stranger = await signingKey('nobody-knows')
    const unknown = await signToken(stranger, { iss: ISSUER, aud: AUDIENCE, sub: 'mallory' })
    const fetched = jwks.fetches
    expect((await refusal(verifier, unknown)).message).toMatch(/key id "nobody-knows", which matches no key/)
    expect(jwks.fetches).toBe(fetched + 1)
  })

  it('refetches for unknown kids at most once per cooldown', async () => {
    const limited = new IdentityVerifier(
      identityProvidersSchema.parse([{ id: 'corp', issuer: ISSUER, audience: AUDIENCE, jwks_url: jwks.url }]),
    )
    const before = jwks.fetches
    expect((await limited.verify(await signToken(rsa, { iss: ISSUER, aud: AUDIENCE, sub: 'a' }))).id).toBe(
      'a',
    )
    expect(jwks.fetches).toBe(before + 1)
    const stranger = await signingKey('made-up', 'ES256')
    for (let i = 0; i < 5; i++) {
      const token = await signToken(stranger, { iss: ISSUER, aud: AUDIENCE, sub: `m${i}` })
      expect((await refusal(limited, token)).message).toMatch(/matches no key/)
    }
    // Within the default 30 s cooldown after the first fetch, made-up key ids fetch nothing.
    expect(jwks.fetches).toBe(before + 1)
  })

  it('refuses HS256 signed with the public key as secret, and alg none', async () => {
    const publicPem = await exportSPKI(
      (await importJWK(rsa.publicJwk, 'RS256', { extractable: true })) as never,
    )
    const confused = await new SignJWT({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'mallory',
      exp: Math.floor(Date.now() / 1000) + 60,
    })
      .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
      .sign(new TextEncoder().encode(publicPem))
    expect((await refusal(verifier, confused)).message).toMatch(
      /^JWT signed with algorithm "HS256", which is not accepted/,
    )
    const none = `${b64url({ alg: 'none' })}.${b64url({ iss: ISSUER, aud: AUDIENCE, sub: 'mallory', exp: 9999999999 })}.`
    expect(looksLikeJwt(none)).toBe(true)
    expect((await refusal(verifier, none)).message).toMatch(
      /^JWT signed with algorithm "none", which is not accepted/,
    )
  })

  it('refuses a token whose signature or payload was changed', async () => {
    const token = await signToken(rsa, { iss: ISSUER, aud: AUDIENCE, sub: 'alice' })
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11)
    expect((await refusal(verifier, `${header}.${payload}.${flipped}`)).message).toBe(
      'JWT signature does not verify with the keys of identity provider corp',
    )
    const forged = b64url({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'admin' })
    expect((await refusal(verifier, `${header}.${forged}.${signature}`)).message).toMatch(
      /signature does not verify/,
    )
  })

  it('names the user by a configured claim and refuses tokens without it', async () => {
    const byEmail = new IdentityVerifier(
      identityProvidersSchema.parse([
        {
          id: 'mail',
          issuer: ISSUER,
          audience: [AUDIENCE, 'other'],
          jwks_url: jwks.url,
          user_claim: 'email',
        },
      ]),
    )
    const token = await signToken(rsa, { iss: ISSUER, aud: 'other', sub: 'u-1', email: 'alice@example.com' })
    expect((await byEmail.verify(token)).id).toBe('alice@example.com')
    const without = await signToken(rsa, { iss: ISSUER, aud: AUDIENCE, sub: 'u-1' })
    expect((await refusal(byEmail, without)).message).toMatch(/has no string "email" claim/)
  })

  it('reads a JWKS file, and answers 503-class errors when the keys cannot be fetched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-jwks-'))
    try {
      const file = join(dir, 'jwks.json')
      writeFileSync(file, JSON.stringify({ keys: [ec.publicJwk] }))
      const fromFile = new IdentityVerifier(
        identityProvidersSchema.parse([{ id: 'f', issuer: ISSUER, audience: AUDIENCE, jwks_file: file }]),
      )
      expect(
        (await fromFile.verify(await signToken(ec, { iss: ISSUER, aud: AUDIENCE, sub: 'carol' }))).id,
      ).toBe('carol')
      expect(
        () =>
          new IdentityVerifier(
            identityProvidersSchema.parse([
              { id: 'f', issuer: ISSUER, audience: AUDIENCE, jwks_file: join(dir, 'none') },
            ]),
          ),
      ).toThrow(/identity provider f: jwks_file .* cannot be read/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const down = new IdentityVerifier(
      identityProvidersSchema.parse([
        {
          id: 'down',
          issuer: ISSUER,
          audience: AUDIENCE,
          jwks_url: `${jwks.url.replace('/jwks.json', '/missing')}`,
          jwks_timeout_ms: 2000,
        },
      ]),
    )
    const error = await refusal(down, await signToken(rsa, { iss: ISSUER, aud: AUDIENCE, sub: 'a' }))
    expect(error.status).toBe(503)
    expect(error.message).toMatch(/^the keys of identity provider down are unavailable/)
  })

  it('validates the configuration, naming the key', () => {
    const problems = (value: unknown) =>
      identityProvidersSchema
        .safeParse(value)
        .error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? []
    expect(problems([{ id: 'a', issuer: ISSUER, audience: AUDIENCE }])).toEqual([
      '0: set exactly one of jwks_url and jwks_file',
    ])
    expect(
      problems([{ id: 'a', issuer: ISSUER, audience: AUDIENCE, jwks_url: 'http://idp.example.com/jwks' }]),
    ).toEqual(['0.jwks_url: expected an https URL (http only on 127.0.0.1, localhost or [::1])'])
    const one = { id: 'a', issuer: ISSUER, audience: AUDIENCE, jwks_url: 'https://idp.example.com/jwks' }
    expect(problems([one, { ...one, issuer: 'https://other/' }])).toEqual(['1.id: duplicate provider id "a"'])
    expect(problems([one, { ...one, id: 'b' }])).toEqual([
      `1.issuer: another provider has issuer "${ISSUER}"`,
    ])
  })
})
