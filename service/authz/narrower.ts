/**
 * What a request admitted under a row's narrower action may carry. Shared by the route that
 * enforces it and by the permission check, so both answer alike.
 */

/** Under `tokens.refresh` the body may only ask to regenerate the secret. */
export function refreshOnlyBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  const { regenerate, id, ...rest } = body as Record<string, unknown>
  return regenerate === true && (id === undefined || typeof id === 'string') && Object.keys(rest).length === 0
}

/** True when `body` is acceptable under the narrower `action` (every body is, for other actions). */
export function narrowerAdmits(action: string, body: unknown): boolean {
  return action !== 'tokens.refresh' || refreshOnlyBody(body)
}
