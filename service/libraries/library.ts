/**
 * What a policy library is (docs/libraries.md): an id, a description and Rego modules (file name
 * → source) whose packages all live under `data.libraries.<id>`. The namespace keeps a library
 * from defining or overriding anything of the systems that import it, and lets two libraries sit
 * side by side in one bundle; it is also where DAS puts its libraries, so policies written
 * against DAS read the same (`data.libraries.my_lib.split_url(x)`). The id is a Rego identifier
 * because it is a package segment (and a folder name for `regent pull`).
 */
import { z } from 'zod'
import { badRequest } from '../../core/http/index.js'
import { parseModuleWithErrors } from '../../core/rego/index.js'
import type { LibraryRow } from '../../store/service/index.js'
import { objectMeta } from '../../store/service/index.js'
import { checkModuleSet, describeRegoError, type ModuleValidator } from '../policy-validation.js'
import { checkSlashPath, printable, validateBody } from '../validation.js'

/** A library id: a Rego identifier of at most 64 characters. */
const LIBRARY_ID = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/** The root package every library's packages live under. */
export const LIBRARIES_ROOT = 'libraries'

/** Modules and bytes one library may hold (a library lands in every bundle that imports it). */
export const MAX_LIBRARY_MODULES = 1000

/**
 * `raw` as a library id.
 * @throws HttpError 400 naming the id and the rule.
 */
export function checkLibraryId(raw: string): string {
  if (!LIBRARY_ID.test(raw))
    throw badRequest(
      `invalid library id "${printable(raw)}": use 1-64 letters, digits and '_', not starting with a digit (it is the package segment data.${LIBRARIES_ROOT}.<id>)`,
    )
  return raw
}

const libraryRequestSchema = z.strictObject({
  id: z.string({ error: 'expected a string' }).optional(),
  description: z.string({ error: 'expected a string' }).max(4096).optional(),
  modules: z.record(z.string(), z.string({ error: 'expected the module source as a string' }), {
    error: 'required: an object of module file name to Rego source',
  }),
  // A GET answer may be sent back unchanged: its metadata is ignored.
  metadata: z.unknown().optional(),
})

/** A library as PUT stores it. */
export interface LibraryContent {
  description: string
  modules: Record<string, string>
}

/** The API shape of a library. */
export function libraryView(row: LibraryRow) {
  return {
    id: row.id,
    description: row.description,
    modules: JSON.parse(row.modules) as Record<string, string>,
    metadata: objectMeta(row),
  }
}

/** `data.a.b` of a parsed module's package, or undefined when a segment is not a plain string. */
function packageSegments(source: string, file: string): { segments: string[]; row: number } | undefined {
  const { module } = parseModuleWithErrors(source, { file })
  if (!module) return undefined
  const segments: string[] = []
  for (const term of module.package.path.slice(1)) {
    if (term.type !== 'string')
      return { segments: [...segments, '?'], row: module.package.location?.row ?? 1 }
    segments.push(String(term.value))
  }
  return { segments, row: module.package.location?.row ?? 1 }
}

/**
 * The library `id`'s content from a PUT body: every module named `<path>.rego`, parsing, with
 * its package under `data.libraries.<id>`, and the library's modules compiling together with
 * the other libraries' (`others`: what a library may call).
 * @throws HttpError 400 naming the module and line of the first problem (all of them in `errors`).
 */
export function validateLibrary(
  id: string,
  body: unknown,
  validateModule: ModuleValidator,
  others: Record<string, string>,
): LibraryContent {
  const request = validateBody(libraryRequestSchema, body, 'library')
  if (request.id !== undefined && request.id !== id)
    throw badRequest(`invalid library: id: "${printable(request.id)}" does not match the path's id ${id}`)
  const files = Object.entries(request.modules)
  if (files.length > MAX_LIBRARY_MODULES)
    throw badRequest(`invalid library: modules: at most ${MAX_LIBRARY_MODULES} modules`)
  const errors: string[] = []
  const root = [LIBRARIES_ROOT, id]
  for (const [file, source] of files) {
    let name: string | undefined
    try {
      name = checkSlashPath(file, 'module file name')
    } catch {}
    if (name !== file || !file.endsWith('.rego')) {
      errors.push(`modules.${printable(file)}: a module file name is a relative path ending in .rego`)
      continue
    }
    const problem = validateModule(`${id}/${file}`, source)
    if (problem) {
      errors.push(problem)
      continue
    }
    const pkg = packageSegments(source, file)
    if (pkg && !root.every((segment, i) => pkg.segments[i] === segment))
      errors.push(
        `${id}/${file}:${pkg.row}: package ${pkg.segments.join('.')} is outside data.${root.join('.')}: a library's packages live under its namespace`,
      )
  }
  if (errors.length === 0) {
    const set: Record<string, string> = { ...others }
    for (const [file, source] of files) set[`${id}/${file}`] = source
    for (const error of checkModuleSet(set)) errors.push(describeRegoError(error))
  }
  if (errors.length > 0) throw badRequest(`invalid library ${id}: ${errors[0]}`, errors)
  return { description: request.description ?? '', modules: request.modules }
}

/** Every module of `rows` except library `except`'s, named `<library>/<file>` (what compiles with a library). */
export function libraryModules(rows: readonly LibraryRow[], except?: string): Record<string, string> {
  const set: Record<string, string> = {}
  for (const row of rows) {
    if (row.id === except) continue
    for (const [file, source] of Object.entries(JSON.parse(row.modules) as Record<string, string>))
      set[`${row.id}/${file}`] = source
  }
  return set
}
