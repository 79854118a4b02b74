/**
 * PKCE (RFC 7636) and the random values of a sign-in: a verifier and its S256 challenge, state
 * and nonce. `crypto.subtle` exists in secure contexts only (https, or http on localhost/127.0.0.1),
 * which is also where a sign-in should happen.
 */

function base64url(bytes: Uint8Array): string {
  let text = ''
  for (const b of bytes) text += String.fromCharCode(b)
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** 32 random bytes as base64url: 43 characters, a valid verifier, state or nonce. */
export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)))
}

/** The S256 challenge of `verifier`. */
export async function s256Challenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return base64url(new Uint8Array(digest))
}

/** The claims of a JWT, decoded only (the service verifies the signature on every call). */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const part = token.split('.')[1]
  if (part === undefined) return undefined
  try {
    const text = atob(part.replace(/-/g, '+').replace(/_/g, '/'))
    const bytes = Uint8Array.from(text, (ch) => ch.charCodeAt(0))
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes))
    return claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
