/**
 * Where the signed-in subject's token lives: the tab's sessionStorage, so closing the tab signs
 * out and no other site or tab can read it. No cookie is set, so no request the browser makes on
 * its own (a link from another site, a form) ever carries the token.
 */
const KEY = 'regent.console.token'

export function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined
  } catch {
    return undefined
  }
}

export function storeToken(token: string | undefined): void {
  try {
    if (token === undefined) sessionStorage.removeItem(KEY)
    else sessionStorage.setItem(KEY, token)
  } catch {
    // Storage refused (private mode with storage off): the session lasts as long as the page.
  }
}
