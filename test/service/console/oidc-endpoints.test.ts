/**
 * Where console sign-in finds a provider's endpoints: as configured, else by discovery, whose
 * failures are remembered for a while so open requests cannot make the service hammer the provider.
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../../core/config.js'
import { DISCOVERY_RETRY_MS, OidcEndpointResolver } from '../../../service/console/oidc-endpoints.js'
import type { IdentityProviderConfig } from '../../../service/identity/config.js'
import { serviceSectionSchema } from '../../../service/index.js'

const provider = (console: Record<string, unknown>): IdentityProviderConfig =>
  parseConfig(
    JSON.stringify({
      identity_providers: [
        {
          id: 'corp',
          issuer: 'https://login.example.com/',
          audience: 'a',
          jwks_url: 'https://login.example.com/k',
          console,
        },
      ],
    }),
    serviceSectionSchema,
  ).identity_providers[0]!

describe('console sign-in endpoints', () => {
  it('uses configured endpoints without fetching anything', async () => {
    const calls: string[] = []
    const resolver = new OidcEndpointResolver(async (url) => {
      calls.push(String(url))
      return new Response('{}')
    })
    const endpoints = await resolver.endpoints(
      provider({
        client_id: 'c',
        authorization_endpoint: 'https://idp.example/auth',
        token_endpoint: 'https://idp.example/token',
      }),
    )
    expect(endpoints).toEqual({
      authorization_endpoint: 'https://idp.example/auth',
      token_endpoint: 'https://idp.example/token',
    })
    expect(calls).toEqual([])
  })

  it('discovers missing endpoints once, and remembers a failure until the retry delay has passed', async () => {
    const calls: string[] = []
    let answer: Response = new Response('down', { status: 503 })
    let now = 1_000_000
    const resolver = new OidcEndpointResolver(
      async (url) => {
        calls.push(String(url))
        return answer
      },
      () => now,
    )
    const p = provider({ client_id: 'c' })
    await expect(resolver.endpoints(p)).rejects.toThrow(/openid-configuration answered 503/)
    await expect(resolver.endpoints(p)).rejects.toThrow(/answered 503/)
    expect(calls).toEqual(['https://login.example.com/.well-known/openid-configuration'])
    now += DISCOVERY_RETRY_MS
    answer = Response.json({
      authorization_endpoint: 'http://evil.example/auth',
      token_endpoint: 'https://login.example.com/t',
    })
    await expect(resolver.endpoints(p)).rejects.toThrow(/lacks an https authorization_endpoint/)
    now += DISCOVERY_RETRY_MS
    answer = Response.json({
      authorization_endpoint: 'https://login.example.com/a',
      token_endpoint: 'https://login.example.com/t',
    })
    expect(await resolver.endpoints(p)).toEqual({
      authorization_endpoint: 'https://login.example.com/a',
      token_endpoint: 'https://login.example.com/t',
    })
    await resolver.endpoints(p)
    expect(calls.length).toBe(3)
  })

  it('refuses plain-http endpoints off loopback in the configuration', () => {
    expect(() => provider({ client_id: 'c', token_endpoint: 'http://idp.example/token' })).toThrow(
      /https URL/,
    )
    expect(() => provider({ client_id: '' })).toThrow()
    expect(
      provider({ client_id: 'c', token_endpoint: 'http://127.0.0.1:9/token' }).console?.token_endpoint,
    ).toBe('http://127.0.0.1:9/token')
  })
})
