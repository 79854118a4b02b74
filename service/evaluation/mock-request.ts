/**
 * Checks the `mocks` field of a DataRequest against the spec's table (mock-table.ts): each key a
 * mockable built-in (public or neutral name), each `data` entry an object with every identifying
 * field of the right type and an object `result`; `opa.runtime` with an object `result` only.
 * Errors are 400s naming the field: `mocks.http.send.data[0].method: expected a string`.
 */
import { badRequest } from '../../core/http/index.js'
import { isJsonObject } from '../json-document.js'
import { hasFieldType, type MockShape, mockKeys, mockShape, RUNTIME_MOCK } from './mock-table.js'

/** One mocked built-in: the key the request used, and its entries (already checked). */
export interface MockedBuiltin {
  key: string
  builtin: string
  data: Array<Record<string, unknown>>
}

/** The mocks of a request, checked. */
export interface ValidatedMocks {
  builtins: MockedBuiltin[]
  /** `opa.runtime`'s `result`, when mocked. */
  runtime?: Record<string, unknown>
}

const TYPE_NAMES = { string: 'a string', object: 'an object', array: 'an array', int32: 'a 32-bit integer' }

function checkEntry(key: string, shape: MockShape, entry: unknown, index: number): Record<string, unknown> {
  const where = `mocks.${key}.data[${index}]`
  if (!isJsonObject(entry)) throw badRequest(`${where}: expected an object`)
  const known = new Set([...shape.fields.map((f) => f.name), 'result'])
  for (const name of Object.keys(entry))
    if (!known.has(name))
      throw badRequest(`${where}.${name}: unknown field; ${key} entries take ${[...known].join(', ')}`)
  for (const field of shape.fields) {
    if (!Object.hasOwn(entry, field.name)) throw badRequest(`${where}.${field.name}: required`)
    if (!hasFieldType(entry[field.name], field.type))
      throw badRequest(`${where}.${field.name}: expected ${TYPE_NAMES[field.type]}`)
  }
  if (!Object.hasOwn(entry, 'result')) throw badRequest(`${where}.result: required`)
  if (!isJsonObject(entry.result)) throw badRequest(`${where}.result: expected an object`)
  return entry
}

/** The checked mocks (none when `mocks` is absent). */
export function validateMocks(mocks: Record<string, unknown> | undefined): ValidatedMocks {
  const out: ValidatedMocks = { builtins: [] }
  if (mocks === undefined) return out
  const seen = new Map<string, string>()
  for (const [key, value] of Object.entries(mocks)) {
    if (!isJsonObject(value)) throw badRequest(`mocks.${key}: expected an object`)
    if (key === RUNTIME_MOCK) {
      const extra = Object.keys(value).filter((k) => k !== 'result')
      if (extra.length > 0)
        throw badRequest(`mocks.${key}.${extra[0]}: unknown field; ${key} takes only result`)
      if (!isJsonObject(value.result)) throw badRequest(`mocks.${key}.result: required, an object`)
      out.runtime = value.result
      continue
    }
    const shape = mockShape(key)
    if (!shape) throw badRequest(`mocks.${key}: not a mockable built-in; use one of ${mockKeys().join(', ')}`)
    const other = seen.get(shape.builtin)
    if (other !== undefined) throw badRequest(`mocks.${key}: mocks the same built-in as mocks.${other}`)
    seen.set(shape.builtin, key)
    const extra = Object.keys(value).filter((k) => k !== 'data')
    if (extra.length > 0) throw badRequest(`mocks.${key}.${extra[0]}: unknown field; ${key} takes only data`)
    if (!Array.isArray(value.data))
      throw badRequest(`mocks.${key}.data: required, an array (empty: the built-in does nothing)`)
    const data = value.data.map((entry, i) => checkEntry(key, shape, entry, i))
    out.builtins.push({ key, builtin: shape.builtin, data })
  }
  return out
}
