/**
 * "Sign in with <provider>" for each identity provider the service offers, and the end of a
 * sign-in when the provider has just sent the browser back here.
 */
import { useEffect, useState } from 'preact/hooks'
import './sign-in.css'
import { completeSignIn, fetchSignInOptions, type SignInOption, startSignIn } from './oidc'

export function ProviderButtons({
  onSignedIn,
  onError,
}: {
  onSignedIn: (token: string) => void
  onError: (message: string | undefined) => void
}) {
  const [options, setOptions] = useState<SignInOption[]>([])
  const [finishing, setFinishing] = useState(() => new URLSearchParams(location.search).has('state'))

  useEffect(() => {
    let live = true
    completeSignIn().then((outcome) => {
      if (!live) return
      setFinishing(false)
      if (outcome.kind === 'token') onSignedIn(outcome.token)
      else if (outcome.kind === 'error') onError(outcome.message)
    })
    fetchSignInOptions()
      .then((found) => live && setOptions(found))
      .catch(() => {
        // No options: the token form remains.
      })
    return () => {
      live = false
    }
  }, [])

  const go = async (option: SignInOption) => {
    onError(undefined)
    try {
      await startSignIn(option)
    } catch (err) {
      onError(`Cannot sign in with ${option.display_name}: ${(err as Error).message}`)
    }
  }

  if (finishing) {
    return (
      <p role="status" class="muted">
        Finishing the sign-in…
      </p>
    )
  }
  if (options.length === 0) return null
  return (
    <div class="providers">
      {options.map((option) => (
        <button
          key={option.id}
          type="button"
          onClick={() => go(option)}
          disabled={option.authorization_endpoint === undefined}
          title={option.unavailable}
        >
          Sign in with {option.display_name}
        </button>
      ))}
      <p class="muted or">or with a token:</p>
    </div>
  )
}
