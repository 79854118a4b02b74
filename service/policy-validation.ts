/**
 * The hook that decides whether a Rego module may be stored. The service refuses a policy
 * whose modules fail it with 400 and the reason.
 *
 * NOTE(service): until `core/rego` exports `parseModule`, the default only checks that the
 * module declares a package (the least OPA requires); swap in the parser by passing
 * `validateModule` to `startService`, or by changing `defaultModuleValidator` here.
 */

/** Returns an error message when `source` is not an acceptable module, else undefined. */
export type ModuleValidator = (file: string, source: string) => string | undefined

// A package clause at the start of a line, after any comments and blank lines.
const PACKAGE_CLAUSE = /^\s*package\s+[^\s#]+/m

/** The stand-in check used until the Rego parser is wired in (see the note above). */
export const defaultModuleValidator: ModuleValidator = (file, source) => {
  const withoutComments = source.replace(/#[^\n]*/g, '')
  if (!PACKAGE_CLAUSE.test(withoutComments)) return `${file}:1: rego_parse_error: package expected`
  return undefined
}
