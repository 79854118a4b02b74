/**
 * The DataRequest of the data API (spec "Data evaluation"): read from a POST body (JSON) or from
 * GET query parameters (`rego`, `jsonpath`, `query_package`, the booleans as `true`/`false`, and the
 * JSON-valued fields as JSON text), checked field by field with 400s that name the field, and
 * turned into what the evaluation worker takes (JSON fields as text, so numbers stay as written).
 */
import { z } from 'zod'
import { badRequest } from '../../core/http/index.js'
import { isJsonObject, parseJsonDocument, stringifyJsonDocument } from '../json-document.js'
import { validateBody } from '../validation.js'
import { type ValidatedMocks, validateMocks } from './mock-request.js'

const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, { error: 'expected an object' })
const PACKAGE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/

/** DataRequest: every field optional; unknown fields are refused. */
export const dataRequestSchema = z.strictObject({
  data: jsonObject.optional(),
  input: jsonObject.optional(),
  jsonpath: z.string().min(1).optional(),
  rego: z.string().min(1).optional(),
  rego_modules: z.record(z.string().min(1), z.string()).optional(),
  query_package: z
    .string()
    .regex(PACKAGE, { error: 'expected a package path such as authz.rules (without data.)' })
    .optional(),
  mocks: jsonObject.optional(),
  nd_builtin_cache: z.record(z.string(), jsonObject).optional(),
  replay: z.boolean().optional(),
  sandbox: z.boolean().optional(),
  strict: z.boolean().optional(),
})

export type DataRequest = z.output<typeof dataRequestSchema>

/** The fields that may be given as GET query parameters, and how each is read. */
const QUERY_TEXT = ['rego', 'jsonpath', 'query_package'] as const
const QUERY_BOOLEAN = ['replay', 'sandbox', 'strict'] as const
const QUERY_JSON = ['data', 'input', 'rego_modules', 'mocks', 'nd_builtin_cache'] as const
/** Query parameters that only shape a plain document read (not evaluation fields). */
const READ_ONLY_PARAMETERS = new Set(['download', 'limit'])

/** Whether GET query parameters ask for an evaluation (any DataRequest field present). */
export function asksForEvaluation(query: Record<string, string>): boolean {
  return Object.keys(query).some((k) => !READ_ONLY_PARAMETERS.has(k))
}

/** A DataRequest from GET query parameters; 400 naming a parameter that is not one or is malformed. */
export function dataRequestFromQuery(query: Record<string, string>): DataRequest {
  const raw: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query)) {
    if (READ_ONLY_PARAMETERS.has(key)) continue
    if ((QUERY_TEXT as readonly string[]).includes(key)) raw[key] = value
    else if ((QUERY_BOOLEAN as readonly string[]).includes(key)) {
      if (value !== 'true' && value !== 'false' && value !== '')
        throw badRequest(
          `query parameter ${key}: expected true or false, got ${JSON.stringify(value.slice(0, 40))}`,
        )
      raw[key] = value !== 'false'
    } else if ((QUERY_JSON as readonly string[]).includes(key)) {
      try {
        raw[key] = parseJsonDocument(value)
      } catch (err) {
        throw badRequest(
          `query parameter ${key}: not JSON: ${err instanceof Error ? err.message : String(err)}`,
        )
      }
    } else throw badRequest(`unknown query parameter ${key}`)
  }
  return validateBody(dataRequestSchema, raw, 'query parameters')
}

/** A DataRequest from a POST body (empty body: an empty request). */
export function dataRequestFromBody(text: string): DataRequest {
  if (text.trim() === '') return {}
  return validateBody(dataRequestSchema, parseJsonDocument(text), 'DataRequest')
}

/** A request checked beyond its types: the mocks against the spec's table. */
export interface CheckedRequest {
  request: DataRequest
  mocks: ValidatedMocks
}

/** Checks what the schema cannot: the mocks' entries. */
export function checkRequest(request: DataRequest): CheckedRequest {
  return { request, mocks: validateMocks(request.mocks) }
}

/** JSON text of a request value for the worker (numbers as written). */
export function jsonText(value: unknown): string {
  return stringifyJsonDocument(value)
}
