/**
 * The checks a Rego policy must pass to be stored. Each module must parse (Rego v1, as OPA 1.x
 * reads bundles by default), and a system's modules must compile together with the compiler
 * `regent check` uses (safety, types, conflicts): a policy that parses but cannot be evaluated
 * (an unsafe variable, an undefined function) is refused with 400 and the compiler's errors,
 * never built, signed and served. The per-module check is injectable through
 * `startService({validateModule})` for callers that need another rule.
 */
import {
  checkModules,
  type Module,
  parseModuleWithErrors,
  type RegoError,
  type RegoErrorJson,
} from '../core/rego/index.js'

/** Returns an error message when `source` is not an acceptable module, else undefined. */
export type ModuleValidator = (file: string, source: string) => string | undefined

/** `file:row:col: code: message`, the way `regent check` prints an error's first line. */
export function describeRegoError(error: RegoError | RegoErrorJson, fallbackFile?: string): string {
  const loc = error.location
  const file = loc?.file || fallbackFile
  const where = loc ? `${file ? `${file}:` : ''}${loc.row}:${loc.col}: ` : file ? `${file}: ` : ''
  return `${where}${error.code}: ${error.message}`
}

/** Parses the module with regent's Rego parser; the first error (and how many more) on failure. */
export const defaultModuleValidator: ModuleValidator = (file, source) => {
  const { errors } = parseModuleWithErrors(source, { file })
  const [first] = errors
  if (!first) return undefined
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''
  return `${describeRegoError(first, file)}${more}`
}

// A module set's errors past this many are summed up by the compiler's own "too many errors".
const MAX_COMPILE_ERRORS = 20

/**
 * The errors of compiling `modules` (file name → Rego source) as one set, in OPA's JSON shape
 * (`{code, message, location: {file, row, col}}`); empty when the set compiles. Parse errors
 * come first; the compiler runs only once every module parses, as in `regent check`.
 */
export function checkModuleSet(modules: Record<string, string>): RegoErrorJson[] {
  const parsed = new Map<string, Module>()
  const errors: RegoError[] = []
  for (const [file, source] of Object.entries(modules)) {
    const result = parseModuleWithErrors(source, { file })
    errors.push(...result.errors)
    if (result.module) parsed.set(file, result.module)
  }
  if (errors.length === 0) errors.push(...checkModules(parsed, { maxErrors: MAX_COMPILE_ERRORS }))
  return errors.map((e) => e.toJSON())
}
