/**
 * How `regent eval` (and `eval -p`) report a failed run: OPA's `{"errors": [...]}` on stdout with
 * `-f json` (and `-f discard`), the pretty text on stderr otherwise; exit code 2 either way, as
 * `opa eval` exits on an error (1 is left to `--fail` and `--fail-defined`).
 */
import { RegoError, RegoErrors } from '../../core/rego/errors.js'
import { type Doc, renderJson, sortedDoc } from '../presentation.js'

/** The errors of a failed run in OPA's JSON shape (its OutputError: message, code, location, details). */
export function errorDocs(err: unknown): Doc[] {
  const one = (e: unknown): Doc => {
    if (e instanceof RegoError) {
      const j = e.toJSON()
      return {
        message: j.message,
        code: j.code,
        location: j.location as Doc | undefined,
        details: j.details as Doc | undefined,
      }
    }
    if (e && typeof e === 'object' && 'toJSON' in e && typeof e.toJSON === 'function') {
      const j = e.toJSON() as { code: string; message: string; location?: Doc }
      return { message: j.message, code: j.code, location: j.location }
    }
    return { message: e instanceof Error ? e.message : String(e) }
  }
  if (err instanceof RegoErrors) return err.errors.map(one)
  return [one(err)]
}

function errorText(err: unknown): string {
  if (err instanceof RegoErrors) return err.toString()
  if (err instanceof Error && 'code' in err) return `1 error occurred: ${String(err)}`
  return err instanceof Error ? err.message : String(err)
}

/** Writes the failure in the `--format` asked for and sets exit code 2. */
export function writeFailure(err: unknown, options: { format: string }): void {
  // OPA's `discard` prints the whole output document as JSON, errors included.
  if (options.format === 'json') process.stdout.write(`${renderJson({ errors: errorDocs(err) })}\n`)
  else if (options.format === 'discard')
    process.stdout.write(`${renderJson(sortedDoc({ errors: errorDocs(err) }))}\n`)
  else process.stderr.write(`${errorText(err)}\n`)
  process.exitCode = 2
}
