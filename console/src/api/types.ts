/**
 * The shapes of the management API the console reads (docs/service.md and the spec's management
 * API). Written by hand for the fields the console uses; other fields are left out of the types
 * and shown raw where the console shows raw JSON.
 */

/** Every successful answer. */
export interface Envelope<T> {
  request_id: string
  result: T
}

/** Every refusal. */
export interface ErrorBody {
  request_id: string
  code: string
  message: string
}

/** One item of `POST /v1/authz/evaluation`. */
export interface PermissionCheck {
  operation: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  path: string
  body?: Record<string, unknown>
}

/** Its answer per item, in the order asked. */
export interface PermissionAnswer extends PermissionCheck {
  allowed: boolean
  eval_error: boolean
}
