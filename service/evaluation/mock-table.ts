/**
 * The spec's table of mockable built-ins ("Data evaluation", BuiltinMocks): for each, the fields
 * that identify a call. A data entry whose identifying fields equal the call's answers it with its
 * `result`. Declared once here; the request validation, the matching and the report read it.
 *
 * The spec names some built-ins neutrally; the engine keeps the names EOPA's users know, and both
 * are accepted as mock keys (docs/data-evaluation.md): cloudkv → dynamodb, docdb → mongodb,
 * graphdb → neo4j, cache → redis, secretstore → vault.
 */

/** How a field is compared and which JSON type a data entry must give it. */
type FieldType = 'string' | 'object' | 'array' | 'int32'

export interface IdentifyingField {
  name: string
  type: FieldType
  /** The value a call that leaves the field out is matched with (`method` of http.send: GET). */
  callDefault?: unknown
  /** Applied to both sides before comparing (http.send's method is case-insensitive). */
  normalize?: (value: unknown) => unknown
  /** The field's name in the report, when it differs (cache.query's `command` is `query` there). */
  reportAs?: string
}

export interface MockShape {
  /** The built-in's name in the engine. */
  builtin: string
  fields: readonly IdentifyingField[]
}

const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v)
const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v)

const str = (name: string, extra: Partial<IdentifyingField> = {}): IdentifyingField => ({
  name,
  type: 'string',
  ...extra,
})
const obj = (name: string): IdentifyingField => ({ name, type: 'object', callDefault: {} })

/** Every mockable built-in (opa.runtime, which only takes `result`, is handled apart). */
export const MOCK_SHAPES: readonly MockShape[] = [
  { builtin: 'http.send', fields: [str('url'), str('method', { callDefault: 'GET', normalize: upper })] },
  {
    builtin: 'sql.send',
    fields: [
      str('driver'),
      str('data_source_name'),
      str('query'),
      { name: 'args', type: 'array', callDefault: [] },
    ],
  },
  {
    builtin: 'redis.query',
    fields: [
      str('addr'),
      { name: 'db', type: 'int32', callDefault: 0 },
      str('command', { normalize: lower, reportAs: 'query' }),
      { name: 'args', type: 'array', callDefault: [] },
    ],
  },
  { builtin: 'dynamodb.get', fields: [str('table'), obj('key'), str('region')] },
  { builtin: 'dynamodb.query', fields: [str('table'), str('key_condition_expression'), str('region')] },
  {
    builtin: 'mongodb.find',
    fields: [str('uri'), str('database'), str('collection'), obj('filter'), obj('options')],
  },
  {
    builtin: 'mongodb.find_one',
    fields: [str('uri'), str('database'), str('collection'), obj('filter'), obj('options')],
  },
  { builtin: 'neo4j.query', fields: [str('uri'), str('query'), obj('parameters')] },
  { builtin: 'vault.send', fields: [str('mount_path'), str('path')] },
]

/** The spec's neutral names → the engine's built-ins. */
export const NEUTRAL_NAMES: Readonly<Record<string, string>> = {
  'cloudkv.get': 'dynamodb.get',
  'cloudkv.query': 'dynamodb.query',
  'docdb.find': 'mongodb.find',
  'docdb.find_one': 'mongodb.find_one',
  'graphdb.query': 'neo4j.query',
  'cache.query': 'redis.query',
  'secretstore.send': 'vault.send',
}

/** The mock key for `opa.runtime`. */
export const RUNTIME_MOCK = 'opa.runtime'

const BY_BUILTIN = new Map(MOCK_SHAPES.map((s) => [s.builtin, s]))

/** The shape for a mock key (public or neutral name), or undefined for an unknown key. */
export function mockShape(key: string): MockShape | undefined {
  return BY_BUILTIN.get(NEUTRAL_NAMES[key] ?? key)
}

/** Every key `mocks` accepts, for error messages and docs. */
export function mockKeys(): string[] {
  return [...MOCK_SHAPES.map((s) => s.builtin), ...Object.keys(NEUTRAL_NAMES), RUNTIME_MOCK].sort()
}

/** Whether `value` has the JSON type `type` asks for. */
export function hasFieldType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'int32':
      return typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31
  }
}

/** Canonical JSON text (keys sorted), so equal JSON values compare equal as strings. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

/** The identifying fields of a call's request object (defaults filled in, normalized). */
export function callIdentity(shape: MockShape, request: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const field of shape.fields) {
    const raw = Object.hasOwn(request, field.name) ? request[field.name] : field.callDefault
    out[field.name] = field.normalize ? field.normalize(raw) : raw
  }
  return out
}

/** A call's identifying fields as the report lists them (renamed where the spec says so). */
export function reportElement(shape: MockShape, identity: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const field of shape.fields) out[field.reportAs ?? field.name] = identity[field.name]
  return out
}
