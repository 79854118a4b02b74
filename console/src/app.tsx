/** The console's frame: sign-in, navigation, theme, and the current view. */
import { useMemo, useState } from 'preact/hooks'
import { ApiClient } from './api/client'
import { CliSignIn, clearCliRequest, pendingCliRequest } from './auth/cli-sign-in'
import { storedToken, storeToken } from './auth/session'
import { SignIn } from './auth/sign-in'
import { href, useLocation } from './router'
import { applyTheme, nextTheme, storedTheme } from './ui/theme'
import { VIEWS, viewFor } from './views/index'

export function App() {
  const [token, setToken] = useState<string | undefined>(storedToken)
  const [theme, setTheme] = useState(storedTheme)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  // A `regent login` waiting for this tab (docs/console.md, "The command line's sign-in").
  const [cliSearch, setCliSearch] = useState<string | undefined>(pendingCliRequest)
  const loc = useLocation()

  const signOut = () => {
    storeToken(undefined)
    setToken(undefined)
  }
  // A 401 means the service no longer takes the token (an expired ID token, a deleted API token).
  const expired = () => {
    setNotice(
      'Your session has ended: the service no longer accepts the token (it may have expired). Sign in again.',
    )
    signOut()
  }
  const api = useMemo(() => (token ? new ApiClient(token, expired) : undefined), [token])

  if (!api) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(t) => {
          storeToken(t)
          setNotice(undefined)
          setToken(t)
        }}
      />
    )
  }

  if (cliSearch !== undefined) {
    return (
      <CliSignIn
        token={token ?? ''}
        search={cliSearch}
        onDone={() => {
          clearCliRequest()
          setCliSearch(undefined)
          history.replaceState(null, '', '/console/')
        }}
      />
    )
  }

  const { view, rest } = viewFor(loc)
  const switchTheme = () => {
    const next = nextTheme(theme)
    applyTheme(next)
    setTheme(next)
  }
  return (
    <div class="frame">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header>
        <span class="brand">regent</span>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.id}>
                <a href={href(v.id)} aria-current={v === view ? 'page' : undefined}>
                  {v.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="tools">
          <button type="button" class="secondary" onClick={switchTheme} title="Switch theme">
            Theme: {theme}
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setNotice(undefined)
              signOut()
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        {view.render({ api, rest, params: loc.params })}
      </main>
    </div>
  )
}
