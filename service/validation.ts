/**
 * Request checks shared by the routes: bodies against zod schemas with one error line per bad
 * field, ids and slash paths that cannot escape or smuggle control characters, and the
 * `{request_id, result}` envelope.
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import { badRequest } from '../core/http/index.js'
import type { ServiceEnv } from './types.js'

/**
 * `value` validated against `schema`.
 * @throws HttpError 400 whose message names the first bad field and whose `errors` list all.
 */
export function validateBody<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what = 'request body',
): z.output<S> {
  if (value === undefined) throw badRequest(`${what} is required`)
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => {
    const key = issue.path.map(String).join('.') || '(body)'
    if (issue.code === 'unrecognized_keys') return `${key}: unknown field ${issue.keys.join(', ')}`
    return `${key}: ${issue.message}`
  })
  throw badRequest(`invalid ${what}: ${problems[0]}`, problems)
}

// Ids: what fits in a URL segment and a file name without quoting.
const ID = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/

/** True when `id` is one checkId accepts. */
export function isValidId(id: string): boolean {
  return ID.test(id) && !id.includes('..')
}

/**
 * Checks an id taken from a path or a body.
 * @throws HttpError 400 naming the field.
 */
export function checkId(id: string, what: string): string {
  if (!isValidId(id)) {
    throw badRequest(
      `invalid ${what} "${printable(id)}": use 1-128 letters, digits, '.', '_', '@', ':' or '-'`,
    )
  }
  return id
}

// Control characters (C0, DEL, C1) never belong in a stored path.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/**
 * A slash path from a URL (policies, data): leading and trailing slashes trimmed, no empty,
 * `.` or `..` segments, no backslashes or control characters.
 * @throws HttpError 400 naming the field.
 */
export function checkSlashPath(raw: string, what: string, options: { allowEmpty?: boolean } = {}): string {
  const path = raw.replace(/^\/+|\/+$/g, '')
  if (path === '') {
    if (options.allowEmpty) return ''
    throw badRequest(`${what} is required`)
  }
  if (CONTROL.test(path) || path.includes('\\')) {
    throw badRequest(
      `invalid ${what} "${printable(path)}": control characters and backslashes are not allowed`,
    )
  }
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw badRequest(`invalid ${what} "${printable(path)}": empty, "." and ".." segments are not allowed`)
    }
  }
  if (path.length > 1024) throw badRequest(`invalid ${what}: longer than 1024 characters`)
  return path
}

/** The system id a `systems/{id}/…` path belongs to, or null. */
export function systemOfPath(path: string): string | null {
  const match = /^systems\/([^/]+)(?:\/|$)/.exec(path)
  return match ? match[1]! : null
}

/** `text` with control characters escaped, for error messages. */
export function printable(text: string): string {
  return JSON.stringify(text.slice(0, 200)).slice(1, -1)
}

/** Answers `{request_id, result}` (or just `{request_id}` when result is undefined). */
export function envelope(c: Context<ServiceEnv>, result?: unknown, status: 200 | 201 = 200): Response {
  const body =
    result === undefined ? { request_id: c.var.requestId } : { request_id: c.var.requestId, result }
  return c.json(body, status)
}

/**
 * The raw path parameter after the route's fixed prefix, percent-decoded, for routes whose
 * last parameter may contain slashes (`/v1/policies/{path}`).
 * @throws HttpError 400 for malformed percent-encoding.
 */
export function pathAfter(c: Context, prefix: string): string {
  const rawPath = new URL(c.req.url).pathname
  const rest = rawPath.startsWith(prefix) ? rawPath.slice(prefix.length) : ''
  try {
    return decodeURIComponent(rest)
  } catch {
    throw badRequest(`malformed percent-encoding in path "${printable(rest)}"`)
  }
}
