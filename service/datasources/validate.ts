/**
 * Checks a datasource PUT: the id (a slash path; `systems/<sys>/<name…>` belongs to that
 * system), then the body against its category's schema (unknown fields, wrong types, enums,
 * ranges, required fields and the mix-ins' rules: 400 naming the field), the Rego filter, the
 * secret ids it names (400 when one is not stored), and the category's own target check
 * (policy-library: the library exists). Defaults are filled in by the schema.
 */
import { badRequest } from '../../core/http/index.js'
import type { ServiceRepositories } from '../../store/service/index.js'
import { isJsonObject } from '../json-document.js'
import { assertSecretsExist, type SecretReference } from '../secrets/references.js'
import { checkSlashPath, printable, validateBody } from '../validation.js'
import { categoryNamed, DATASOURCE_CATEGORIES } from './categories.js'
import { filterProblems } from './filter.js'
import { SECRET_ID_FIELDS } from './mixins.js'
import type { DatasourceCategory } from './types.js'

const SEGMENT = /^[A-Za-z0-9._@:+=-]+$/

/** Members of a datasource's answer that a PUT may send back unchanged and that are ignored. */
const OUTPUT_ONLY = ['executed', 'metadata', 'resources', 'status'] as const

/** A datasource id and the system its data belongs to (null: the workspace). */
export interface DatasourceId {
  id: string
  systemId: string | null
}

/**
 * The datasource id of a request path.
 * @throws HttpError 400 naming the id.
 */
export function datasourceIdOf(raw: string): DatasourceId {
  const id = checkSlashPath(raw, 'datasource id')
  const segments = id.split('/')
  if (id.length > 512 || !segments.every((s) => SEGMENT.test(s)))
    throw badRequest(
      `invalid datasource id "${printable(id)}": use up to 512 letters, digits and '.', '_', '@', ':', '+', '=', '-' between slashes`,
    )
  if (segments[0] !== 'systems') return { id, systemId: null }
  if (segments.length < 3)
    throw badRequest(
      `invalid datasource id "${printable(id)}": a system's datasource is systems/<system>/<name>; its data lands at data.<name> of that system's bundle`,
    )
  return { id, systemId: segments[1]! }
}

/** A validated configuration and its category. */
export interface ValidatedDatasource {
  category: DatasourceCategory
  config: Record<string, unknown>
}

/**
 * The configuration in `body` for the datasource `id`, defaults filled in.
 * @throws HttpError 400 naming the field, 501 for a category this build does not fetch.
 */
export async function validateDatasource(
  store: ServiceRepositories,
  id: string,
  body: unknown,
): Promise<ValidatedDatasource> {
  if (!isJsonObject(body))
    throw badRequest('invalid datasource: expected a JSON object with at least category')
  const { id: bodyId, ...rest } = body
  if (bodyId !== undefined && bodyId !== id)
    throw badRequest(
      `invalid datasource: id: "${printable(String(bodyId))}" does not match the path's id ${id}`,
    )
  for (const field of OUTPUT_ONLY) delete rest[field]
  const names = DATASOURCE_CATEGORIES.map((c) => c.category).join(', ')
  if (rest.category === undefined) throw badRequest(`invalid datasource: category: required: one of ${names}`)
  const category = typeof rest.category === 'string' ? categoryNamed(rest.category) : undefined
  if (!category)
    throw badRequest(
      `invalid datasource: category: "${printable(String(rest.category))}" is not one of ${names}`,
    )
  const config = validateBody(category.schema, rest, 'datasource')
  const problems = filterProblems(config)
  if (problems.length > 0) throw badRequest(`invalid datasource: ${problems[0]}`, problems)
  await assertSecretsExist(store, secretReferences(config), 'datasource')
  await category.checkTarget?.(id, store)
  return { category, config }
}

/** The secret ids a configuration names, with the field naming each (`headers.0.secret_id`). */
export function secretReferences(config: unknown, path: string[] = []): SecretReference[] {
  if (Array.isArray(config)) return config.flatMap((item, i) => secretReferences(item, [...path, String(i)]))
  if (!isJsonObject(config)) return []
  return Object.entries(config).flatMap(([key, value]) =>
    SECRET_ID_FIELDS.has(key) && typeof value === 'string'
      ? [{ field: [...path, key].join('.'), id: value }]
      : secretReferences(value, [...path, key]),
  )
}
