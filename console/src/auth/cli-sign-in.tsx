/**
 * `/cli-sign-in?callback=<port>&state=<nonce>`: where `regent login` sends the browser. After the
 * reader confirms, the console hands its token to the command line's listener on this computer
 * (`http://127.0.0.1:<port>/callback`), which checks `state` against the one it made. Only a
 * loopback callback is ever used, and nothing happens without the confirmation, so a link from
 * elsewhere cannot send the token anywhere.
 */
import { useState } from 'preact/hooks'

export interface CliRequest {
  port: number
  state: string
}

/** The request in the address, or undefined when it is not a well-formed one. */
export function cliRequest(search: string): CliRequest | undefined {
  const params = new URLSearchParams(search)
  const callback = params.get('callback') ?? ''
  const state = params.get('state') ?? ''
  if (!/^\d{1,5}$/.test(callback) || !/^[A-Za-z0-9_-]{16,256}$/.test(state)) return undefined
  const port = Number(callback)
  return port >= 1 && port <= 65535 ? { port, state } : undefined
}

const PENDING = 'regent.console.cli-request'

/**
 * The command line's request waiting for this tab: the address's on `/cli-sign-in`, kept in the
 * tab's sessionStorage so that it survives a sign-in through an identity provider (which returns
 * to `/console/`).
 */
export function pendingCliRequest(): string | undefined {
  try {
    if (location.pathname.replace(/\/+$/, '') === '/cli-sign-in')
      sessionStorage.setItem(PENDING, location.search)
    return sessionStorage.getItem(PENDING) ?? undefined
  } catch {
    return undefined
  }
}

export function clearCliRequest(): void {
  try {
    sessionStorage.removeItem(PENDING)
  } catch {
    // Nothing kept.
  }
}

export function CliSignIn({ token, search, onDone }: { token: string; search: string; onDone: () => void }) {
  const request = cliRequest(search)
  const [sent, setSent] = useState(false)
  if (!request) {
    return (
      <main class="sign-in">
        <h1>regent command line</h1>
        <p class="error" role="alert">
          This sign-in link is incomplete or malformed. Run <code>regent login</code> again.
        </p>
        <button type="button" class="secondary" onClick={onDone}>
          Go to the console
        </button>
      </main>
    )
  }
  const confirm = () => {
    setSent(true)
    clearCliRequest()
    const target = new URL(`http://127.0.0.1:${request.port}/callback`)
    target.searchParams.set('state', request.state)
    target.searchParams.set('token', token)
    location.assign(target.toString())
  }
  return (
    <main class="sign-in">
      <h1>Sign in the regent command line?</h1>
      <p>
        A <code>regent login</code> on this computer asks to act as you on <strong>{location.host}</strong>.
        It receives the token you are signed in with; it can do what you can do here until the token expires
        or is revoked.
      </p>
      <div class="row">
        <button type="button" onClick={confirm} disabled={sent}>
          {sent ? 'Signing in…' : 'Sign in the command line'}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <p class="muted">Only continue if you just ran regent login yourself.</p>
    </main>
  )
}
