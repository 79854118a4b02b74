/**
 * Console sign-in through an identity provider (docs/console.md#signing-in), open without a
 * token (the caller is signing in): `GET /v1/console/sign-in-options` lists the providers that
 * offer it (ids, names, authorization URL, public client id, scopes: nothing secret), and
 * `POST /v1/console/oidc/token` exchanges an authorization code and its PKCE verifier for the
 * provider's ID token, which the console then sends as its bearer (verified on every call).
 *
 * Mounted before the activity, authentication and authorization middleware: these requests
 * carry no subject and change nothing, and a code or verifier must not be written to the
 * activity log. The route table lists them as open (`authentication: 'none'`).
 */
import { Hono } from 'hono'
import { badRequest, HttpError, notFound, readStructuredBody } from '../../core/http/index.js'
import { exchangeCode } from '../console/oidc-code-exchange.js'
import { OidcEndpointResolver } from '../console/oidc-endpoints.js'
import type { IdentityProviderConfig } from '../identity/config.js'
import { IdentityError } from '../identity/verifier.js'
import { publicBaseUrl } from '../public-base-url.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'

/** RFC 7636 §4.1: 43-128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/
const BODY_LIMITS = { maxBytes: 16 * 1024, maxDecompressedBytes: 16 * 1024, maxYamlNodes: 100 }

export function consoleSignInRoutes(
  deps: ServiceDeps,
  resolver = new OidcEndpointResolver(),
): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  const providers = deps.config.identity_providers.filter((p) => p.console !== undefined)
  const byId = new Map(providers.map((p) => [p.id, p]))

  app.get('/v1/console/sign-in-options', async (c) => {
    const options = await Promise.all(
      providers.map(async (p) => {
        try {
          const { authorization_endpoint } = await resolver.endpoints(p)
          return optionOf(p, authorization_endpoint)
        } catch (err) {
          deps.logger.warn({ provider: p.id, err: (err as Error).message }, 'console sign-in: no endpoints')
          return { ...optionOf(p, undefined), unavailable: (err as Error).message }
        }
      }),
    )
    return c.json({ providers: options }, 200, { 'Cache-Control': 'no-store' })
  })

  app.post('/v1/console/oidc/token', async (c) => {
    const body = await readStructuredBody(c, BODY_LIMITS)
    const { provider: id, code, code_verifier, redirect_uri } = (body ?? {}) as Record<string, unknown>
    if (typeof id !== 'string') throw badRequest('"provider" must be the id of an identity provider')
    const provider = byId.get(id)
    if (!provider) throw notFound(`no identity provider "${id.slice(0, 64)}" offers console sign-in`)
    if (typeof code !== 'string' || code === '' || code.length > 4096)
      throw badRequest('"code" must be the authorization code (1-4096 characters)')
    if (typeof code_verifier !== 'string' || !VERIFIER.test(code_verifier))
      throw badRequest(
        '"code_verifier" must be a PKCE verifier: 43-128 letters, digits, ".", "_", "~" or "-"',
      )
    // The code was issued for the console of this service: anything else is not ours to exchange.
    const expected = `${publicBaseUrl(c, deps.config)}/console/`
    if (redirect_uri !== expected) throw badRequest(`"redirect_uri" must be ${expected}`)
    const endpoints = await resolver.endpoints(provider).catch((err: Error) => {
      throw new HttpError(502, 'bad_gateway', err.message)
    })
    const idToken = await exchangeCode(provider, endpoints.token_endpoint, {
      code,
      codeVerifier: code_verifier,
      redirectUri: expected,
    })
    // Checked now so the console says at once why the service would refuse it (audience, user claim…).
    try {
      const user = await deps.identity.verify(idToken)
      if (user.provider !== provider.id)
        throw new IdentityError(`the ID token was issued by another provider`)
      deps.logger.info({ provider: provider.id, user: user.id }, 'console sign-in: code exchanged')
    } catch (err) {
      if (!(err instanceof IdentityError)) throw err
      throw new HttpError(
        err.status === 503 ? 503 : 400,
        err.status === 503 ? 'service_unavailable' : 'invalid_parameter',
        `the service does not accept the ID token of identity provider ${provider.id}: ${err.message}`,
      )
    }
    return c.json({ id_token: idToken }, 200, { 'Cache-Control': 'no-store' })
  })
  return app
}

function optionOf(p: IdentityProviderConfig, authorizationEndpoint: string | undefined) {
  const scopes = p.console!.scopes.includes('openid') ? p.console!.scopes : ['openid', ...p.console!.scopes]
  return {
    id: p.id,
    display_name: p.console!.display_name ?? p.id,
    authorization_endpoint: authorizationEndpoint,
    client_id: p.console!.client_id,
    scopes,
  }
}
