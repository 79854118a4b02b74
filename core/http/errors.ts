/**
 * Errors a regent server answers with, and the two envelopes they are written in.
 *
 * OPA-compatible endpoints (`/v1/compile`, `/v1/data`, the relay's agent-facing routes) answer
 * OPA's shape `{code, message, errors?}`; the management API answers
 * `{request_id, code, message, errors?}` (`meta.v1.ErrorResponse`).
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Which error envelope an app writes. */
export type ErrorStyle = 'opa' | 'management'

/** An error with an HTTP status and a stable machine-readable code. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly errors?: unknown[],
    /** Extra response headers, e.g. `Retry-After` on a 503. */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

// Named constructors: codes follow OPA's server (`invalid_parameter`, `resource_not_found`, …).
export const badRequest = (message: string, errors?: unknown[]) =>
  new HttpError(400, 'invalid_parameter', message, errors)
export const unauthorized = (message = 'missing or invalid bearer token') =>
  new HttpError(401, 'unauthorized', message)
export const forbidden = (message = 'the token does not grant this operation') =>
  new HttpError(403, 'forbidden', message)
export const notFound = (message: string) => new HttpError(404, 'resource_not_found', message)
export const conflict = (message: string) => new HttpError(409, 'resource_conflict', message)
export const payloadTooLarge = (message: string) => new HttpError(413, 'request_too_large', message)
export const unsupportedMediaType = (message: string) => new HttpError(415, 'unsupported_media_type', message)
export const serviceUnavailable = (message: string, retryAfterSeconds?: number) =>
  new HttpError(
    503,
    'service_unavailable',
    message,
    undefined,
    retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(retryAfterSeconds) },
  )
export const internalError = (message = 'internal error') => new HttpError(500, 'internal_error', message)

/** The JSON body for `err` in the given envelope style. */
export function errorBody(style: ErrorStyle, err: HttpError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> =
    style === 'management'
      ? { request_id: requestId, code: err.code, message: err.message }
      : { code: err.code, message: err.message }
  if (err.errors && err.errors.length > 0) body.errors = err.errors
  return body
}
