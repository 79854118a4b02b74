/**
 * Signing in: through a configured identity provider (oidc.ts), or with an API token (or an
 * identity provider's JWT, which the service verifies the same way: it is also a bearer token).
 * A pasted token is checked with a call every subject may make before it is kept.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiClient, ApiError } from '../api/client'
import { ProviderButtons } from './provider-buttons'

export function SignIn({
  onSignedIn,
  notice,
}: {
  onSignedIn: (token: string) => void
  /** Why the console is back at sign-in (the service stopped accepting the token). */
  notice?: string
}) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | undefined>(notice)
  const [busy, setBusy] = useState(false)
  useEffect(() => setError(notice), [notice])

  const submit = async (event: Event) => {
    event.preventDefault()
    const value = token.trim()
    if (value === '') {
      setError('Enter an API token.')
      return
    }
    setBusy(true)
    setError(undefined)
    try {
      await new ApiClient(value).post('/v1/authz/evaluation', [])
      onSignedIn(value)
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'The service does not accept this token.'
          : `Could not reach the service: ${(err as Error).message}`,
      )
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in">
      <h1>regent console</h1>
      <ProviderButtons onSignedIn={onSignedIn} onError={setError} />
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label for="token">API token or identity-provider token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          required
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p class="muted">
        The token stays in this tab only and is sent to this service alone. Create one with{' '}
        <code>PUT /v1/tokens/&lt;id&gt;</code> or ask an administrator.
      </p>
    </main>
  )
}
