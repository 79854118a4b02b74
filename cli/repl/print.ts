/**
 * The shell's output, in the shapes `regent eval` prints (cli/presentation.ts): `pretty` (a value,
 * `undefined`, or a table of bindings) or `json` (`{"result": [...]}`, `{}` when undefined), and
 * errors as OPA's REPL prints them: `1 error occurred: 1:1: rego_unsafe_var_error: var x is unsafe`
 * with the source excerpt under parse errors.
 */
import { type QueryResult, RegoError, RegoErrors, EvalError as RegoEvalError } from '../../core/rego/index.js'
import { type Doc, Embedded, renderJson, renderPretty, resultDoc, table } from '../presentation.js'

/** The output formats of the `json` and `pretty` commands (and `run -f`). */
export type OutputFormat = 'pretty' | 'json'

/** Timers in nanoseconds, by OPA's metric names, when `metrics` is on. */
export type Timers = Record<string, number>

/** The text for the results of one query. */
export function resultsText(
  results: readonly QueryResult[],
  format: OutputFormat,
  prettyLimit: number,
  timers: Timers | undefined,
): string {
  if (format === 'json') {
    const doc: { [key: string]: Doc | undefined } = {}
    if (timers) doc.metrics = sortedTimers(timers)
    if (results.length > 0) doc.result = results.map(resultDoc)
    return `${renderJson(doc)}\n`
  }
  let text = renderPretty(results, prettyLimit)
  if (timers) {
    text += table(
      ['Metric', 'Value'],
      Object.entries(sortedTimers(timers)).map(([k, v]) => [k, String(v)]),
    )
  }
  return text
}

function sortedTimers(timers: Timers): Record<string, number> {
  return Object.fromEntries(Object.entries(timers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** An evaluation error in the current format: OPA's text, or `{"errors": [...]}` for json. */
export function evalErrorText(err: RegoEvalError, format: OutputFormat): string {
  if (format === 'json') {
    const j = err.toJSON()
    return `${renderJson({ errors: [{ message: j.message, code: j.code, location: j.location ? { file: j.location.file, row: j.location.row, col: j.location.col } : undefined }] })}\n`
  }
  return `1 error occurred: ${oneError(err)}\n`
}

/**
 * Any error as OPA's REPL prints it (`ast.Errors`): a count line, then `file:row` or `row:col`,
 * the code and the message, and a parse error's source line with a caret.
 */
export function errorText(err: unknown): string {
  const errors =
    err instanceof RegoErrors
      ? err.errors
      : err instanceof RegoError || err instanceof RegoEvalError
        ? [err]
        : undefined
  if (!errors) return `error: ${err instanceof Error ? err.message : String(err)}\n`
  if (errors.length === 1) return `1 error occurred: ${oneError(errors[0] as RegoError)}\n`
  return `${errors.length} errors occurred:\n${errors.map(oneError).join('\n')}\n`
}

function oneError(e: RegoError | RegoEvalError): string {
  // Both print OPA's prefix: `file:row` when the error has a file, `row:col` when it has none (REPL input).
  return e.toString()
}

/** A value as JSON text (the `dump` command). */
export function valueText(value: Embedded['value']): string {
  return `${renderJson(new Embedded(value))}\n`
}
