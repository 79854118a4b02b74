/**
 * Sign-in through an identity provider: the authorization code flow with PKCE (S256), state and
 * nonce (docs/console.md#signing-in). The tab keeps what it asked for in sessionStorage, goes
 * to the provider, and on the way back (`/console/?code=…&state=…`) checks the state, has the
 * service exchange the code (the CSP lets the page talk to this origin only, and no client
 * secret exists), checks the ID token's nonce and expiry, and strips the code from the address.
 */
import { jwtClaims, randomToken, s256Challenge } from './pkce'

export interface SignInOption {
  id: string
  display_name: string
  authorization_endpoint?: string
  client_id: string
  scopes: string[]
  /** Why this provider cannot be used now (its endpoints could not be discovered). */
  unavailable?: string
}

interface Pending {
  provider: string
  state: string
  nonce: string
  verifier: string
  startedAt: number
}

const KEY = 'regent.console.oidc'
/** A sign-in left at the provider longer than this is not finished. */
const MAX_PENDING_MS = 10 * 60 * 1000

export type ReturnOutcome =
  | { kind: 'none' }
  | { kind: 'error'; message: string }
  | { kind: 'token'; token: string }

/** The providers offering sign-in (an empty list when the service has none or cannot say). */
export async function fetchSignInOptions(): Promise<SignInOption[]> {
  const res = await fetch('/v1/console/sign-in-options', { credentials: 'omit', cache: 'no-store' })
  if (!res.ok) return []
  const body = (await res.json()) as { providers?: SignInOption[] }
  return body.providers ?? []
}

/** Where the provider sends the browser back: this console's own address. */
export function redirectUri(): string {
  return `${location.origin}/console/`
}

/** Remembers the request in this tab and goes to the provider's authorization endpoint. */
export async function startSignIn(option: SignInOption): Promise<void> {
  if (!option.authorization_endpoint)
    throw new Error(option.unavailable ?? 'the provider has no authorization endpoint')
  const pending: Pending = {
    provider: option.id,
    state: randomToken(),
    nonce: randomToken(),
    verifier: randomToken(),
    startedAt: Date.now(),
  }
  const target = new URL(option.authorization_endpoint)
  const params = {
    response_type: 'code',
    client_id: option.client_id,
    redirect_uri: redirectUri(),
    scope: option.scopes.join(' '),
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await s256Challenge(pending.verifier),
    code_challenge_method: 'S256',
  }
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value)
  sessionStorage.setItem(KEY, JSON.stringify(pending))
  location.assign(target.toString())
}

let completing: Promise<ReturnOutcome> | undefined

/** Finishes a sign-in the provider returned to this page (once per page load). */
export function completeSignIn(): Promise<ReturnOutcome> {
  completing ??= finish()
  return completing
}

async function finish(): Promise<ReturnOutcome> {
  const params = new URLSearchParams(location.search)
  if (!params.has('code') && !params.has('error') && !params.has('state')) return { kind: 'none' }
  // The code is single-use and must not stay in the address bar, history or a copied link.
  history.replaceState(null, '', `${location.pathname}${location.hash}`)
  const pending = takePending()
  const error = params.get('error')
  if (error !== null) {
    const description = params.get('error_description')
    return fail(
      `The identity provider refused the sign-in: ${error}${description ? ` (${description})` : ''}.`,
    )
  }
  if (!pending) return fail('This sign-in was not started in this tab, or it was already used. Start again.')
  if (Date.now() - pending.startedAt > MAX_PENDING_MS) return fail('The sign-in took too long. Start again.')
  if (params.get('state') !== pending.state) {
    return fail(
      'The answer from the identity provider does not match the request this tab made (state differs). Start again.',
    )
  }
  const code = params.get('code')
  if (!code) return fail('The identity provider answered without a code. Start again.')
  let token: string
  try {
    token = await exchange(pending, code)
  } catch (err) {
    return fail(`Signing in failed: ${(err as Error).message}`)
  }
  const claims = jwtClaims(token)
  if (claims?.nonce !== pending.nonce)
    return fail('The ID token was not issued for this sign-in (nonce differs). Start again.')
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now())
    return fail('The ID token has already expired.')
  return { kind: 'token', token }
}

function fail(message: string): ReturnOutcome {
  return { kind: 'error', message }
}

function takePending(): Pending | undefined {
  try {
    const text = sessionStorage.getItem(KEY)
    sessionStorage.removeItem(KEY)
    return text ? (JSON.parse(text) as Pending) : undefined
  } catch {
    return undefined
  }
}

async function exchange(pending: Pending, code: string): Promise<string> {
  const res = await fetch('/v1/console/oidc/token', {
    method: 'POST',
    credentials: 'omit',
    cache: 'no-store',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      provider: pending.provider,
      code,
      code_verifier: pending.verifier,
      redirect_uri: redirectUri(),
    }),
  })
  const body = (await res.json().catch(() => ({}))) as { id_token?: string; message?: string }
  if (!res.ok || typeof body.id_token !== 'string')
    throw new Error(body.message ?? `the service answered ${res.status}`)
  return body.id_token
}
