/**
 * `regent fmt --check-result` (on by default, as in `opa fmt`): the formatted text is parsed
 * again before it is printed or written, so a formatter bug can never replace a valid policy
 * file with one that does not parse. A failure exits 2 with OPA's message.
 */
import { RegoErrors } from '../../core/rego/errors.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'

/** The message to print when `formatted` does not parse as `regoVersion`; undefined when it does. */
export function invalidFormatResult(
  file: string,
  formatted: string,
  regoVersion: 'v0' | 'v1',
): string | undefined {
  try {
    parseModule(formatted, { file: 'formatted', regoVersion })
    return undefined
  } catch (err) {
    const reason =
      err instanceof RegoErrors ? err.toString() : err instanceof Error ? err.message : String(err)
    return (
      `${file} was successfully formatted, but the result is invalid: ${reason}\n\n` +
      'To inspect the formatted Rego, you can turn off this check with --check-result=false.'
    )
  }
}

/** Reads `--check-result[=true|false]` (commander passes `true` for the bare flag). */
export function parseCheckResultFlag(value: string | boolean): boolean {
  if (value === true || value === 'true') return true
  if (value === 'false') return false
  throw new Error(`invalid --check-result ${JSON.stringify(value)} (expected true or false)`)
}
