/**
 * The service side of console sign-in: it forwards an authorization code and its PKCE verifier
 * to the provider's token endpoint as the console's public client (no client secret exists:
 * PKCE is what binds the code to the browser that asked for it) and hands back the ID token.
 * It exists because the console's CSP lets the browser talk to this origin only.
 */
import { HttpError } from '../../core/http/index.js'
import type { IdentityProviderConfig } from '../identity/config.js'

/** Most bytes read from a token endpoint's answer (a JSON object with a few tokens). */
const MAX_ANSWER_BYTES = 64 * 1024

export interface CodeExchange {
  code: string
  codeVerifier: string
  redirectUri: string
}

const badGateway = (message: string) => new HttpError(502, 'bad_gateway', message)

/**
 * The `id_token` the provider issues for the code.
 * @throws HttpError 400 when the provider refuses the code or verifier (its `error` and
 * description quoted), 502 when it cannot be reached or answers something unusable.
 */
export async function exchangeCode(
  provider: IdentityProviderConfig,
  tokenEndpoint: string,
  exchange: CodeExchange,
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  const console = provider.console!
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
    client_id: console.client_id,
    code_verifier: exchange.codeVerifier,
  })
  let res: Response
  try {
    res = await fetchImpl(tokenEndpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: form,
      signal: AbortSignal.timeout(console.timeout_ms),
      redirect: 'error',
    })
  } catch (err) {
    throw badGateway(
      `the token endpoint of identity provider ${provider.id} is unreachable: ${(err as Error).message}`,
    )
  }
  const answer = await readJsonObject(res, provider.id)
  if (res.status === 400 || res.status === 401) {
    const error = printableField(answer?.error) ?? `status ${res.status}`
    const description = printableField(answer?.error_description)
    throw new HttpError(
      400,
      'invalid_parameter',
      `identity provider ${provider.id} refused the sign-in: ${error}${description ? ` (${description})` : ''}`,
    )
  }
  if (res.status !== 200)
    throw badGateway(`the token endpoint of identity provider ${provider.id} answered ${res.status}`)
  const idToken = answer?.id_token
  if (typeof idToken !== 'string' || idToken === '') {
    throw badGateway(
      `identity provider ${provider.id} answered without an id_token (is "openid" among the scopes?)`,
    )
  }
  return idToken
}

/** The answer as a JSON object, undefined when it is none; bounded in size. */
async function readJsonObject(
  res: Response,
  providerId: string,
): Promise<Record<string, unknown> | undefined> {
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of res.body ?? []) {
      size += chunk.byteLength
      if (size > MAX_ANSWER_BYTES) {
        await res.body?.cancel()
        throw badGateway(`the token endpoint of identity provider ${providerId} answered more than 64 KiB`)
      }
      chunks.push(chunk)
    }
  } catch (err) {
    if (err instanceof HttpError) throw err
    throw badGateway(
      `reading the answer of identity provider ${providerId} failed: ${(err as Error).message}`,
    )
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** A provider's error text, quoted only when short and printable (it ends up in our answer). */
function printableField(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const clipped = value.slice(0, 200)
  return /^[\x20-\x7E]*$/.test(clipped) ? clipped : undefined
}
