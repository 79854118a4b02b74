/**
 * Where a provider's authorization and token endpoints are, for console sign-in: as configured,
 * else read once from `<issuer>/.well-known/openid-configuration` (OIDC Discovery 1.0). Discovery
 * runs at the service, not the browser: the console's CSP allows API calls to this origin only,
 * and the service must know the token endpoint anyway to exchange codes. A success is kept; a
 * failure is kept for a short while (the sign-in options are open to anyone, who must not be able
 * to make the service call the provider on every request), then discovery is tried again.
 */
import type { IdentityProviderConfig } from '../identity/config.js'

export interface OidcEndpoints {
  authorization_endpoint: string
  token_endpoint: string
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** https, or http on this host (a test or a sidecar IdP): codes and tokens never cross a network in clear. */
function usableUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))
  } catch {
    return false
  }
}

/** Milliseconds a failed discovery is answered from memory before it is tried again. */
export const DISCOVERY_RETRY_MS = 30_000

export class OidcEndpointResolver {
  private readonly found = new Map<string, OidcEndpoints>()
  private readonly failed = new Map<string, { at: number; error: Error }>()

  constructor(
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly now: () => number = Date.now,
  ) {}

  /** @throws Error saying why the endpoints are unknown (discovery failed or lacks them). */
  async endpoints(provider: IdentityProviderConfig): Promise<OidcEndpoints> {
    const console = provider.console
    if (!console) throw new Error(`identity provider ${provider.id} has no console sign-in configured`)
    if (console.authorization_endpoint && console.token_endpoint) {
      return {
        authorization_endpoint: console.authorization_endpoint,
        token_endpoint: console.token_endpoint,
      }
    }
    const cached = this.found.get(provider.id)
    if (cached) return cached
    const failure = this.failed.get(provider.id)
    if (failure && this.now() - failure.at < DISCOVERY_RETRY_MS) throw failure.error
    let discovered: OidcEndpoints
    try {
      discovered = await this.discover(provider, console.timeout_ms)
    } catch (err) {
      this.failed.set(provider.id, { at: this.now(), error: err as Error })
      throw err
    }
    this.failed.delete(provider.id)
    const endpoints = {
      authorization_endpoint: console.authorization_endpoint ?? discovered.authorization_endpoint,
      token_endpoint: console.token_endpoint ?? discovered.token_endpoint,
    }
    this.found.set(provider.id, endpoints)
    return endpoints
  }

  private async discover(provider: IdentityProviderConfig, timeoutMs: number): Promise<OidcEndpoints> {
    const url = `${provider.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
    if (!usableUrl(url))
      throw new Error(`cannot discover the endpoints of ${provider.id}: ${url} is not https`)
    let res: Response
    try {
      res = await this.fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' })
    } catch (err) {
      throw new Error(`fetching ${url} failed: ${(err as Error).message}`)
    }
    if (res.status !== 200) {
      await res.body?.cancel()
      throw new Error(`fetching ${url} answered ${res.status}`)
    }
    let doc: Record<string, unknown>
    try {
      doc = (await res.json()) as Record<string, unknown>
    } catch {
      throw new Error(`${url} is not JSON`)
    }
    const { authorization_endpoint, token_endpoint } = doc ?? {}
    if (!usableUrl(authorization_endpoint) || !usableUrl(token_endpoint)) {
      throw new Error(`${url} lacks an https authorization_endpoint and token_endpoint`)
    }
    return { authorization_endpoint, token_endpoint }
  }
}
