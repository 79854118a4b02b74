/**
 * Redaction of secret values from request bodies, for whatever records requests (the activity
 * log): a body sent to `/v1/secrets/{id}` keeps its name and description, and its `secret`
 * becomes a fixed marker that says a value was sent without saying anything about it.
 */

/** What stands in for a secret value in a recorded body. */
export const REDACTED_SECRET = '<redacted>'

const SECRET_ROUTE = /^\/v1\/secrets(\/|$)/

/** True when `path` is a secrets route whose bodies carry values. */
export function isSecretRoute(path: string): boolean {
  return SECRET_ROUTE.test(path)
}

// Members of a secret request that may be recorded as sent; every other member is redacted
// (a value sent under a misspelt name is still a value).
const RECORDABLE = new Set(['name', 'description'])

/**
 * `body` as it may be recorded: for a secrets route, a copy in which every member but a string
 * `name` and `description` (so `secret`, and anything unexpected) is replaced by
 * REDACTED_SECRET; a body that is not a JSON object (unparsed text, an array) is replaced as a
 * whole, since it cannot be told apart from a value. Other routes' bodies are returned as they are.
 * @example redactSecretBody('/v1/secrets/git/ssh/key', {name: 'k', secret: 'x'}) // {name: 'k', secret: '<redacted>'}
 */
export function redactSecretBody(path: string, body: unknown): unknown {
  if (!isSecretRoute(path) || body === undefined || body === null) return body
  if (typeof body !== 'object' || Array.isArray(body)) return REDACTED_SECRET
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([key, value]) => [
      key,
      RECORDABLE.has(key) && typeof value === 'string' ? value : REDACTED_SECRET,
    ]),
  )
}
