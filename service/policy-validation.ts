/**
 * The check a Rego module must pass to be stored: it must parse (Rego v1, as OPA 1.x reads
 * bundles by default). The service refuses a policy whose modules fail with 400 and the
 * parser's error (`file:row:col: rego_parse_error: message`). Injectable through
 * `startService({validateModule})` for callers that need another rule.
 */
import { parseModuleWithErrors } from '../core/rego/index.js'

/** Returns an error message when `source` is not an acceptable module, else undefined. */
export type ModuleValidator = (file: string, source: string) => string | undefined

/** Parses the module with regent's Rego parser; the first error (and how many more) on failure. */
export const defaultModuleValidator: ModuleValidator = (file, source) => {
  const { errors } = parseModuleWithErrors(source, { file })
  const [first] = errors
  if (!first) return undefined
  const loc = first.location
  const where = loc ? `${file}:${loc.row}:${loc.col}` : file
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''
  return `${where}: ${first.code}: ${first.message}${more}`
}
